import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { mintToken } from '../src/auth.js';
import { DEV_JWT_SECRET } from '../src/config.js';
import { startDemoProcess, type DemoProcess } from './demo-process.js';
import { catalogClient, metadata, unary, type CatalogClient } from './grpc-client.js';
import { everywhere, eventually, graphqlSse, rpc, sse, type LiveEvent, type Subscriber } from './live-clients.js';

// The demo's live data as its users get it: the demo runs as a child process (as `pnpm demo` runs
// it), orders and stock change through its REST and gRPC calls, and each protocol's own client
// (EventSource, graphql-sse, graphql-ws, grpc-js) follows `orderEvents` and `stockEvents`. The
// demo logs a line when a stream's handler opens and when its `finally` has run (live.ts): the
// tests wait for those lines to know a stream is subscribed, and to see a handler clean up.
jest.setTimeout(60_000);

describe('the live events of the demo on REST (SSE), GraphQL (graphql-sse, graphql-ws) and gRPC', () => {
  let demo: DemoProcess;
  let client: CatalogClient;
  const open: Subscriber[] = [];

  beforeAll(async () => {
    demo = await startDemoProcess({ RATE_LIMIT_MAX: '100000', JWT_SECRET: DEV_JWT_SECRET });
    client = catalogClient(demo.endpoints.grpc);
  });

  afterEach(async () => {
    await leave(open.splice(0));
    await eventually(() => count(/live: \w+ opened over/) === count(/live: \w+ closed over/), `every handler to clean up:\n${demo.output().split('\n').filter((l) => l.startsWith('live:')).join('\n')}`);
  });

  afterAll(async () => {
    client?.close();
    if (demo) expect(await demo.stop()).toBe(0);
  });

  /** Lines of the demo's output matching `pattern`, from the start or from `since` (an output length). */
  function count(pattern: RegExp, since = 0): number {
    return demo.output().slice(since).split('\n').filter((line) => pattern.test(line)).length;
  }

  /** Leaves, one client after the other, each time until its handler has cleaned up (a refused one never opened). */
  async function leave(subscribers: Subscriber[]): Promise<void> {
    for (const subscriber of subscribers) {
      const since = demo.output().length;
      subscriber.leave();
      // A refused stream never ran its handler: nothing to clean up.
      if ((await subscriber.ended) !== undefined) continue;
      await eventually(() => count(/live: \w+ closed over/, since) === 1, `the handler of the ${subscriber.protocol} stream to clean up`);
    }
  }

  /** Subscribes on every protocol and waits until each handler has subscribed to the pub/sub. */
  async function follow(request: Parameters<typeof everywhere>[2]): Promise<Subscriber[]> {
    const since = demo.output().length;
    const subscribers = everywhere(demo.endpoints, client, request);
    open.push(...subscribers);
    await eventually(() => count(new RegExp(`live: ${request.operation} opened over`), since) === subscribers.length, `${request.operation} to open on every protocol`);
    return subscribers;
  }

  async function placeOrder(lines: Array<{ bookId: string; quantity: number }>): Promise<{ id: string; totalCents: number }> {
    const res = await fetch(`${demo.endpoints.rest}/api/v1/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${demo.endpoints.customerToken}` },
      body: JSON.stringify({ lines }),
    });
    expect(res.status).toBe(201);
    return (await res.json()) as { id: string; totalCents: number };
  }

  async function admin(path: string, body: object): Promise<void> {
    const res = await fetch(`${demo.endpoints.rest}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${demo.endpoints.adminToken}` },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
  }

  const received = (subscribers: Subscriber[], n: number): Promise<void> =>
    eventually(() => subscribers.every((s) => s.events.length >= n), `${n} events on every protocol (got ${subscribers.map((s) => `${s.protocol}: ${s.events.length}`).join(', ')})`);

  it("sends the status changes of a customer's order to that customer on every protocol, the same events with the same ids", async () => {
    const subscribers = await follow({ operation: 'orderEvents', token: demo.endpoints.customerToken });
    const order = await placeOrder([{ bookId: 'b4', quantity: 1 }]);
    await admin(`/api/v1/orders/${order.id}/status`, { status: 'shipped' });
    await received(subscribers, 2);
    const events = subscribers[0]!.events;
    expect(events).toEqual([
      { eventId: expect.any(String), orderId: order.id, status: 'placed', totalCents: 899, at: expect.any(String) },
      { eventId: expect.any(String), orderId: order.id, status: 'shipped', totalCents: 899, at: expect.any(String) },
    ]);
    for (const subscriber of subscribers) expect([subscriber.protocol, subscriber.events]).toEqual([subscriber.protocol, events]);
  });

  it('follows one order when given its id, and not the orders of other customers', async () => {
    const first = await placeOrder([{ bookId: 'b4', quantity: 1 }]);
    const subscribers = await follow({ operation: 'orderEvents', input: { orderId: first.id }, token: demo.endpoints.customerToken });
    // The admin's own order (another customer) and another order of this customer are not this stream's.
    const res = await fetch(`${demo.endpoints.rest}/api/v1/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${demo.endpoints.adminToken}` },
      body: JSON.stringify({ lines: [{ bookId: 'b4', quantity: 1 }] }),
    });
    expect(res.status).toBe(201);
    await placeOrder([{ bookId: 'b4', quantity: 1 }]);
    await admin(`/api/v1/orders/${first.id}/status`, { status: 'delivered' });
    await received(subscribers, 1);
    for (const subscriber of subscribers) expect(subscriber.events.map((e) => [e.orderId, e.status])).toEqual([[first.id, 'delivered']]);
  });

  it('sends the stock of a book as orders on any protocol sell it and the admin restocks it, to anyone (stockEvents is public)', async () => {
    const subscribers = await follow({ operation: 'stockEvents', input: { bookId: 'b1' } });
    // Placed over gRPC this time: the store publishes, whoever called it.
    await unary((cb) => client.PlaceOrder({ lines: [{ book_id: 'b1', quantity: 2 }, { book_id: 'b4', quantity: 1 }] }, metadata(demo.endpoints.customerToken), cb));
    await admin('/api/v1/books/b1/restock', { quantity: 5 });
    await received(subscribers, 2);
    const expected = [
      { eventId: expect.any(String), bookId: 'b1', title: 'The Left Hand of Darkness', stock: 10, reason: 'ordered' },
      { eventId: expect.any(String), bookId: 'b1', title: 'The Left Hand of Darkness', stock: 15, reason: 'restocked' },
    ];
    for (const subscriber of subscribers) expect([subscriber.protocol, subscriber.events]).toEqual([subscriber.protocol, expected]);
  });

  it('resumes after the last event a client saw: Last-Event-ID on SSE and GraphQL over SSE, last-event-id metadata on gRPC', async () => {
    const watching = await follow({ operation: 'stockEvents', input: { bookId: 'b2' } });
    await admin('/api/v1/books/b2/restock', { quantity: 1 });
    await admin('/api/v1/books/b2/restock', { quantity: 1 });
    await received(watching, 2);
    const [seen, missed] = watching[0]!.events as [LiveEvent, LiveEvent];
    await leave(open.splice(0));
    // Back with the id of the last event seen: the replay window gives what came after it.
    const since = demo.output().length;
    // graphql-ws carries no last event id per subscription.
    const again = { operation: 'stockEvents', input: { bookId: 'b2' }, lastEventId: seen.eventId } as const;
    const resumed = [sse(demo.endpoints.rest, again), graphqlSse(demo.endpoints.graphql, again), rpc(client, again)];
    open.push(...resumed);
    await received(resumed, 1);
    for (const subscriber of resumed) expect([subscriber.protocol, subscriber.events]).toEqual([subscriber.protocol, [missed]]);
    expect(count(new RegExp(`resuming after ${seen.eventId}`), since)).toBeGreaterThanOrEqual(resumed.length);
  });

  it('refuses orderEvents without a token with 401 on every protocol, before any event and without running the handler', async () => {
    const since = demo.output().length;
    const subscribers = everywhere(demo.endpoints, client, { operation: 'orderEvents' });
    open.push(...subscribers);
    const refusals = await Promise.all(subscribers.map((s) => s.ended));
    expect(refusals.map((r) => r?.status)).toEqual([401, 401, 401, 401]);
    // graphql-sse's client reports the status of the refused response only, not its body.
    for (const refusal of refusals.filter((_, i) => subscribers[i]!.protocol !== 'graphql-sse')) expect(refusal?.message).toBe('Authentication required');
    for (const subscriber of subscribers) expect(subscriber.events).toEqual([]);
    expect(count(/live: orderEvents opened/, since)).toBe(0);
  });

  it('refuses orderEvents to a token without the customer role with 403 on every protocol', async () => {
    const guest = await mintToken({ id: 'u-guest', roles: [] }, DEV_JWT_SECRET);
    const subscribers = everywhere(demo.endpoints, client, { operation: 'orderEvents', token: guest });
    open.push(...subscribers);
    const refusals = await Promise.all(subscribers.map((s) => s.ended));
    expect(refusals.map((r) => r?.status)).toEqual([403, 403, 403, 403]);
  });

  it('answers 401 with WWW-Authenticate and the error body to a plain SSE request without a token', async () => {
    const res = await fetch(`${demo.endpoints.rest}/api/v1/orders/events`, { headers: { accept: 'text/event-stream' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await res.json()).toMatchObject({ error: true, code: 401, message: 'Authentication required' });
  });

  it('refuses a malformed book id with 400 on every protocol (BAD_USER_INPUT, INVALID_ARGUMENT)', async () => {
    const subscribers = everywhere(demo.endpoints, client, { operation: 'stockEvents', input: { bookId: 'x1' } });
    open.push(...subscribers);
    const refusals = await Promise.all(subscribers.map((s) => s.ended));
    expect(refusals.map((r) => r?.status)).toEqual(subscribers.map(() => 400));
  });

  it("runs the handler's cleanup (its finally, the pub/sub subscription removed) when a client leaves, on every protocol", async () => {
    const subscribers = await follow({ operation: 'stockEvents' });
    for (const subscriber of open.splice(0)) {
      const since = demo.output().length;
      subscriber.leave();
      await subscriber.ended;
      await eventually(() => count(/live: stockEvents closed over/, since) === 1, `the handler of the ${subscriber.protocol} stream to clean up`);
    }
    expect(demo.output().trimEnd().split('\n').filter((line) => line.includes('live: stockEvents closed')).pop()).toMatch(/0 left on stock$/);
    expect(subscribers.length).toBeGreaterThan(1);
  });

  // Each subscription of a graphql-ws connection has its own ctx.signal: completing one ends its handler at once.
  it('ends the handler of one subscription completed on a graphql-ws connection that stays open', async () => {
    const since = demo.output().length;
    const ws = createClient({ url: demo.endpoints.graphql.replace(/^http/, 'ws'), webSocketImpl: WebSocket, retryAttempts: 0 });
    try {
      const kept = ws.iterate({ query: 'subscription { stockEvents { eventId } }' });
      const completed = ws.iterate({ query: 'subscription { stockEvents(bookId: "b3") { eventId } }' });
      // Each iterator subscribes on its first next(); neither gets an event here.
      const pending = [kept.next(), completed.next()];
      await eventually(() => count(/live: stockEvents opened over/, since) === 2, 'both subscriptions to open');
      // `complete` for one of them: the connection and the other subscription stay.
      await completed.return?.();
      await eventually(() => count(/live: stockEvents closed over/, since) === 1, 'the completed subscription to clean up while its connection stays open');
      await kept.return?.();
      void pending;
    } finally {
      await ws.dispose();
    }
  });
});

describe('stopping the demo while live streams are open', () => {
  it('ends every stream on every protocol, runs each handler\'s finally, and exits 0 (SIGTERM)', async () => {
    const demo = await startDemoProcess({ RATE_LIMIT_MAX: '100000' });
    const client = catalogClient(demo.endpoints.grpc);
    try {
      const subscribers = everywhere(demo.endpoints, client, { operation: 'stockEvents' });
      const lines = (pattern: RegExp): number => demo.output().split('\n').filter((line) => pattern.test(line)).length;
      await eventually(() => lines(/live: stockEvents opened over/) === subscribers.length, 'the streams to open');
      expect(await demo.stop()).toBe(0);
      // Each client is told the stream is over (SSE: the connection ends after its retry hint;
      // GraphQL: complete; gRPC: UNAVAILABLE, reconnect), none hangs.
      const ends = await Promise.all(subscribers.map((s) => s.ended));
      expect(ends.map((end, i) => [subscribers[i]!.protocol, end?.status])).toEqual([
        ['sse', undefined],
        ['graphql-sse', undefined],
        ['graphql-ws', undefined],
        ['grpc', 503],
      ]);
      // The handlers' finally ran before the process said it stopped.
      const output = demo.output();
      expect(lines(/live: stockEvents closed over/)).toBe(subscribers.length);
      expect(output.lastIndexOf('live: stockEvents closed over')).toBeLessThan(output.indexOf('demo stopped'));
      for (const subscriber of subscribers) subscriber.leave();
    } finally {
      client.close();
      await demo.stop();
    }
  });
});
