import { HTTPError, type Application } from '@fw/core';
import { createClient, type Client } from 'graphql-sse';
import { serve, type Served } from './helpers.js';
import { collect, createProbe, subscriptionSchema, type Probe } from './subscription-helpers.js';

// GraphQL subscriptions over server-sent events, with graphql-sse's own client in both of its
// modes, against a real server on 127.0.0.1.

interface ErrorsBody {
  errors: Array<{ message: string; extensions?: Record<string, unknown> }>;
}

let served: Served;
let probe: Probe;
const clients: Client[] = [];

function client(singleConnection: boolean, headers: Record<string, string> = {}): Client {
  const made = createClient({ url: served.endpoint, singleConnection, retryAttempts: 0, headers }) as Client;
  clients.push(made);
  return made;
}

const requireToken = (app: Application): void => {
  app.use(async (ctx, next) => {
    const auth = ctx.headers.authorization;
    if (auth === 'Bearer nope') throw new HTTPError(403, 'Forbidden');
    if (auth !== undefined && auth !== 'Bearer good') throw new HTTPError(401, 'Unauthorized');
    ctx.user = auth === undefined ? undefined : 'alice';
    await next();
  });
};

beforeAll(async () => {
  probe = createProbe();
  served = await serve({ schema: subscriptionSchema(probe), limits: { maxDocumentSize: 300 } }, requireToken);
});

afterAll(async () => {
  for (const made of clients) made.dispose();
  await served.close();
});

describe.each([
  ['distinct connections', false],
  ['a single connection', true],
])('GraphQL over SSE with %s', (_mode, single) => {
  it('delivers every event of a subscription, then completes', async () => {
    const results = await collect(client(single).iterate({ query: 'subscription { count(to: 3) }' }));
    expect(results).toEqual([{ data: { count: 1 } }, { data: { count: 2 } }, { data: { count: 3 } }]);
  });

  it('ends a stream whose resolver throws with a next carrying the masked error, then complete', async () => {
    const results = await collect(client(single).iterate({ query: 'subscription { boom(after: 2) }' }));
    expect(results).toEqual([
      { data: { boom: 1 } },
      { data: { boom: 2 } },
      { errors: [{ message: 'Internal server error', path: ['boom'], extensions: { code: 'INTERNAL_SERVER_ERROR', status: 500 } }] },
    ]);
  });

  it('keeps the message and code of an HTTPError thrown mid-stream', async () => {
    const results = await collect(client(single).iterate({ query: 'subscription { boom(after: 1, status: 409) }' }));
    expect(results[1]).toEqual({ errors: [{ message: 'refused with 409', path: ['boom'], extensions: { code: 'CONFLICT', status: 409 } }] });
  });

  it("runs the resolver generator's finally when the client leaves", async () => {
    const ran = probe.nextFinally();
    const iterator = client(single).iterate({ query: 'subscription { ticks }' });
    const first = await iterator.next();
    expect(first.value).toEqual({ data: { ticks: 1 } });
    await iterator.return?.(undefined);
    await ran;
  });

  it('gives resolvers the context queries get: the fw context, with the user set by middleware', async () => {
    const results = await collect(client(single, { authorization: 'Bearer good' }).iterate({ query: 'subscription { whoami }' }));
    expect(results).toEqual([{ data: { whoami: 'alice' } }]);
  });
});

describe('GraphQL over SSE refusals', () => {
  const stream = (query: string, headers: Record<string, string> = {}): Promise<Response> =>
    fetch(served.endpoint, { method: 'POST', headers: { accept: 'text/event-stream', 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query }) });

  it('answers a refusal by middleware with its real status before any resolver runs', async () => {
    const before = probe.contexts.length;
    const unauthorized = await stream('subscription { ticks }', { authorization: 'Bearer bad' });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get('content-type')).toContain('json');
    const forbidden = await stream('subscription { ticks }', { authorization: 'Bearer nope' });
    expect(forbidden.status).toBe(403);
    expect(probe.contexts.length).toBe(before);
  });

  it('answers 400 for a document that does not validate, and for one over the limits queries have', async () => {
    const invalid = await stream('subscription { nope }');
    expect(invalid.status).toBe(400);
    expect(((await invalid.json()) as ErrorsBody).errors[0]!.message).toContain('Cannot query field "nope" on type "Subscription"');
    const large = await stream(`subscription { count(to: 1) } # ${'x'.repeat(300)}`);
    expect(large.status).toBe(400);
    expect(((await large.json()) as ErrorsBody).errors[0]!.extensions).toEqual({ code: 'BAD_REQUEST', status: 400, limit: 'maxDocumentSize' });
  });

  it('refuses a subscription sent as a plain request, naming the transports that serve it', async () => {
    const res = await fetch(served.endpoint, { method: 'POST', headers: { accept: 'application/json', 'content-type': 'application/json' }, body: JSON.stringify({ query: 'subscription { ticks }' }) });
    const body = (await res.json()) as { errors: Array<{ message: string }> };
    expect(body.errors[0]!.message).toMatch(/server-sent events .* WebSocket/);
  });

  it('still answers a PUT with a JSON body and a DELETE without a token 405, as GraphQL over HTTP', async () => {
    const put = await fetch(served.endpoint, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(put.status).toBe(405);
    const del = await fetch(served.endpoint, { method: 'DELETE' });
    expect(del.status).toBe(405);
  });
});
