import { Application } from '@fw/core';
import { graphqlPlugin } from '../src/index.js';
import { defineTestOperation, t } from './fixtures/operation.js';
import { gql } from './helpers.js';

// How a root field's arguments become the operation's input: flat arguments (a query's) are the
// input's fields, one `input` argument (a mutation's) is the input itself; either way the handler
// gets the same object, with GraphQL's defaults filled in and an explicit null for a field that
// may be left out taken as left out.

/** What each handler was given, by operation name. */
const received = new Map<string, unknown>();
const echo = (name: string) => (input: Record<string, unknown>): string => {
  received.set(name, input);
  return name;
};

const Filter = t.object({ genre: t.optional(t.enum(['FICTION', 'SCIENCE'], { name: 'Genre' })), minPages: t.optional(t.int32()) }, { name: 'Filter' });
const search = defineTestOperation({
  name: 'search',
  input: t.object({
    q: t.string(),
    id: t.optional(t.id()),
    limit: { type: t.int32(), optional: true, default: { value: 20 } },
    filter: t.optional(Filter),
  }),
  output: t.string(),
  graphql: { type: 'query' },
  check: (input) => ((input.q as string).trim() === '' ? [{ field: 'q', message: 'Must not be blank' }] : []),
  handler: echo('search'),
});
const addNote = defineTestOperation({
  name: 'addNote',
  input: t.object({ text: t.string(), pinned: { type: t.boolean(), optional: true, default: { value: false } } }),
  output: t.string(),
  graphql: { type: 'mutation' },
  check: (input) => ((input.text as string).trim() === '' ? [{ field: 'text', message: 'Must not be blank' }] : []),
  handler: echo('addNote'),
});
const findByInput = defineTestOperation({ name: 'findByInput', input: t.object({ q: t.string() }), output: t.string(), graphql: { type: 'query', args: 'input' }, handler: echo('findByInput') });
const touch = defineTestOperation({ name: 'touch', input: t.object({ id: t.id(), at: t.optional(t.string()) }), output: t.string(), graphql: { type: 'mutation', args: 'flat' }, handler: echo('touch') });

function makeApp(): Application {
  const app = new Application({ onLog: () => undefined });
  app.register(graphqlPlugin({}));
  for (const op of [search, addNote, findByInput, touch]) app.operation(op);
  return app;
}

describe('root field arguments, through app.inject', () => {
  const app = makeApp();
  afterAll(() => app.close());

  async function post(query: string, variables?: Record<string, unknown>): Promise<{ status: number; body: { data?: Record<string, unknown>; errors?: Array<{ message: string; extensions?: Record<string, unknown> }> } }> {
    const res = await app.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
    return { status: res.statusCode, body: JSON.parse(res.body) as never };
  }

  beforeEach(() => received.clear());

  it("gives a query's flat arguments to the operation as its input, with the defaults GraphQL fills in", async () => {
    const res = await post('{ search(q: "dune", id: 7, filter: { genre: FICTION }) }');
    expect(res.body).toEqual({ data: { search: 'search' } });
    expect(received.get('search')).toEqual({ q: 'dune', id: '7', limit: 20, filter: { genre: 'FICTION' } });
  });

  it('takes an explicit null for an argument or input field that may be left out as left out, at any depth', async () => {
    await post('query ($f: Filter) { search(q: "x", limit: null, filter: $f) }', { f: { genre: null, minPages: 3 } });
    expect(received.get('search')).toEqual({ q: 'x', filter: { minPages: 3 } });
  });

  it('takes flat arguments from variables', async () => {
    await post('query ($q: String!, $limit: Int) { search(q: $q, limit: $limit) }', { q: 'v', limit: 5 });
    expect(received.get('search')).toEqual({ q: 'v', limit: 5 });
  });

  it('names a field error of flat arguments by the argument, and one of an input argument by input.<field>', async () => {
    const flat = await post('{ search(q: " ") }');
    expect(flat.body.errors?.[0]?.extensions).toEqual({ code: 'BAD_USER_INPUT', status: 400, details: { errors: [{ field: 'q', message: 'Must not be blank' }] } });
    const input = await post('mutation { addNote(input: { text: " " }) }');
    expect(input.body.errors?.[0]?.extensions).toEqual({ code: 'BAD_USER_INPUT', status: 400, details: { errors: [{ field: 'input.text', message: 'Must not be blank' }] } });
  });

  it("gives a mutation's input argument to the operation as its input, with the defaults of its fields", async () => {
    const res = await post('mutation ($input: AddNoteInput!) { addNote(input: $input) }', { input: { text: 'hi' } });
    expect(res.body).toEqual({ data: { addNote: 'addNote' } });
    expect(received.get('addNote')).toEqual({ text: 'hi', pinned: false });
  });

  it('follows graphql.args: a query taking one input argument, a mutation taking flat arguments', async () => {
    await post('{ findByInput(input: { q: "a" }) }');
    expect(received.get('findByInput')).toEqual({ q: 'a' });
    await post('mutation { touch(id: "n1") }');
    expect(received.get('touch')).toEqual({ id: 'n1' });
  });

  it('refuses a missing required argument before the operation runs', async () => {
    const res = await post('{ search }');
    expect(res.body.errors?.[0]?.message).toBe('Field "search" argument "q" of type "String!" is required, but it was not provided.');
    expect(received.size).toBe(0);
  });
});

describe('root field arguments, over a real socket', () => {
  const app = makeApp();
  let endpoint: string;
  beforeAll(async () => {
    const info = await app.listen(0, '127.0.0.1');
    endpoint = `http://127.0.0.1:${info.port}/graphql`;
  });
  afterAll(() => app.close());

  it('runs a query with flat arguments and a mutation with an input argument in one request each', async () => {
    received.clear();
    const query = await gql(endpoint, { query: '{ search(q: "dune", filter: { minPages: 100 }) }' });
    expect(query.body).toEqual({ data: { search: 'search' } });
    expect(received.get('search')).toEqual({ q: 'dune', limit: 20, filter: { minPages: 100 } });
    const mutation = await gql(endpoint, { query: 'mutation { addNote(input: { text: "hi", pinned: true }) }' });
    expect(mutation.body).toEqual({ data: { addNote: 'addNote' } });
    expect(received.get('addNote')).toEqual({ text: 'hi', pinned: true });
  });
});
