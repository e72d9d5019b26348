import { connect, type Socket } from 'node:net';
import { createClient as createSseClient, type Client as SseClient } from 'graphql-sse';
import { createClient as createWsClient, type Client as WsClient } from 'graphql-ws';
import WebSocket from 'ws';
import { serve, type Served } from './helpers.js';
import { collect, createProbe, subscriptionSchema, type Probe } from './subscription-helpers.js';

// The app's stream rules on GraphQL subscriptions, over SSE (both modes) and WebSocket: the
// registry's limits, heartbeats, the event size bound, ctx.signal, and close().

interface Clients {
  sse(single: boolean): SseClient;
  ws(): WsClient;
  dispose(): Promise<void>;
}

function clientsOf(served: Served): Clients {
  const made: Array<SseClient | WsClient> = [];
  return {
    sse: (single) => {
      const client = createSseClient({ url: served.endpoint, singleConnection: single, retryAttempts: 0 }) as SseClient;
      made.push(client);
      return client;
    },
    ws: () => {
      const client = createWsClient({ url: served.endpoint.replace(/^http/, 'ws'), webSocketImpl: WebSocket, retryAttempts: 0, lazy: true });
      made.push(client);
      return client;
    },
    dispose: async () => {
      await Promise.all(made.map(async (client) => client.dispose()));
    },
  };
}

describe('GraphQL subscriptions under the app stream rules', () => {
  let served: Served;
  let probe: Probe;
  let clients: Clients;

  beforeAll(async () => {
    probe = createProbe();
    served = await serve({ schema: subscriptionSchema(probe) }, undefined, { streams: { heartbeat: 50, maxEventBytes: 2000 } });
    clients = clientsOf(served);
  });

  afterAll(async () => {
    await clients.dispose();
    await served.close();
  });

  it.each([
    ['SSE, distinct connections', () => clients.sse(false)],
    ['SSE, a single connection', () => clients.sse(true)],
  ])("aborts the context's signal when the client leaves (%s), so a resolver waiting for an event runs its finally", async (_mode, client) => {
    const ran = probe.nextFinally();
    const iterator = client().iterate({ query: 'subscription { waits }' });
    expect((await iterator.next()).value).toEqual({ data: { waits: 1 } });
    await iterator.return?.(undefined);
    await ran;
  });

  it("aborts the connection context's signal when a WebSocket closes", async () => {
    const ran = probe.nextFinally();
    const client = clients.ws();
    const iterator = client.iterate({ query: 'subscription { waits }' });
    expect((await iterator.next()).value).toEqual({ data: { waits: 1 } });
    client.terminate();
    await ran;
  });

  it('sends a comment line at every heartbeat on an event stream', async () => {
    const controller = new AbortController();
    const res = await fetch(served.endpoint, {
      method: 'POST',
      headers: { accept: 'text/event-stream', 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'subscription { waits }' }),
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    let text = '';
    // graphql-sse's own first comment, then one every 50 ms: read until four came (a loaded machine
    // may take longer than 200 ms for them; the wait is ample, the count is the check).
    const comments = (): number => text.split(':\n\n').length - 1;
    const until = Date.now() + 10_000;
    while (comments() < 4 && Date.now() < until) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    expect(comments()).toBeGreaterThanOrEqual(4);
  });

  it('pings a WebSocket at every heartbeat', async () => {
    const socket = new WebSocket(served.endpoint.replace(/^http/, 'ws'), 'graphql-transport-ws');
    let pings = 0;
    socket.on('ping', () => (pings += 1));
    await new Promise((resolve) => socket.once('open', resolve));
    socket.send(JSON.stringify({ type: 'connection_init' }));
    // Three heartbeats: waited for (ample on a loaded machine), not counted in a fixed 300 ms.
    const until = Date.now() + 10_000;
    while (pings < 3 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
    socket.close();
    expect(pings).toBeGreaterThanOrEqual(3);
  });

  const tooLarge = { errors: [{ message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR', status: 500 } }] };

  it.each([
    ['SSE, distinct connections', () => clients.sse(false)],
    ['SSE, a single connection', () => clients.sse(true)],
    ['WebSocket', () => clients.ws()],
  ])('ends a subscription whose event is larger than maxEventBytes with an internal error (%s)', async (_mode, client) => {
    const results = await collect(client().iterate({ query: 'subscription { big(size: 5000) }' }));
    expect(results).toEqual([tooLarge]);
  });
});

describe('GraphQL subscriptions and the per-client limit', () => {
  let served: Served;
  let clients: Clients;

  beforeAll(async () => {
    served = await serve({ schema: subscriptionSchema(createProbe()) }, undefined, { streams: { maxPerClient: 2 } });
    clients = clientsOf(served);
  });

  afterAll(async () => {
    await clients.dispose();
    await served.close();
  });

  it('answers a stream past maxPerClient 429 over SSE, and a WebSocket upgrade 429 before the handshake', async () => {
    const open = [clients.sse(false).iterate({ query: 'subscription { waits }' }), clients.ws().iterate({ query: 'subscription { waits }' })];
    for (const iterator of open) expect((await iterator.next()).value).toEqual({ data: { waits: 1 } });

    const sse = await fetch(served.endpoint, { method: 'POST', headers: { accept: 'text/event-stream', 'content-type': 'application/json' }, body: JSON.stringify({ query: 'subscription { waits }' }) });
    expect(sse.status).toBe(429);
    const upgrade = await new Promise<number>((resolve, reject) => {
      const socket = new WebSocket(served.endpoint.replace(/^http/, 'ws'), 'graphql-transport-ws');
      socket.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      socket.once('open', () => reject(new Error('the upgrade was accepted')));
    });
    expect(upgrade).toBe(429);

    await Promise.all(open.map(async (iterator) => iterator.return?.(undefined)));
  });
});

describe('closing the app with subscriptions open', () => {
  it('completes every subscription on every transport and waits for the resolvers to finish', async () => {
    const probe = createProbe();
    const served = await serve({ schema: subscriptionSchema(probe) });
    const clients = clientsOf(served);
    const iterators = [clients.sse(false), clients.sse(true), clients.ws()].map((client) => client.iterate({ query: 'subscription { waits }' }));
    for (const iterator of iterators) expect((await iterator.next()).value).toEqual({ data: { waits: 1 } });

    const before = probe.finallies;
    await served.close();
    expect(probe.finallies - before).toBe(3);
    // Each client saw its subscription complete.
    for (const iterator of iterators) expect(await iterator.next()).toEqual({ done: true, value: undefined });
    await clients.dispose();
  });
});

describe('hostile clients', () => {
  let served: Served;
  let probe: Probe;

  beforeAll(async () => {
    probe = createProbe();
    served = await serve({ schema: subscriptionSchema(probe), subscriptions: { maxPerConnection: 100 } }, undefined, { streams: { maxBufferedBytes: 256 * 1024, stallTimeout: 300, heartbeat: 100 } });
  });

  afterAll(async () => {
    await served.close();
  });

  it('holds back the source of an event stream whose client never reads, cuts it off after stallTimeout and stops its resolver', async () => {
    const ran = probe.nextFinally();
    const { port } = new URL(served.url);
    const socket = connect(Number(port), '127.0.0.1');
    const body = JSON.stringify({ query: 'subscription { flood(size: 10000) }' });
    socket.write(`POST /graphql HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: text/event-stream\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    // Never read: the socket is paused from the start.
    socket.pause();
    await ran;
    socket.destroy();
    // The server still answers others at once: within 1 s, or twenty times the same query just
    // before on a machine slower than that.
    const hello = async (): Promise<number> => {
      const started = performance.now();
      const res = await fetch(served.endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ hello }' }) });
      expect(await res.json()).toEqual({ data: { hello: 'world' } });
      return performance.now() - started;
    };
    const baseline = Math.min(await hello(), await hello());
    expect(await hello()).toBeLessThan(Math.max(1000, 20 * baseline));
  });

  it('closes a WebSocket whose client stopped reading after stallTimeout, and stops its resolver', async () => {
    const ran = probe.nextFinally();
    const socket = new WebSocket(served.endpoint.replace(/^http/, 'ws'), 'graphql-transport-ws');
    await new Promise((resolve) => socket.once('open', resolve));
    socket.send(JSON.stringify({ type: 'connection_init' }));
    socket.once('message', () => {
      socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: 'subscription { flood(size: 10000) }' } }));
      // Stop reading: the server's sends pile up unsent.
      (socket as unknown as { _socket: Socket })._socket.pause();
    });
    await ran;
    socket.terminate();
  });

});

describe('1,000 subscriptions over one socket', () => {
  let served: Served;

  beforeAll(async () => {
    served = await serve({ schema: subscriptionSchema(createProbe()), subscriptions: { maxPerConnection: 100 } });
  });

  afterAll(async () => {
    await served.close();
  });

  it('refuses all but maxPerConnection of 1,000 subscriptions sent over one socket, and the process stays up', async () => {
    const socket = new WebSocket(served.endpoint.replace(/^http/, 'ws'), 'graphql-transport-ws');
    await new Promise((resolve) => socket.once('open', resolve));
    const counts = { next: 0, error: 0 };
    const firstOfEach = new Set<string>();
    let acked!: () => void;
    const ack = new Promise<void>((resolve) => (acked = resolve));
    socket.on('message', (data) => {
      const message = JSON.parse((data as Buffer).toString()) as { type: 'connection_ack' | 'next' | 'error'; id?: string };
      if (message.type === 'connection_ack') return acked();
      if (message.type === 'error') counts.error += 1;
      if (message.type === 'next' && !firstOfEach.has(message.id!)) {
        firstOfEach.add(message.id!);
        counts.next += 1;
      }
    });
    socket.send(JSON.stringify({ type: 'connection_init' }));
    await ack;
    for (let i = 0; i < 1000; i++) socket.send(JSON.stringify({ id: String(i), type: 'subscribe', payload: { query: 'subscription { waits }' } }));
    const until = Date.now() + 60_000;
    while (counts.next + counts.error < 1000 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(counts).toEqual({ next: 100, error: 900 });
    const res = await fetch(served.endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ hello }' }) });
    expect(res.status).toBe(200);
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.close();
    await closed;
  }, 90_000);
});
