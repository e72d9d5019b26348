import type { Context } from '@fw/core';
import { getIntrospectionQuery } from 'graphql';
import { gql, schema, serve, type Served } from './helpers.js';

/** The body of a GraphQL error response. */
interface ErrorsBody {
  errors: Array<{ message: string; extensions?: Record<string, unknown> }>;
}

interface Todo {
  id: string;
  title: string;
  done: boolean;
}

const users = new Map([
  ['1', { id: '1', name: 'Ada', friendIds: ['2'] }],
  ['2', { id: '2', name: 'Grace', friendIds: ['1'] }],
]);

function userResolver(id: string): unknown {
  const user = users.get(id);
  if (user === undefined) return null;
  return { id: user.id, name: user.name, friends: () => user.friendIds.map((f) => userResolver(f)) };
}

function rootValue(todos: Todo[]): Record<string, unknown> {
  return {
    hello: ({ name }: { name?: string }) => `Hello ${name ?? 'world'}`,
    whoami: (_args: unknown, context: Context) => (context.user as { id: string } | undefined)?.id ?? null,
    protocol: (_args: unknown, context: Context) => context.protocol,
    user: ({ id }: { id: string }) => userResolver(id),
    addTodo: ({ title, done }: { title: string; done?: boolean }) => {
      const todo = { id: String(todos.length + 1), title, done: done ?? false };
      todos.push(todo);
      return todo;
    },
  };
}

describe('the endpoint with the default configuration', () => {
  let served: Served;
  const todos: Todo[] = [];

  beforeAll(async () => {
    served = await serve({ schema, rootValue: rootValue(todos) }, (app) => {
      app.use(async (ctx, next) => {
        if (ctx.headers['x-user'] !== undefined) ctx.user = { id: ctx.headers['x-user'] };
        await next();
      });
      app.get('/health', (ctx) => ctx.json({ ok: true }));
    });
  });
  afterAll(() => served.close());

  it('answers POST /graphql by default', async () => {
    const res = await gql(`${served.url}/graphql`, { query: '{ hello }' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/graphql-response+json; charset=utf-8');
    expect(res.body).toEqual({ data: { hello: 'Hello world' } });
  });

  it('leaves every other path to the REST routes', async () => {
    const health = await fetch(`${served.url}/health`);
    expect(await health.json()).toEqual({ ok: true });
    const other = await fetch(`${served.url}/graphql/extra`, { method: 'POST' });
    expect(other.status).toBe(404);
  });

  it('runs queries with variables, an operation name and a nested selection', async () => {
    const res = await gql(served.endpoint, {
      query: 'query Other { hello } query Friends($id: ID!) { user(id: $id) { name friends { name friends { id } } } }',
      variables: { id: '1' },
      operationName: 'Friends',
    });
    expect(res.body).toEqual({ data: { user: { name: 'Ada', friends: [{ name: 'Grace', friends: [{ id: '1' }] }] } } });
  });

  it('calls rootValue resolvers with (args, context)', async () => {
    const res = await gql(served.endpoint, { query: '{ hello(name: "fw") whoami protocol }' }, { headers: { 'x-user': 'u-7' } });
    // Without a context factory the resolvers get the framework context: ctx.user and ctx.protocol.
    expect(res.body).toEqual({ data: { hello: 'Hello fw', whoami: 'u-7', protocol: 'graphql' } });
  });

  it('runs mutations with variables', async () => {
    const res = await gql(served.endpoint, {
      query: 'mutation Add($title: String!, $done: Boolean) { addTodo(title: $title, done: $done) { id title done } }',
      variables: { title: 'write tests', done: true },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { addTodo: { id: '1', title: 'write tests', done: true } } });
    expect(todos).toEqual([{ id: '1', title: 'write tests', done: true }]);
  });

  it('runs queries over GET with URL-encoded variables', async () => {
    const res = await gql(served.endpoint, { query: 'query($n: String) { hello(name: $n) }', variables: { n: 'get' } }, { method: 'GET' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { hello: 'Hello get' } });
  });

  it('refuses a mutation over GET with 405 and Allow: POST, without running it', async () => {
    const before = todos.length;
    const res = await gql(served.endpoint, { query: 'mutation { addTodo(title: "no") { id } }' }, { method: 'GET' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(todos.length).toBe(before);
  });

  it('answers with application/json when the client accepts only that', async () => {
    const res = await gql(served.endpoint, { query: '{ hello }' }, { accept: 'application/json' });
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.body).toEqual({ data: { hello: 'Hello world' } });
  });

  it('answers 400 for a document that does not parse, with the syntax error', async () => {
    const res = await gql(served.endpoint, { query: '{ hello ' });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toMatch(/^Syntax Error/);
    expect(res.body.data).toBeUndefined();
  });

  it('answers 400 for a document that does not validate', async () => {
    const res = await gql(served.endpoint, { query: '{ nope }' });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toMatch(/^Cannot query field "nope" on type "Query"\./);
  });

  it('answers 400 for malformed JSON and for a batched array', async () => {
    const malformed = await fetch(served.endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":' });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as ErrorsBody).errors[0]?.message).toBe('Malformed JSON in request body');
    const batch = await fetch(served.endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify([{ query: '{ hello }' }, { query: '{ hello }' }]) });
    expect(batch.status).toBe(400);
    expect(((await batch.json()) as ErrorsBody).errors[0]).toEqual({
      message: 'Batched requests are not supported: send one operation per request, as a JSON object.',
      extensions: { code: 'BAD_REQUEST', status: 400 },
    });
  });

  it('answers 415 for a body that is not JSON and 405 for other methods', async () => {
    const text = await fetch(served.endpoint, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{ hello }' });
    expect(text.status).toBe(415);
    const put = await fetch(served.endpoint, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, HEAD, POST');
  });

  it('answers 406 when the client accepts no JSON type', async () => {
    const res = await gql(served.endpoint, { query: '{ hello }' }, { accept: 'text/xml' });
    expect(res.status).toBe(406);
  });

  it('allows introspection by default, the GraphiQL introspection query included', async () => {
    const res = await gql(served.endpoint, { query: getIntrospectionQuery({ inputValueDeprecation: true, descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true }) });
    expect(res.status).toBe(200);
    expect(res.body.data.__schema.queryType).toMatchObject({ name: 'Query' });
  });

  it('serves the playground by default to a browser', async () => {
    const res = await fetch(served.endpoint, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await res.text()).toContain('<div id="graphiql">');
  });
});

describe('the endpoint with a custom path and limits on the body', () => {
  let served: Served;

  beforeAll(async () => {
    served = await serve({ schema, path: '/api/v1/gql', rootValue: rootValue([]) }, undefined, { bodyLimit: 256 });
  });
  afterAll(() => served.close());

  it('answers on the configured path only', async () => {
    expect((await gql(`${served.url}/api/v1/gql`, { query: '{ hello }' })).body).toEqual({ data: { hello: 'Hello world' } });
    expect((await gql(`${served.url}/graphql`, { query: '{ hello }' })).status).toBe(404);
  });

  it("answers 413 when the body exceeds the app's body limit", async () => {
    const res = await gql(served.endpoint, { query: `{ hello(name: "${'x'.repeat(400)}") }` });
    expect(res.status).toBe(413);
    expect(res.body.errors[0].message).toMatch(/larger than 256 bytes|256/);
    expect(res.body.errors[0].extensions.status).toBe(413);
  });
});
