import { diff, CriticalityLevel } from '@graphql-inspector/core';
import { buildSchema } from 'graphql';
import { findSchemaChanges } from '@fw/app';

/**
 * findSchemaChanges held to graphql-inspector change by change: breaking for one is breaking for
 * the other, and dangerous (existing operations still run, but may now get a value or a behaviour
 * they did not handle) for one is dangerous for the other.
 */

const V1 = `
type Query {
  book(id: ID!): Book
  books(limit: Int = 20, offset: Int): [Book!]!
  search(text: String!): [Result!]!
}
type Mutation {
  placeOrder(input: PlaceOrderInput!): Order!
}
input PlaceOrderInput {
  quantity: Int!
  phone: String
  express: Boolean = false
}
directive @tag(name: String!) repeatable on FIELD_DEFINITION
directive @cache(ttl: Int = 60) on FIELD_DEFINITION
interface Node {
  id: ID!
}
type Book implements Node {
  id: ID!
  title: String!
  subtitle: String
  genre: Genre
}
type Author {
  name: String!
}
union Result = Book | Author
type Order {
  id: ID!
}
enum Genre {
  FICTION
  POETRY
}
`;

const CASES: Array<[string, string]> = [
  ['an output field added', V1.replace('  genre: Genre\n', '  genre: Genre\n  isbn: String\n')],
  ['an output field removed', V1.replace('  subtitle: String\n', '')],
  ['a type removed', V1.replace('type Author {\n  name: String!\n}\n', '').replace('Book | Author', 'Book')],
  ['a required argument added', V1.replace('book(id: ID!)', 'book(id: ID!, lang: String!)')],
  ['an optional argument added', V1.replace('book(id: ID!)', 'book(id: ID!, lang: String)')],
  ['an argument removed', V1.replace('books(limit: Int = 20)', 'books')],
  ['an argument default changed', V1.replace('limit: Int = 20', 'limit: Int = 50')],
  ['a required input field added', V1.replace('  phone: String\n', '  phone: String\n  email: String!\n')],
  ['an optional input field added', V1.replace('  phone: String\n', '  phone: String\n  email: String\n')],
  ['an input field made required', V1.replace('phone: String', 'phone: String!')],
  ['an input field made optional', V1.replace('quantity: Int!', 'quantity: Int')],
  ['an input field type changed', V1.replace('quantity: Int!', 'quantity: Float!')],
  ['an output field made nullable', V1.replace('title: String!', 'title: String')],
  ['an output field made non-null', V1.replace('subtitle: String', 'subtitle: String!')],
  ['an enum value added', V1.replace('  POETRY\n', '  POETRY\n  DRAMA\n')],
  ['an enum value removed', V1.replace('  POETRY\n', '')],
  ['a union member removed', V1.replace('Book | Author', 'Book')],
  ['a union member added', V1.replace('Book | Author', 'Book | Author | Order')],
  ['an interface removed from a type', V1.replace('type Book implements Node', 'type Book')],
  ['a description added', V1.replace('type Order {', '"""A placed order"""\ntype Order {')],
  ['a field deprecated', V1.replace('subtitle: String', 'subtitle: String @deprecated(reason: "use title")')],
  ['an argument default added', V1.replace('offset: Int)', 'offset: Int = 0)')],
  ['an input field with a default added', V1.replace('  phone: String\n', '  phone: String\n  gift: Boolean = false\n')],
  ['an input field default changed', V1.replace('express: Boolean = false', 'express: Boolean = true')],
  ['an interface added to a type', V1.replace('type Order {', 'type Order implements Node {')],
  ['a directive made non-repeatable', V1.replace(' repeatable on', ' on')],
  ['a directive argument default changed', V1.replace('ttl: Int = 60', 'ttl: Int = 120')],
];

describe('findSchemaChanges calls breaking and dangerous what graphql-inspector does', () => {
  it.each(CASES)('%s', async (name, after) => {
    const theirs = await diff(buildSchema(V1), buildSchema(after));
    const ours = findSchemaChanges(V1, after);
    const level = (change: { breaking: boolean; dangerous: boolean }): string => (change.breaking ? 'breaking' : change.dangerous ? 'dangerous' : 'safe');
    // On a disagreement the message shows what each side found.
    const found = { ours: ours.map((change) => `${level(change)}: ${change.message}`), theirs: theirs.map((change) => `${change.criticality.level}: ${change.message}`) };
    expect({ name, breaking: ours.some((change) => change.breaking), dangerous: ours.some((change) => change.dangerous), ...found }).toEqual({
      name,
      breaking: theirs.some((change) => change.criticality.level === CriticalityLevel.Breaking),
      dangerous: theirs.some((change) => change.criticality.level === CriticalityLevel.Dangerous),
      ...found,
    });
  });
});
