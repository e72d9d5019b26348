import { findSchemaChanges } from '../src/index.js';

const V1 = `
type Query {
  book(id: ID!): Book
}
type Mutation {
  placeOrder(input: PlaceOrderInput!): Order!
}
input PlaceOrderInput {
  quantity: Int!
  phone: String
}
type Book {
  id: ID!
  title: String!
  genre: Genre
}
type Order {
  id: ID!
}
enum Genre {
  FICTION
  POETRY
}
`;

const changes = (after: string): string[] =>
  findSchemaChanges(V1, after).map((change) => `${change.breaking ? 'breaking' : change.dangerous ? 'dangerous' : 'safe'}: ${change.message}`);

describe('findSchemaChanges', () => {
  it('finds nothing between a schema and itself in another order', () => {
    expect(changes(V1)).toEqual([]);
    expect(changes(V1.replace('  quantity: Int!\n  phone: String\n', '  phone: String\n  quantity: Int!\n'))).toEqual([]);
  });

  it('lists added types, output fields and a nullable input field without a default as safe', () => {
    const added = V1.replace('  genre: Genre\n', '  genre: Genre\n  isbn: String\n').replace('  phone: String\n', '  phone: String\n  note: String\n').concat('type Author { name: String }\n');
    expect(changes(added)).toEqual([
      'safe: An optional field note on input type PlaceOrderInput was added.',
      'safe: Book.isbn was added.',
      'safe: Author was added.',
    ]);
  });

  it('says a removed field, a changed type, an input field made required and a removed enum value break clients', () => {
    expect(changes(V1.replace('  title: String!\n', ''))).toEqual(['breaking: Book.title was removed.']);
    expect(changes(V1.replace('quantity: Int!', 'quantity: Float!'))).toEqual(['breaking: PlaceOrderInput.quantity changed type from Int! to Float!.']);
    expect(changes(V1.replace('phone: String', 'phone: String!'))).toEqual(['breaking: PlaceOrderInput.phone changed type from String to String!.']);
    expect(changes(V1.replace('  POETRY\n', ''))).toEqual(['breaking: POETRY was removed from enum type Genre.']);
  });

  it('calls dangerous what existing operations survive but may not expect: a new enum value, a default, an optional argument', () => {
    expect(changes(V1.replace('  FICTION\n', '  FICTION\n  DRAMA\n'))).toEqual(['dangerous: DRAMA was added to enum type Genre.']);
    expect(changes(V1.replace('  phone: String\n', '  phone: String = "none"\n'))).toEqual(['dangerous: PlaceOrderInput.phone now has the default "none".']);
    expect(changes(V1.replace('book(id: ID!)', 'book(id: ID!, lang: String)'))).toEqual(['dangerous: An optional arg lang on Query.book was added.']);
    // Breaking first, then dangerous, then safe.
    expect(changes(V1.replace('  POETRY\n', '  DRAMA\n').replace('  genre: Genre\n', '  genre: Genre\n  isbn: String\n'))).toEqual([
      'breaking: POETRY was removed from enum type Genre.',
      'dangerous: DRAMA was added to enum type Genre.',
      'safe: Book.isbn was added.',
    ]);
  });

  it('says a renamed type breaks clients that name it', () => {
    expect(changes(V1.replace('Order!', 'PlacedOrder!').replace('type Order', 'type PlacedOrder'))).toEqual([
      'breaking: Order was removed.',
      'breaking: Mutation.placeOrder changed type from Order! to PlacedOrder!.',
      'safe: PlacedOrder was added.',
    ]);
  });
});
