import { OPERATION_NAME, OPERATION_TYPE } from '@fw/core';
import { gql, schema, serve, type Served } from './helpers.js';

const rootValue = {
  hello: () => 'hi',
  addTodo: ({ title }: { title: string }) => ({ id: '9', title, done: false }),
};

describe('the operation name and type on the request context', () => {
  let served: Served;
  const seen: Array<{ name: string | undefined; type: string | undefined }> = [];

  beforeAll(async () => {
    served = await serve({ schema, rootValue }, (app) => {
      // What tracing and request logs do: read the keys once the request has run.
      app.use(async (ctx, next) => {
        await next();
        seen.push({ name: ctx.get(OPERATION_NAME), type: ctx.get(OPERATION_TYPE) });
      });
    });
  });
  afterAll(() => served.close());
  beforeEach(() => {
    seen.length = 0;
  });

  it('are readable after next() for a named query', async () => {
    const res = await gql(served.endpoint, { query: 'query Greeting { hello }' });
    expect(res.body).toEqual({ data: { hello: 'hi' } });
    expect(seen).toEqual([{ name: 'Greeting', type: 'query' }]);
  });

  it('are readable after next() for a mutation', async () => {
    const res = await gql(served.endpoint, { query: 'mutation AddTodo($t: String!) { addTodo(title: $t) { id } }', variables: { t: 'x' } });
    expect(res.body).toEqual({ data: { addTodo: { id: '9' } } });
    expect(seen).toEqual([{ name: 'AddTodo', type: 'mutation' }]);
  });

  it('name the operation chosen by operationName in a document with several', async () => {
    await gql(served.endpoint, { query: 'query A { hello } mutation B { addTodo(title: "t") { id } }', operationName: 'B' });
    await gql(served.endpoint, { query: 'query A { hello } mutation B { addTodo(title: "t") { id } }', operationName: 'A' });
    expect(seen).toEqual([
      { name: 'B', type: 'mutation' },
      { name: 'A', type: 'query' },
    ]);
  });

  it('give the type and no name for an anonymous query, over GET too', async () => {
    await gql(served.endpoint, { query: '{ hello }' });
    await gql(served.endpoint, { query: '{ hello }' }, { method: 'GET' });
    expect(seen).toEqual([
      { name: undefined, type: 'query' },
      { name: undefined, type: 'query' },
    ]);
  });

  it('are set again for a document served from the cache', async () => {
    const query = 'query Cached { hello }';
    await gql(served.endpoint, { query });
    await gql(served.endpoint, { query });
    expect(seen).toEqual([
      { name: 'Cached', type: 'query' },
      { name: 'Cached', type: 'query' },
    ]);
  });

  it('stay unset when the document does not parse or names no known operation', async () => {
    const broken = await gql(served.endpoint, { query: 'query Broken { hello' });
    expect(broken.status).toBe(400);
    const unknown = await gql(served.endpoint, { query: 'query A { hello }', operationName: 'Z' });
    expect(unknown.body.errors).toHaveLength(1);
    expect(seen).toEqual([
      { name: undefined, type: undefined },
      { name: undefined, type: undefined },
    ]);
  });

  it('are set for a mutation refused over GET, so the refusal is attributed', async () => {
    const res = await gql(served.endpoint, { query: 'mutation M { addTodo(title: "t") { id } }' }, { method: 'GET' });
    expect(res.status).toBe(405);
    expect(seen).toEqual([{ name: 'M', type: 'mutation' }]);
  });
});
