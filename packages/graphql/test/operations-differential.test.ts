import { Application } from '@fw/core';
import { graphqlPlugin } from '../src/index.js';
import { defineTestOperation, t } from './fixtures/operation.js';
import { gql } from './helpers.js';

// Operation fields answer the same on every run (with executor: 'jit', graphql-js on the first and
// compiled from the second where the document compiles), and an explicit null for an input field
// that may be left out is the same as leaving it out.

const Genre = t.enum(['FICTION', 'SCIENCE'], { name: 'Genre' });
const Book = t.object({ id: t.string(), title: t.string(), genre: Genre }, { name: 'Book' });
const books = [
  { id: '1', title: 'Dune', genre: 'FICTION' },
  { id: '2', title: 'Cosmos', genre: 'SCIENCE' },
];

const listBooks = defineTestOperation({
  name: 'listBooks',
  input: t.object({ genre: t.optional(Genre), tags: t.optional(t.list(t.object({ name: t.string(), weight: t.optional(t.int32()) }))) }),
  output: t.list(Book),
  graphql: { type: 'query' },
  handler: (input) => {
    if (Object.prototype.hasOwnProperty.call(input, 'genre') && input.genre === undefined) throw new Error('genre is there but undefined');
    return books.filter((book) => input.genre === undefined || book.genre === input.genre);
  },
});

const getBook = defineTestOperation({
  name: 'getBook',
  input: t.object({ id: t.string() }),
  output: t.nullable(Book),
  graphql: { type: 'query' },
  handler: ({ id }) => books.find((book) => book.id === id) ?? null,
});

let app: Application;
let endpoint: string;

beforeAll(async () => {
  app = new Application({ onLog: () => undefined });
  app.register(graphqlPlugin({ executor: 'jit' }));
  app.operation(listBooks).operation(getBook);
  const info = await app.listen(0, '127.0.0.1');
  endpoint = `http://127.0.0.1:${info.port}/graphql`;
});

afterAll(() => app.close());

/** The answer text of three runs of the request over the socket. */
async function threeRuns(query: string, variables: Record<string, unknown> = {}): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < 3; i++) {
    const res = await gql(endpoint, { query, variables });
    out.push(`${res.status} ${JSON.stringify(JSON.parse(res.text))}`);
  }
  return out;
}

const all = { data: { listBooks: [{ id: '1' }, { id: '2' }] } };

describe('operation fields on every run', () => {
  it.each([
    ['a variable left out inside the input literal', 'query ($g: Genre) { listBooks(genre: $g) { id } }', {}],
    ['null for it in a variable', 'query ($g: Genre) { listBooks(genre: $g) { id } }', { g: null }],
    ['null for it in the literal', '{ listBooks(genre: null) { id } }', {}],
    ['null for it inside an input variable', 'query ($t: [ListBooksInputTags!]) { listBooks(genre: null, tags: $t) { id } }', { t: [{ name: 'a', weight: null }] }],
  ])('treats an optional field given as null as left out: %s', async (_name, query, variables) => {
    const answers = await threeRuns(query, variables);
    expect(answers).toEqual([0, 1, 2].map(() => `200 ${JSON.stringify(all)}`));
  });

  it('still refuses null for a field that must be given', async () => {
    const answers = await threeRuns('query ($t: [ListBooksInputTags!]) { listBooks(tags: $t) { id } }', { t: [{ name: null }] });
    expect(new Set(answers).size).toBe(1);
    expect(answers[0]).toContain('Expected non-nullable type \\"String!\\" not to be null.');
  });

  it('keeps @include on a fragment spread to that spread alone', async () => {
    const query = 'query ($a: Boolean!) { x: getBook(id: "1") { ...B @include(if: $a) } y: getBook(id: "2") { ...B } } fragment B on Book { title }';
    expect(await threeRuns(query, { a: false })).toEqual([0, 1, 2].map(() => `200 ${JSON.stringify({ data: { x: {}, y: { title: 'Cosmos' } } })}`));
  });

  it('orders the response by the selection set, skipped selections aside', async () => {
    const query = '{ b: getBook(id: "1") { title @skip(if: true) id title } listBooks @skip(if: true) { id } c: getBook(id: "2") { genre } }';
    const expected = { data: { b: { id: '1', title: 'Dune' }, c: { genre: 'SCIENCE' } } };
    expect(await threeRuns(query)).toEqual([0, 1, 2].map(() => `200 ${JSON.stringify(expected)}`));
  });

  it('answers plain operation documents the same on every run', async () => {
    const answers = await threeRuns('query ($id: String!) { getBook(id: $id) { id title genre } listBooks(genre: FICTION) { title } }', { id: '2' });
    expect(answers).toEqual(
      [0, 1, 2].map(() => `200 ${JSON.stringify({ data: { getBook: { id: '2', title: 'Cosmos', genre: 'SCIENCE' }, listBooks: [{ title: 'Dune' }] } })}`),
    );
  });
});
