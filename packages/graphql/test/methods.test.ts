import { gql, schema, serve, type Served } from './helpers.js';

const todos: unknown[] = [];
const rootValue = {
  hello: () => 'hi',
  addTodo: ({ title }: { title: string }) => {
    const todo = { id: String(todos.length + 1), title, done: false };
    todos.push(todo);
    return todo;
  },
};

/** The response headers that must match between GET and HEAD (Date and connection details aside). */
function comparable(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, key) => {
    if (key !== 'date' && key !== 'connection' && key !== 'keep-alive') out[key] = value;
  });
  return out;
}

describe('HEAD on the endpoint', () => {
  let served: Served;

  beforeAll(async () => {
    served = await serve({ schema, rootValue });
  });
  afterAll(() => served.close());

  it('answers like GET for the GraphiQL page, without a body', async () => {
    const headers = { accept: 'text/html' };
    const get = await fetch(served.endpoint, { headers });
    await get.text();
    const head = await fetch(served.endpoint, { method: 'HEAD', headers });
    expect(head.status).toBe(200);
    expect(comparable(head.headers)).toEqual(comparable(get.headers));
    expect(await head.text()).toBe('');
  });

  it('answers like GET for a query, without a body', async () => {
    const url = `${served.endpoint}?query=${encodeURIComponent('{ hello }')}`;
    const headers = { accept: 'application/graphql-response+json' };
    const get = await fetch(url, { headers });
    expect(await get.json()).toEqual({ data: { hello: 'hi' } });
    const head = await fetch(url, { method: 'HEAD', headers });
    expect(head.status).toBe(200);
    expect(comparable(head.headers)).toEqual(comparable(get.headers));
    expect(head.headers.get('content-length')).toBe(String(JSON.stringify({ data: { hello: 'hi' } }).length));
    expect(await head.text()).toBe('');
  });

  it('refuses a mutation as GET does, without running it', async () => {
    const url = `${served.endpoint}?query=${encodeURIComponent('mutation { addTodo(title: "x") { id } }')}`;
    const before = todos.length;
    const get = await fetch(url);
    await get.text();
    const head = await fetch(url, { method: 'HEAD' });
    expect(head.status).toBe(405);
    expect(comparable(head.headers)).toEqual(comparable(get.headers));
    expect(todos.length).toBe(before);
  });
});

describe('the 405 for a mutation over GET', () => {
  let served: Served;

  beforeAll(async () => {
    served = await serve({ schema, rootValue });
  });
  afterAll(() => served.close());

  it.each([
    ['application/graphql-response+json', 'application/graphql-response+json; charset=utf-8'],
    ['application/json', 'application/json; charset=utf-8'],
    ['application/graphql-response+json, application/json;q=0.9', 'application/graphql-response+json; charset=utf-8'],
  ])('has the content type of a GraphQL response (Accept: %s) and Allow: POST', async (accept, contentType) => {
    const res = await gql(served.endpoint, { query: 'mutation { addTodo(title: "x") { id } }' }, { method: 'GET', accept });
    expect(res.status).toBe(405);
    expect(res.headers.get('content-type')).toBe(contentType);
    expect(res.headers.get('allow')).toBe('POST');
    expect(res.body).toEqual({ errors: [{ message: 'Cannot perform mutations over GET', extensions: { code: 'METHOD_NOT_ALLOWED', status: 405 } }] });
  });

  it('lists HEAD among the allowed methods of another method', async () => {
    const res = await fetch(served.endpoint, { method: 'DELETE' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD, POST');
  });
});
