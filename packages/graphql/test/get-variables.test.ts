import { gql, schema, serve, type Served } from './helpers.js';

const rootValue = { hello: ({ name }: { name?: string }) => `hi ${name ?? 'you'}` };

/** A GET with raw `variables` / `extensions` parameters. */
async function rawGet(endpoint: string, params: Record<string, string>): Promise<{ status: number; contentType: string | null; body: { errors?: Array<{ message: string; extensions?: Record<string, unknown> }>; data?: unknown } }> {
  const url = new URL(endpoint);
  url.searchParams.set('query', 'query ($name: String) { hello(name: $name) }');
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  const res = await fetch(url, { headers: { accept: 'application/graphql-response+json' } });
  return { status: res.status, contentType: res.headers.get('content-type'), body: (await res.json()) as { errors?: Array<{ message: string; extensions?: Record<string, unknown> }>; data?: unknown } };
}

describe('variables and extensions sent by GET', () => {
  let served: Served;

  beforeAll(async () => {
    served = await serve({ schema, rootValue });
  });
  afterAll(() => served.close());

  it('refuse a __proto__ key with 400, as the same POST is refused', async () => {
    const post = await fetch(served.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
      body: '{"query":"{ hello }","variables":{"__proto__":{"x":1}}}',
    });
    expect(post.status).toBe(400);
    const res = await rawGet(served.endpoint, { variables: '{"__proto__":{"x":1}}' });
    expect(res.status).toBe(400);
    expect(res.contentType).toBe('application/graphql-response+json; charset=utf-8');
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors![0]!.message).toMatch(/^The "variables" parameter is not valid: .*forbidden key/);
    expect(res.body.errors![0]!.extensions).toEqual({ code: 'BAD_REQUEST', status: 400 });
  });

  it('refuse constructor.prototype, also \\u-escaped, and in extensions', async () => {
    expect((await rawGet(served.endpoint, { variables: '{"name":"x","a":{"constructor":{"prototype":{"y":1}}}}' })).status).toBe(400);
    expect((await rawGet(served.endpoint, { variables: '{"\\u005f_proto__":{"x":1}}' })).status).toBe(400);
    const ext = await rawGet(served.endpoint, { extensions: '{"__proto__":{"x":1}}' });
    expect(ext.status).toBe(400);
    expect(ext.body.errors![0]!.message).toMatch(/^The "extensions" parameter is not valid/);
  });

  it('refuse malformed and too deeply nested JSON with 400 GraphQL errors', async () => {
    const malformed = await rawGet(served.endpoint, { variables: '{"name":' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors![0]!.message).toMatch(/^The "variables" parameter is not valid/);
    const deep = await rawGet(served.endpoint, { variables: `{"name":"x","d":${'['.repeat(100)}${']'.repeat(100)}}` });
    expect(deep.status).toBe(400);
    expect(deep.body.errors![0]!.message).toMatch(/nested deeper than 64/);
  });

  it("follow the app's maxJsonDepth", async () => {
    const shallow = await serve({ schema, rootValue }, undefined, { maxJsonDepth: 3 });
    try {
      const res = await rawGet(shallow.endpoint, { variables: '{"name":"x","d":[[[1]]]}' });
      expect(res.status).toBe(400);
      expect(res.body.errors![0]!.message).toMatch(/nested deeper than 3/);
      expect((await rawGet(shallow.endpoint, { variables: '{"name":"x","d":[[1]]}' })).status).toBe(200);
    } finally {
      await shallow.close();
    }
  });

  it('still pass ordinary variables through', async () => {
    const res = await rawGet(served.endpoint, { variables: '{"name":"Ada"}' });
    expect(res).toMatchObject({ status: 200, body: { data: { hello: 'hi Ada' } } });
    expect((await gql(served.endpoint, { query: 'query ($name: String) { hello(name: $name) }', variables: { name: 'Bo' } }, { method: 'GET' })).body).toEqual({ data: { hello: 'hi Bo' } });
  });
});
