import { buildSchema } from 'graphql';
import { createApp, type App } from '@fw/app';
import { prototypePolluted, send, type Reply } from './support.js';

// GraphQL abuse through createApp and a real socket: every abusive document is refused by the
// limits with a 400 that names the limit, quickly, and the server answers the next query.

const schema = buildSchema(`
  type Query { hello: String!, node: Node, echo(text: String): String }
  type Node { name: String, child: Node }
`);
const node = (): Record<string, unknown> => ({ name: 'n', child: node });

describe('GraphQL abuse on a real socket', () => {
  let app: App;
  let url: string;
  let logged: unknown[];

  beforeAll(async () => {
    logged = [];
    app = createApp({
      onLog: (message, error) => logged.push({ message, error }),
      protocols: { graphql: { schema, rootValue: { hello: () => 'world', node, echo: ({ text }: { text?: string }) => text ?? null } } },
    });
    ({ url } = await app.listen(0, '127.0.0.1'));
  });

  afterAll(async () => {
    await app.close();
  });

  afterEach(async () => {
    expect(prototypePolluted()).toBe(false);
    const next = await post({ query: '{ hello }' });
    expect(next.status).toBe(200);
    expect(JSON.parse(next.text)).toEqual({ data: { hello: 'world' } });
  });

  const post = (body: unknown, headers: Record<string, string> = {}): Promise<Reply> =>
    send(url, {
      method: 'POST',
      path: '/graphql',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  /** How long a trivial query takes now (the best of three): the same machine at the same moment. */
  async function baseline(): Promise<number> {
    let best = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      expect((await post({ query: '{ hello }' })).status).toBe(200);
      best = Math.min(best, performance.now() - started);
    }
    return best;
  }

  /** Within `ms`, or twenty trivial queries of just before on a machine slower than that. */
  const soon = async (ms: number): Promise<number> => Math.max(ms, 20 * (await baseline()));

  /** Sends `query`; expects a 400 naming `limit`, answered soon (refused before the work it asks for, not after). */
  async function expectLimit(query: string, limit: string, ms = 1000): Promise<string> {
    const bound = await soon(ms);
    const started = performance.now();
    const res = await post({ query });
    expect(performance.now() - started).toBeLessThan(bound);
    expect(res.status).toBe(400);
    const body = JSON.parse(res.text) as { errors: Array<{ message: string; extensions: { limit?: string; status: number } }> };
    expect(body.errors[0]!.extensions).toMatchObject({ limit, status: 400 });
    return body.errors[0]!.message;
  }

  const nested = (depth: number): string => `{ node ${'{ child '.repeat(depth - 1)}{ name }${' }'.repeat(depth - 1)} }`;

  it('serves a query at the depth limit (15) and refuses one level more with 400 maxDepth', async () => {
    expect((await post({ query: nested(14) })).status).toBe(200);
    expect(await expectLimit(nested(15), 'maxDepth')).toBe('The operation is too deep: depth 16 exceeds the maximum depth of 15.');
  });

  it('refuses nesting thousands of levels deep (deeper than the parser can recurse) with 400', async () => {
    const query = `{${' node {'.repeat(4000)} name ${'}'.repeat(4000)} }`;
    await expectLimit(query, 'maxDepth');
  });

  it('refuses an alias flood with 400 maxAliases, and one past the selection budget with 400 maxSelections', async () => {
    const flood = (n: number): string => `{ node { ${Array.from({ length: n }, (_, i) => `a${i}: name`).join(' ')} } }`;
    expect((await post({ query: flood(30) })).status).toBe(200);
    await expectLimit(flood(31), 'maxAliases');
    // 3000 selections exceed maxSelections (2000), which is checked first, before the walk for aliases.
    await expectLimit(flood(3000), 'maxSelections');
  });

  it('refuses an exponential fragment fan-out (a "billion laughs" document) with 400 before executing it', async () => {
    const fragments = [`fragment F0 on Query { a: hello b: hello }`];
    for (let i = 1; i <= 40; i++) fragments.push(`fragment F${i} on Query { ...F${i - 1} x${i}: node { name } ...F${i - 1} }`);
    // Counted through every spread, the fan-out passes maxSelections long before it is executed.
    await expectLimit(`{ ...F40 } ${fragments.join(' ')}`, 'maxSelections');
  });

  it('refuses fragments that spread each other in a cycle, without looping', async () => {
    const bound = await soon(1000);
    const started = performance.now();
    const res = await post({ query: '{ ...A } fragment A on Query { hello ...B } fragment B on Query { hello ...A }' });
    expect(performance.now() - started).toBeLessThan(bound);
    expect(res.status).toBe(400);
  });

  it('refuses too many root fields with 400 maxRootFields', async () => {
    await expectLimit(`{ ${Array.from({ length: 21 }, (_, i) => `f${i}: __typename`).join(' ')} }`, 'maxRootFields');
  });

  it('refuses a document over 64 KiB with 400 maxDocumentSize, before parsing it', async () => {
    await expectLimit(`{ hello } # ${'x'.repeat(70 * 1024)}`, 'maxDocumentSize');
  });

  it('refuses a document of too many tokens with 400 maxTokens', async () => {
    // Two characters a token, so the document stays under the size limit.
    await expectLimit(`{ echo(text: [${'1 '.repeat(16_000)}]) }`, 'maxTokens');
  });

  it('answers 413 to a body over the app body limit (1 MiB), without reading it all', async () => {
    const res = await post({ query: `{ hello } # ${'x'.repeat(1024 * 1024)}` });
    expect(res.status).toBe(413);
  });

  it('refuses a batched array of operations with 400', async () => {
    const res = await post([{ query: '{ hello }' }, { query: '{ hello }' }]);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text).errors[0].message).toMatch(/Batched requests are not supported/);
  });

  it.each([
    ['malformed JSON', '{"query": "{ hello }"'],
    ['a query that is not a string', { query: 42 }],
    ['no query at all', { variables: {} }],
    ['a JSON string instead of an object', '"{ hello }"'],
    ['variables with a __proto__ key', '{"query":"query ($t: String) { echo(text: $t) }","variables":{"__proto__":{"polluted":true},"t":"x"}}'],
  ])('refuses %s with 400', async (_name, body) => {
    const res = await post(body);
    expect(res.status).toBe(400);
  });

  it('applies the same limits to queries sent with GET', async () => {
    const res = await send(url, { path: `/graphql?query=${encodeURIComponent(nested(20))}`, headers: { accept: 'application/json' } });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text).errors[0].extensions.limit).toBe('maxDepth');
  });

  it('keeps answering ordinary queries while a hundred abusive ones arrive at once', async () => {
    const abusive = Array.from({ length: 100 }, (_, i) => post({ query: i % 2 === 0 ? nested(40 + i) : `{ ${Array.from({ length: 100 + i }, (_, j) => `a${j}: hello`).join(' ')} }` }));
    const ordinary = Array.from({ length: 20 }, () => post({ query: '{ hello }' }));
    const [bad, good] = await Promise.all([Promise.all(abusive), Promise.all(ordinary)]);
    expect(bad.every((r) => r.status === 400)).toBe(true);
    expect(good.every((r) => r.status === 200 && r.text === '{"data":{"hello":"world"}}')).toBe(true);
    // Refused documents are the client's fault: nothing was logged as a server error.
    expect(logged).toEqual([]);
  });
});
