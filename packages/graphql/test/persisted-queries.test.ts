import { createHash } from 'node:crypto';
import { schema, serve, type Served } from './helpers.js';

const rootValue = { hello: ({ name }: { name?: string }) => `hi ${name ?? 'you'}` };
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

// What @apollo/client's persisted-query link sends: it accepts both GraphQL media types.
const APOLLO_ACCEPT = 'application/graphql-response+json,application/json;q=0.9';
const NOT_FOUND = { errors: [{ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }] };
const NOT_SUPPORTED = { errors: [{ message: 'PersistedQueryNotSupported', extensions: { code: 'PERSISTED_QUERY_NOT_SUPPORTED' } }] };

interface Operation {
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
}

/** The hash-only GET the link sends first (useGETForHashedQueries). */
async function hashedGet(endpoint: string, op: Operation, hash = sha256(op.query)): Promise<{ status: number; body: unknown }> {
  const url = new URL(endpoint);
  if (op.operationName !== undefined) url.searchParams.set('operationName', op.operationName);
  if (op.variables !== undefined) url.searchParams.set('variables', JSON.stringify(op.variables));
  url.searchParams.set('extensions', JSON.stringify({ persistedQuery: { version: 1, sha256Hash: hash } }));
  const res = await fetch(url, { headers: { accept: APOLLO_ACCEPT } });
  return { status: res.status, body: await res.json() };
}

/** The POST the link sends after PersistedQueryNotFound: the query with its hash. */
async function post(endpoint: string, op: Partial<Operation>, hash: string | undefined, version = 1): Promise<{ status: number; body: unknown }> {
  const body: Record<string, unknown> = { ...op };
  if (hash !== undefined) body.extensions = { persistedQuery: { version, sha256Hash: hash } };
  const res = await fetch(endpoint, { method: 'POST', headers: { accept: APOLLO_ACCEPT, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

describe('automatic persisted queries (the default)', () => {
  let served: Served;

  beforeAll(async () => {
    served = await serve({ schema, rootValue });
  });
  afterAll(() => served.close());

  it('speaks the APQ protocol: not found, then the query with its hash, then the hash alone', async () => {
    const op = { query: 'query Greet($name: String) { hello(name: $name) }', variables: { name: 'Ada' }, operationName: 'Greet' };
    const first = await hashedGet(served.endpoint, op);
    expect(first).toEqual({ status: 200, body: NOT_FOUND });
    const second = await post(served.endpoint, op, sha256(op.query));
    expect(second).toEqual({ status: 200, body: { data: { hello: 'hi Ada' } } });
    const third = await hashedGet(served.endpoint, { ...op, variables: { name: 'Grace' } });
    expect(third).toEqual({ status: 200, body: { data: { hello: 'hi Grace' } } });
    // A hash-only POST works too.
    expect(await post(served.endpoint, { variables: { name: 'Alan' } }, sha256(op.query))).toEqual({ status: 200, body: { data: { hello: 'hi Alan' } } });
  });

  it('refuses a query whose hash does not match with 400', async () => {
    const res = await post(served.endpoint, { query: '{ hello }' }, sha256('{ other }'));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errors: [{ message: 'provided sha does not match query', extensions: { code: 'BAD_REQUEST', status: 400 } }] });
    expect(await hashedGet(served.endpoint, { query: '{ other }' })).toEqual({ status: 200, body: NOT_FOUND });
  });

  it('refuses an unknown protocol version with 400', async () => {
    const res = await post(served.endpoint, { query: '{ hello }' }, sha256('{ hello }'), 2);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ errors: [{ message: 'Unsupported persisted query version', extensions: { code: 'BAD_REQUEST' } }] });
  });

  it('applies the limits to persisted documents, and does not store one that fails them', async () => {
    const huge = `{ ${'hello '.repeat(25)}}`;
    const res = await post(served.endpoint, { query: huge }, sha256(huge));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ errors: [{ extensions: { limit: 'maxRootFields' } }] });
    expect(await hashedGet(served.endpoint, { query: huge })).toEqual({ status: 200, body: NOT_FOUND });
  });

  it('does not store a document that fails validation', async () => {
    const bad = '{ nope }';
    expect((await post(served.endpoint, { query: bad }, sha256(bad))).status).toBe(400);
    expect(await hashedGet(served.endpoint, { query: bad })).toEqual({ status: 200, body: NOT_FOUND });
  });
});

describe('the persisted query store', () => {
  it('is bounded by the document cache: the least recently used hash is forgotten', async () => {
    const served = await serve({ schema, rootValue, documentCache: { maxEntries: 2 } });
    try {
      const ops = ['{ a: hello }', '{ b: hello }', '{ c: hello }'].map((query) => ({ query }));
      for (const op of ops) expect((await post(served.endpoint, op, sha256(op.query))).status).toBe(200);
      expect(await hashedGet(served.endpoint, ops[0]!)).toEqual({ status: 200, body: NOT_FOUND });
      expect(await hashedGet(served.endpoint, ops[2]!)).toEqual({ status: 200, body: { data: { c: 'hi you' } } });
    } finally {
      await served.close();
    }
  });
});

describe('persistedQueries: false', () => {
  let served: Served;

  beforeAll(async () => {
    served = await serve({ schema, rootValue, persistedQueries: false });
  });
  afterAll(() => served.close());

  it('answers PERSISTED_QUERY_NOT_SUPPORTED so that the client sends plain queries', async () => {
    expect(await hashedGet(served.endpoint, { query: '{ hello }' })).toEqual({ status: 200, body: NOT_SUPPORTED });
    expect(await post(served.endpoint, { query: '{ hello }' }, sha256('{ hello }'))).toEqual({ status: 200, body: NOT_SUPPORTED });
    expect(await post(served.endpoint, { query: '{ hello }' }, undefined)).toEqual({ status: 200, body: { data: { hello: 'hi you' } } });
  });
});
