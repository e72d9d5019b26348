import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { EventSource } from 'eventsource';
import { createClient as createSseClient, type Client as SseClient } from 'graphql-sse';
import { createClient as createWsClient, type Client as WsClient } from 'graphql-ws';
import WebSocket from 'ws';
import { z } from 'zod';
import { createApp, type App } from '@fw/app';
import { tracked } from '@fw/app/core';
import { authenticate, createPubSub, rateLimit, requireRole } from '@fw/app/middleware';
import { defineOperation } from '@fw/app/validate';

// One streaming operation served on REST (server-sent events), GraphQL (a subscription, over
// graphql-sse and over graphql-ws) and gRPC (a server stream), each read by the client its users
// use. Subscribed on every protocol at once, they get the same events in the same order; refused,
// they get the same refusal before any event.

const OrderEvent = z.object({ orderId: z.string(), status: z.enum(['placed', 'shipped', 'delivered']) }).meta({ id: 'OrderEvent' });
type OrderEventOut = z.output<typeof OrderEvent>;

const bus = createPubSub<{ orders: OrderEventOut }>();
/** How many handlers started, are running now, and have run their `finally`. */
const handlers = { started: 0, running: 0, finished: 0 };

/** "good" is a customer, "guest" a user without the role; any other token is refused. */
const verifier = (token: string) => (token === 'good' ? { sub: 'u1', roles: ['customer'] } : token === 'guest' ? { sub: 'g1', roles: [] } : undefined);

const orderEvents = defineOperation({
  name: 'orderEvents',
  description: "Status changes of the caller's orders",
  input: z.object({ orderId: z.string().min(2).optional() }),
  output: OrderEvent,
  stream: true,
  // One stream per quota key at a time… per window: the key is the test's own header, so each protocol has its own.
  middleware: [authenticate({ verifier }), requireRole('customer'), rateLimit({ windowMs: 60_000, maxRequests: 1, keyGenerator: (ctx) => String(ctx.headers['x-quota']), skip: (ctx) => ctx.headers['x-quota'] === undefined })],
  handler: async function* (input, ctx) {
    handlers.started++;
    handlers.running++;
    try {
      for await (const { id, data } of bus.subscribe('orders', { signal: ctx.signal, lastEventId: ctx.lastEventId })) {
        if (input.orderId === undefined || data.orderId === input.orderId) yield tracked(id, data);
      }
    } finally {
      handlers.running--;
      handlers.finished++;
    }
  },
  rest: { method: 'GET', path: '/orders/events' },
  graphql: { type: 'subscription' },
  grpc: { service: 'shop.Orders' },
});

// GraphQL needs a query type beside the subscription.
const ping = defineOperation({
  name: 'ping',
  input: z.object({}),
  output: z.object({ ok: z.boolean() }),
  handler: async () => ({ ok: true }),
  graphql: { type: 'query' },
});

/** One GraphQL result as either client reads it. */
interface WireResult {
  readonly data?: unknown;
  readonly errors?: ReadonlyArray<{ readonly message: string; readonly extensions?: { readonly status?: unknown } }>;
}

/** What a client got: the events, or the refusal as an HTTP status and message. */
type Refusal = { status: number; message: string };

const GRPC_TO_HTTP: Record<number, number> = {
  [grpc.status.INVALID_ARGUMENT]: 400,
  [grpc.status.UNAUTHENTICATED]: 401,
  [grpc.status.PERMISSION_DENIED]: 403,
  [grpc.status.RESOURCE_EXHAUSTED]: 429,
  [grpc.status.UNAVAILABLE]: 503,
};

/**
 * An event as a gRPC client reads it (proto-loader, camelCase fields): the response message holds the
 * event in its field `orderEvent`, and the status enum by its proto name (ORDER_EVENT_STATUS_SHIPPED).
 */
function fromGrpc(message: Record<string, unknown>): OrderEventOut {
  const event = (message.orderEvent ?? message) as { orderId: string; status: string };
  return { orderId: event.orderId, status: event.status.replace(/^ORDER_EVENT_STATUS_/, '').toLowerCase() as OrderEventOut['status'] };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function eventually(check: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(10);
  }
}

/** A subscription on one protocol: the events as they arrive, its refusal, and how to leave. */
interface Subscriber {
  readonly events: OrderEventOut[];
  readonly ids: Array<string | undefined>;
  /** Settles with the refusal, or undefined when the stream opened and ended without one. */
  readonly refused: Promise<Refusal | undefined>;
  leave(): void;
}

describe('one streaming operation on REST (SSE), GraphQL (graphql-sse, graphql-ws) and gRPC at once', () => {
  let app: App;
  let base: string;
  let grpcClient: grpc.Client;
  let protoDir: string;
  const leaving: Array<() => void> = [];

  beforeAll(async () => {
    app = createApp({ onLog: () => undefined, protocols: { graphql: {}, grpc: { port: 0, host: '127.0.0.1' } } });
    app.operation(orderEvents).operation(ping);
    protoDir = await mkdtemp(join(tmpdir(), 'fw-streams-'));
    const files = app.getProtocolManager()!.grpc!.generateProtos();
    for (const { file, text } of files) {
      const target = join(protoDir, file.replace(/\//g, '_'));
      await writeFile(target, text);
    }
    base = (await app.listen(0, '127.0.0.1')).url;
    const file = files.find((f) => f.text.includes('service Orders'))!;
    const definition = protoLoader.loadSync(join(protoDir, file.file.replace(/\//g, '_')), { keepCase: false, longs: Number, enums: String, defaults: true });
    const Orders = grpc.loadPackageDefinition(definition)['shop'] as unknown as { Orders: grpc.ServiceClientConstructor };
    grpcClient = new Orders.Orders(app.getProtocolManager()!.getGrpcAddress()!.target, grpc.credentials.createInsecure());
  });

  afterEach(async () => {
    for (const leave of leaving.splice(0)) leave();
    await eventually(() => handlers.running === 0, 'every handler to finish');
  });

  let closed = false;

  afterAll(async () => {
    grpcClient?.close();
    if (!closed) await app?.close();
    await bus.close();
    if (protoDir) await rm(protoDir, { recursive: true, force: true });
  });

  function headersOf(token: string | undefined, quota: string | undefined): Record<string, string> {
    return { ...(token === undefined ? {} : { authorization: `Bearer ${token}` }), ...(quota === undefined ? {} : { 'x-quota': quota }) };
  }

  /** REST: the `eventsource` package's EventSource, with the headers sent through its fetch. */
  function rest(input: { orderId?: string }, token?: string, quota?: string, lastEventId?: string): Subscriber {
    const query = input.orderId === undefined ? '' : `?orderId=${encodeURIComponent(input.orderId)}`;
    const headers = { ...headersOf(token, quota), ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }) };
    const source = new EventSource(`${base}/orders/events${query}`, {
      fetch: (url, init) => fetch(url, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } }),
    });
    const events: OrderEventOut[] = [];
    const ids: Array<string | undefined> = [];
    source.onmessage = (message) => {
      events.push(JSON.parse(message.data) as OrderEventOut);
      ids.push(message.lastEventId);
    };
    const refused = new Promise<Refusal | undefined>((resolve) => {
      source.onerror = async (error) => {
        source.close();
        if (error.code === undefined) return resolve(undefined);
        // The refusal's body is the spec's error body; EventSource only says the status, so read it once more.
        const res = await fetch(`${base}/orders/events${query}`, { headers: { accept: 'text/event-stream', ...headers } });
        const body = (await res.json()) as { message: string };
        resolve({ status: error.code, message: body.message });
      };
    });
    const leave = (): void => source.close();
    leaving.push(leave);
    return { events, ids, refused, leave };
  }

  const SUBSCRIPTION = 'subscription($orderId: String) { orderEvents(orderId: $orderId) { orderId status } }';

  /** A GraphQL refusal, however the transport carries it (errors in a result, an HTTP status, a close code), as a status and message. */
  async function graphqlRefusal(err: unknown): Promise<Refusal | undefined> {
    const errors = Array.isArray(err) ? (err as WireResult['errors']) : (err as WireResult | undefined)?.errors;
    const first = errors?.[0];
    if (first !== undefined) return { status: Number(first.extensions?.status), message: first.message };
    const response = (err as { response?: Response } | undefined)?.response;
    // graphql-sse's client rejects a refused request (a real HTTP status) with its response: the body is a GraphQL result.
    if (response !== undefined) {
      const body = (await response.json()) as WireResult;
      return { status: response.status, message: String(body.errors?.[0]?.message) };
    }
    const close = err as { code?: number; reason?: string } | undefined;
    if (typeof close?.code === 'number') return { status: close.code, message: String(close.reason) };
    throw err;
  }

  /** Reads a GraphQL subscription's results: events from `data`, a refusal from the first `errors`. */
  function readResults(results: AsyncIterable<WireResult>, leave: () => void): Subscriber {
    const events: OrderEventOut[] = [];
    const refused = (async (): Promise<Refusal | undefined> => {
      try {
        for await (const result of results) {
          if (result.errors !== undefined) return graphqlRefusal(result.errors);
          events.push((result.data as { orderEvents: OrderEventOut }).orderEvents);
        }
        return undefined;
      } catch (err) {
        return graphqlRefusal(err);
      }
    })();
    leaving.push(leave);
    return { events, ids: [], refused, leave };
  }

  /** GraphQL over server-sent events: graphql-sse's client (distinct connections mode). */
  function graphqlSse(input: { orderId?: string }, token?: string, quota?: string, lastEventId?: string): Subscriber {
    const headers = { ...headersOf(token, quota), ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }) };
    const client: SseClient = createSseClient({ url: `${base}/graphql`, headers, retryAttempts: 0 });
    const results = client.iterate({ query: SUBSCRIPTION, variables: input });
    return readResults(results, () => {
      void results.return?.();
      client.dispose();
    });
  }

  /** GraphQL over WebSocket: graphql-ws's client with `ws`; the token goes in connection_init, the quota header with the upgrade. */
  function graphqlWs(input: { orderId?: string }, token?: string, quota?: string): Subscriber {
    const upgradeHeaders = headersOf(undefined, quota);
    class WebSocketWithHeaders extends WebSocket {
      constructor(address: string, protocols?: string | string[]) {
        super(address, protocols, { headers: upgradeHeaders });
      }
    }
    const client: WsClient = createWsClient({
      url: `${base.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocketWithHeaders,
      connectionParams: token === undefined ? {} : { authorization: `Bearer ${token}` },
      retryAttempts: 0,
    });
    const results = client.iterate({ query: SUBSCRIPTION, variables: input });
    return readResults(results, () => {
      void results.return?.();
      void client.dispose();
    });
  }

  /** gRPC: grpc-js reading the server stream of the generated proto. */
  function rpc(input: { orderId?: string }, token?: string, quota?: string, lastEventId?: string): Subscriber {
    const metadata = new grpc.Metadata();
    for (const [key, value] of Object.entries(headersOf(token, quota))) metadata.set(key, value);
    if (lastEventId !== undefined) metadata.set('last-event-id', lastEventId);
    const call = (grpcClient as unknown as Record<string, (r: object, m: grpc.Metadata) => grpc.ClientReadableStream<Record<string, unknown>>>)['OrderEvents']!.call(grpcClient, input, metadata);
    const events: OrderEventOut[] = [];
    call.on('data', (message: Record<string, unknown>) => events.push(fromGrpc(message)));
    const refused = new Promise<Refusal | undefined>((resolve) => {
      call.on('error', (err: grpc.ServiceError) => resolve(err.code === grpc.status.CANCELLED ? undefined : { status: GRPC_TO_HTTP[err.code] ?? err.code, message: err.details }));
      call.on('end', () => resolve(undefined));
    });
    const leave = (): void => call.cancel();
    leaving.push(leave);
    return { events, ids: [], refused, leave };
  }

  /** Every protocol's subscriber, with the same input and credentials. */
  function everywhere(input: { orderId?: string }, token?: string, quota?: (protocol: string) => string, lastEventId?: string): Subscriber[] {
    return [
      rest(input, token, quota?.('rest'), lastEventId),
      graphqlSse(input, token, quota?.('graphql-sse'), lastEventId),
      // graphql-ws carries no per-subscription last event id yet (the contract's extensions.lastEventId).
      ...(lastEventId === undefined ? [graphqlWs(input, token, quota?.('graphql-ws'))] : []),
      rpc(input, token, quota?.('grpc'), lastEventId),
    ];
  }

  const published: OrderEventOut[] = [
    { orderId: 'o1', status: 'placed' },
    { orderId: 'o2', status: 'placed' },
    { orderId: 'o1', status: 'shipped' },
  ];

  it('delivers the same events in the same order on every protocol', async () => {
    const subscribers = everywhere({}, 'good');
    await eventually(() => bus.subscribers('orders') === subscribers.length, 'every protocol to subscribe');
    const ids: string[] = [];
    for (const event of published) ids.push(await bus.publish('orders', event));
    await eventually(() => subscribers.every((s) => s.events.length === published.length), 'every event on every protocol');
    for (const subscriber of subscribers) expect(subscriber.events).toEqual(published);
    // The SSE ids are the pub/sub's, what a reconnecting EventSource sends back as Last-Event-ID.
    expect(subscribers[0]!.ids).toEqual(ids);
  });

  it('validates the input and shapes the events alike: a filter given as input applies on every protocol', async () => {
    const subscribers = everywhere({ orderId: 'o1' }, 'good');
    await eventually(() => bus.subscribers('orders') === subscribers.length, 'every protocol to subscribe');
    for (const event of published) await bus.publish('orders', event);
    const mine = published.filter((e) => e.orderId === 'o1');
    await eventually(() => subscribers.every((s) => s.events.length === mine.length), 'the events of o1 on every protocol');
    for (const subscriber of subscribers) expect(subscriber.events).toEqual(mine);
  });

  it('resumes after the last event id on REST, GraphQL over SSE and gRPC (the Last-Event-ID header, last-event-id metadata)', async () => {
    const ids: string[] = [];
    for (const event of published) ids.push(await bus.publish('orders', event));
    const subscribers = everywhere({}, 'good', undefined, ids[0]);
    await eventually(() => subscribers.every((s) => s.events.length === 2), 'the missed events on every protocol');
    for (const subscriber of subscribers) expect(subscriber.events).toEqual(published.slice(1));
  });

  it("runs the handler's finally on every protocol when the clients leave", async () => {
    const before = handlers.finished;
    const subscribers = everywhere({}, 'good');
    await eventually(() => bus.subscribers('orders') === subscribers.length, 'every protocol to subscribe');
    for (const subscriber of subscribers) subscriber.leave();
    await eventually(() => handlers.running === 0 && bus.subscribers('orders') === 0, 'every handler to finish');
    expect(handlers.finished - before).toBe(subscribers.length);
  });

  it('refuses a client without credentials with 401 on every protocol, before the handler runs', async () => {
    const started = handlers.started;
    const refusals = await Promise.all(everywhere({}).map((s) => s.refused));
    for (const refusal of refusals) expect(refusal).toEqual({ status: 401, message: 'Authentication required' });
    expect(handlers.started).toBe(started);
  });

  it('refuses a user without the role with 403 on every protocol', async () => {
    const refusals = await Promise.all(everywhere({}, 'guest').map((s) => s.refused));
    for (const refusal of refusals) expect(refusal).toEqual({ status: 403, message: 'Insufficient permissions' });
  });

  it('refuses an invalid input with 400 on every protocol, before the handler runs', async () => {
    const started = handlers.started;
    const refusals = await Promise.all(everywhere({ orderId: 'x' }, 'good').map((s) => s.refused));
    for (const refusal of refusals) expect(refusal).toEqual({ status: 400, message: 'Validation failed' });
    expect(handlers.started).toBe(started);
  });

  it('refuses a stream past the rate limit with 429 on every protocol', async () => {
    const quota = (protocol: string): string => `quota-${protocol}`;
    const first = everywhere({}, 'good', quota);
    await eventually(() => bus.subscribers('orders') === first.length, 'the first streams to open');
    const refusals = await Promise.all(everywhere({}, 'good', quota).map((s) => s.refused));
    for (const refusal of refusals) expect(refusal).toEqual({ status: 429, message: 'Too many requests, please try again later' });
  });

  it("ends every stream with its reconnect hint when the app closes, and waits for every handler's finally", async () => {
    const subscribers = everywhere({}, 'good');
    // A raw SSE read, to see the reconnect hint the EventSource acts on (nothing is sent before the first event, so its headers come with the end).
    const text = fetch(`${base}/orders/events`, { headers: { accept: 'text/event-stream', authorization: 'Bearer good' } }).then((res) => res.text());
    await eventually(() => bus.subscribers('orders') === subscribers.length + 1, 'every protocol to subscribe');
    closed = true;
    await app.close();
    // close() resolved after every handler ran its finally.
    expect(handlers.running).toBe(0);
    expect(bus.subscribers('orders')).toBe(0);
    expect(await text).toMatch(/retry: \d+\n\n$/);
    const endings = await Promise.all(subscribers.map((s) => s.refused));
    // SSE and GraphQL end (SSE with retry:, GraphQL with complete); gRPC ends UNAVAILABLE, which clients retry.
    expect(endings).toEqual(subscribers.map((_, i) => (i === subscribers.length - 1 ? { status: 503, message: expect.stringMatching(/shutting down/) as unknown } : undefined)));
  });
});
