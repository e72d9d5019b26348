// The document shapes of the validation benchmark: each a function of n that grows the document;
// the benchmark finds the largest n the default limits accept. The same shapes are timed by
// packages/graphql/test/validation-budget.test.ts.

/** A bookstore schema of a realistic size: an interface, a union, an input object, list arguments. */
export const typeDefs = /* GraphQL */ `
  interface Node { id: ID! }
  enum Genre { FICTION SCIENCE HISTORY POETRY }
  input BookFilter { genre: Genre, author: String, minPrice: Int, maxPrice: Int, tags: [String!] }
  type Author implements Node { id: ID! name: String! bio: String born: Int books(limit: Int): [Book!]! }
  type Review implements Node { id: ID! rating: Int! text: String author: Author! book: Book! }
  type Book implements Node {
    id: ID! title: String! subtitle: String isbn: String genre: Genre! priceCents: Int! stock: Int!
    pages: Int published: String tags: [String!]! price(currency: String): Int
    author: Author! reviews(first: Int): [Review!]! related: [Book!]!
  }
  type BookPage { items: [Book!]! total: Int! }
  union SearchResult = Book | Author | Review
  type Query {
    books(limit: Int, offset: Int, genre: Genre, ids: [ID!], filter: BookFilter): BookPage!
    book(id: ID!): Book
    node(id: ID!): Node
    search(q: String!): [SearchResult!]!
  }
`;

const repeat = (n, text) => Array.from({ length: n }, (_, i) => text(i)).join(' ');
const BOOK_LEAVES = 'id title subtitle isbn genre priceCents stock pages published tags';

/** `related` nested n deep, every scalar of Book at each level. */
function deepSelection(n) {
  let inner = BOOK_LEAVES;
  for (let i = 0; i < n; i++) inner = `${BOOK_LEAVES} author { name bio born } related { ${inner} }`;
  return inner;
}

export const shapes = {
  'one field repeated': (n) => `{ books { items { ${repeat(n, () => 'title')} } } }`,
  'repeated inline fragments': (n) => `{ books { items { ${repeat(n, () => '... on Book { title }')} } } }`,
  'repeated sub-selections': (n) => `{ books { items { ${repeat(n, () => 'author { name }')} } } }`,
  'repeated deep sub-selections': (n) => `{ books { items { ${repeat(n, () => 'author { books { author { name } } }')} } } }`,
  'repeated fields with arguments': (n) => `{ books { items { ${repeat(n, () => 'price(currency: "EUR")')} } } }`,
  'repeated fields with a list argument': (n) => `{ ${repeat(15, (i) => `b${i}: books(ids: [${repeat(n, (j) => `"${j}"`)}]) { total }`)} }`,
  'distinct fragments spread at one place': (n) => `{ books { items { ${repeat(n, (i) => `...F${i}`)} } } } ${repeat(n, (i) => `fragment F${i} on Book { title }`)}`,
  'fragments fanning out': (n) => {
    const fragments = [`fragment F0 on Book { ${BOOK_LEAVES} }`];
    for (let i = 1; i < n; i++) fragments.push(`fragment F${i} on Book { id related { ...F${i - 1} } author { books { ...F${i - 1} } } }`);
    return `{ books { items { ...F${n - 1} } } } ${fragments.join(' ')}`;
  },
  'union members repeating fields': (n) => `{ search(q: "x") { ${repeat(n, (i) => `... on ${['Book', 'Author', 'Review'][i % 3]} { id ... on Node { id } }`)} } }`,
  'many distinct fields and aliases, nested to the maximum depth': (n) => `{ books { items { ${deepSelection(n)} } } }`,
  'all limits at once': (n) =>
    `{ books { items { ${repeat(28, (i) => `a${i}: title`)} ${repeat(35, () => 'author { name }')} related { ${deepSelection(n)} } } } }`,
  'a huge input argument': (n) => `{ books(filter: { tags: [${repeat(n, (i) => `"t${i}"`)}] }) { total } }`,
};
