import { HTTPError, type Application } from '@fw/core';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { serve, type Served } from './helpers.js';
import { collect, createProbe, subscriptionSchema, type Probe } from './subscription-helpers.js';

// GraphQL subscriptions over WebSocket (graphql-ws's graphql-transport-ws), with graphql-ws's own
// client over `ws`, on the app's HTTP port.

let served: Served;
let probe: Probe;
let wsUrl: string;
const clients: Client[] = [];

function client(connectionParams?: Record<string, unknown>, onClosed?: (code: number, reason: string) => void): Client {
  const made = createClient({
    url: wsUrl,
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    lazy: true,
    connectionParams,
    on: { closed: (event) => onClosed?.((event as { code: number }).code, (event as { reason: string }).reason) },
  });
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
  served = await serve({ schema: subscriptionSchema(probe), subscriptions: { maxPerConnection: 3, connectionInitTimeout: 300 } }, requireToken, { bodyLimit: 65_536 });
  wsUrl = served.endpoint.replace(/^http/, 'ws');
});

afterAll(async () => {
  await Promise.all(clients.map(async (made) => made.dispose()));
  await served.close();
});

/** Opens a raw socket speaking graphql-transport-ws, and resolves with how the server closed it. */
function rawSocket(onOpen: (socket: WebSocket) => void): Promise<{ code: number; reason: string }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(wsUrl, 'graphql-transport-ws');
    socket.once('open', () => onOpen(socket));
    socket.once('error', reject);
    socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() }));
  });
}

describe('GraphQL over WebSocket (graphql-ws)', () => {
  it("closes a socket that sends a message larger than the app's bodyLimit with 1009", async () => {
    const closed = await rawSocket((socket) => socket.send(JSON.stringify({ type: 'connection_init', payload: { padding: 'x'.repeat(70_000) } })));
    expect(closed.code).toBe(1009);
  });

  it('delivers every event of a subscription, then completes', async () => {
    const results = await collect(client().iterate({ query: 'subscription { count(to: 3) }' }));
    expect(results).toEqual([{ data: { count: 1 } }, { data: { count: 2 } }, { data: { count: 3 } }]);
  });

  it('ends a stream whose resolver throws with a next carrying the masked error, then complete', async () => {
    const results = await collect(client().iterate({ query: 'subscription { boom(after: 1) }' }));
    expect(results).toEqual([{ data: { boom: 1 } }, { errors: [{ message: 'Internal server error', path: ['boom'], extensions: { code: 'INTERNAL_SERVER_ERROR', status: 500 } }] }]);
  });

  it("runs the resolver generator's finally when the client completes the subscription", async () => {
    const ran = probe.nextFinally();
    const iterator = client().iterate({ query: 'subscription { ticks }' });
    expect((await iterator.next()).value).toEqual({ data: { ticks: 1 } });
    await iterator.return?.(undefined);
    await ran;
  });

  it("aborts ctx.signal of one subscription the client completes while its socket stays open, so a resolver waiting for an event ends and its finally runs", async () => {
    const shared = client();
    // A second subscription keeps the socket open all along.
    const other = shared.iterate({ query: 'subscription { waits }' });
    expect((await other.next()).value).toEqual({ data: { waits: 1 } });
    const ran = probe.nextFinally();
    const waiting = shared.iterate({ query: 'subscription { waits }' });
    expect((await waiting.next()).value).toEqual({ data: { waits: 1 } });
    await waiting.return?.(undefined);
    await ran;
    const otherRan = probe.nextFinally();
    await other.return?.(undefined);
    await otherRan;
  });

  it("runs the resolver generator's finally when the socket closes", async () => {
    const ran = probe.nextFinally();
    const closed = rawSocket((socket) => {
      socket.send(JSON.stringify({ type: 'connection_init' }));
      socket.on('message', (data) => {
        const message = JSON.parse((data as Buffer).toString()) as { type: string };
        if (message.type === 'connection_ack') socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: 'subscription { ticks }' } }));
        if (message.type === 'next') socket.terminate();
      });
    });
    await closed;
    await ran;
  });

  it('runs the middleware at connection_init with the payload token as the authorization header', async () => {
    const results = await collect(client({ token: 'good' }).iterate({ query: 'subscription { whoami }' }));
    expect(results).toEqual([{ data: { whoami: 'alice' } }]);
    const withHeader = await collect(client({ authorization: 'Bearer good' }).iterate({ query: 'subscription { whoami }' }));
    expect(withHeader).toEqual([{ data: { whoami: 'alice' } }]);
  });

  it('closes the socket 4401 and 4403 when the middleware refuses with 401 or 403', async () => {
    const closes: Array<[number, string]> = [];
    await expect(collect(client({ token: 'bad' }, (code, reason) => closes.push([code, reason])).iterate({ query: 'subscription { whoami }' }))).rejects.toBeDefined();
    await expect(collect(client({ token: 'nope' }, (code, reason) => closes.push([code, reason])).iterate({ query: 'subscription { whoami }' }))).rejects.toBeDefined();
    expect(closes).toEqual([
      [4401, 'Unauthorized'],
      [4403, 'Forbidden'],
    ]);
  });

  it('answers a document that does not validate with an error message, keeping the socket', async () => {
    const made = client();
    await expect(collect(made.iterate({ query: 'subscription { nope }' }))).rejects.toEqual([expect.objectContaining({ message: 'Cannot query field "nope" on type "Subscription".' })]);
    expect(await collect(made.iterate({ query: 'subscription { count(to: 1) }' }))).toEqual([{ data: { count: 1 } }]);
  });

  it('closes a socket whose connection_init payload is not an object with 4400, saying so, and takes a null payload as none', async () => {
    for (const payload of [[{ token: 'good' }], 'Bearer good', 42, true]) {
      const closed = await rawSocket((socket) => socket.send(JSON.stringify({ type: 'connection_init', payload })));
      expect(closed).toEqual({ code: 4400, reason: 'Invalid connection_init: its payload must be a JSON object' });
    }
    const acked = await new Promise<string>((resolve, reject) => {
      const socket = new WebSocket(wsUrl, 'graphql-transport-ws');
      socket.once('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: null })));
      socket.once('message', (data) => {
        resolve((JSON.parse((data as Buffer).toString()) as { type: string }).type);
        socket.close();
      });
      socket.once('error', reject);
    });
    expect(acked).toBe('connection_ack');
  });

  it('closes a socket that never sends connection_init with 4408 after the timeout', async () => {
    const closed = await rawSocket(() => undefined);
    expect(closed).toEqual({ code: 4408, reason: 'Connection initialisation timeout' });
  });

  it('refuses a subscription past maxPerConnection on one socket, and the others go on', async () => {
    const made = client();
    const open = [1, 2, 3].map(() => made.iterate({ query: 'subscription { ticks }' }));
    for (const iterator of open) expect((await iterator.next()).value).toEqual({ data: { ticks: 1 } });
    await expect(collect(made.iterate({ query: 'subscription { ticks }' }))).rejects.toEqual([
      expect.objectContaining({ message: 'Too many subscriptions on this connection: at most 3 at once.', extensions: { code: 'TOO_MANY_REQUESTS', status: 429 } }),
    ]);
    expect((await open[0]!.next()).value).toEqual({ data: { ticks: 2 } });
    await Promise.all(open.map(async (iterator) => iterator.return?.(undefined)));
  });
});

describe('with subscriptions off', () => {
  let off: Served;

  beforeAll(async () => {
    off = await serve({ schema: subscriptionSchema(createProbe()), subscriptions: false });
  });

  afterAll(async () => {
    await off.close();
  });

  it('takes no WebSocket upgrade (the request is answered as a GET without a query, 400) and answers an event-stream request as GraphQL over HTTP does (406)', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const socket = new WebSocket(off.endpoint.replace(/^http/, 'ws'), 'graphql-transport-ws');
      socket.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      socket.once('open', () => reject(new Error('the upgrade was accepted')));
      socket.once('error', () => undefined);
    });
    expect(status).toBe(400);
    const res = await fetch(off.endpoint, { method: 'POST', headers: { accept: 'text/event-stream', 'content-type': 'application/json' }, body: JSON.stringify({ query: 'subscription { ticks }' }) });
    expect(res.status).toBe(406);
  });
});
