import * as grpc from '@grpc/grpc-js';
import { EventSource } from 'eventsource';
import { createClient as createSseClient } from 'graphql-sse';
import { createClient as createWsClient } from 'graphql-ws';
import WebSocket from 'ws';
import type { CatalogClient } from './grpc-client.js';

// One live subscription on each protocol, read by the client its users use: the `eventsource`
// package for server-sent events, graphql-sse's and graphql-ws's clients for GraphQL, grpc-js for
// the gRPC server streams of the generated proto.

/** An event as every protocol's client reads it, its fields under their schema names. */
export type LiveEvent = Record<string, unknown> & { eventId: string };

/** What a client was told instead of events: a status (gRPC codes and WebSocket close codes as their HTTP status) and the message. */
export interface Refusal {
  status: number;
  message: string;
}

/** One subscription: the events as they arrive, the refusal or end, and how to leave. */
export interface Subscriber {
  readonly protocol: 'sse' | 'graphql-sse' | 'graphql-ws' | 'grpc';
  readonly events: LiveEvent[];
  /** Settles with the refusal, or undefined when the stream ended without one. */
  readonly ended: Promise<Refusal | undefined>;
  leave(): void;
}

/** Which stream and with what: the input uses the schema's names (`orderId`, `bookId`). */
export interface LiveRequest {
  operation: 'orderEvents' | 'stockEvents';
  input?: { orderId?: string; bookId?: string };
  token?: string;
  lastEventId?: string;
}

const SSE_PATH = { orderEvents: '/api/v1/orders/events', stockEvents: '/api/v1/books/events' } as const;
const FIELDS = { orderEvents: 'eventId orderId status totalCents at', stockEvents: 'eventId bookId title stock reason' } as const;
const GRPC_TO_HTTP: Record<number, number> = {
  [grpc.status.INVALID_ARGUMENT]: 400,
  [grpc.status.UNAUTHENTICATED]: 401,
  [grpc.status.PERMISSION_DENIED]: 403,
  [grpc.status.RESOURCE_EXHAUSTED]: 429,
  [grpc.status.UNAVAILABLE]: 503,
};
/** graphql-ws close codes for a refusal at connection_init, as the HTTP status they stand for. */
const CLOSE_TO_HTTP: Record<number, number> = { 4400: 400, 4401: 401, 4403: 403, 4429: 429 };

const auth = (token: string | undefined): Record<string, string> => (token === undefined ? {} : { authorization: `Bearer ${token}` });

/** REST: the `eventsource` package's EventSource, the token and Last-Event-ID sent through its fetch. */
export function sse(base: string, request: LiveRequest): Subscriber {
  const query = new URLSearchParams(Object.entries(request.input ?? {}).filter((e): e is [string, string] => e[1] !== undefined)).toString();
  const url = `${base}${SSE_PATH[request.operation]}${query === '' ? '' : `?${query}`}`;
  const headers = { ...auth(request.token), ...(request.lastEventId === undefined ? {} : { 'last-event-id': request.lastEventId }) };
  const source = new EventSource(url, { fetch: (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } }) });
  const events: LiveEvent[] = [];
  source.onmessage = (message) => {
    const event = JSON.parse(message.data) as LiveEvent;
    // The SSE id is the event's own: what EventSource sends back as Last-Event-ID when it reconnects.
    if (message.lastEventId !== event.eventId) throw new Error(`SSE id ${message.lastEventId} is not the event's ${event.eventId}`);
    events.push(event);
  };
  let left: () => void = () => undefined;
  const ended = new Promise<Refusal | undefined>((resolve) => {
    // close() fires no event: leaving ends the subscriber.
    left = () => resolve(undefined);
    source.onerror = async (error) => {
      source.close();
      if (error.code === undefined) return resolve(undefined);
      // EventSource says only the status: read the spec's error body once more.
      const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers } });
      resolve({ status: error.code, message: ((await res.json()) as { message: string }).message });
    };
  });
  return {
    protocol: 'sse',
    events,
    ended,
    leave: () => {
      source.close();
      left();
    },
  };
}

function subscription(request: LiveRequest): { query: string; variables: Record<string, unknown> } {
  const [name, type] = request.operation === 'orderEvents' ? ['orderId', 'String'] : ['bookId', 'String'];
  return { query: `subscription Live($${name}: ${type}) { ${request.operation}(${name}: $${name}) { ${FIELDS[request.operation]} } }`, variables: request.input ?? {} };
}

interface WireResult {
  readonly data?: Record<string, LiveEvent> | null;
  readonly errors?: ReadonlyArray<{ readonly message: string; readonly extensions?: { readonly status?: unknown } }>;
}

async function graphqlRefusal(err: unknown): Promise<Refusal> {
  const errors = Array.isArray(err) ? (err as WireResult['errors']) : (err as WireResult | undefined)?.errors;
  const first = errors?.[0];
  if (first !== undefined) return { status: Number(first.extensions?.status), message: first.message };
  const close = err as { code?: number; reason?: string } | undefined;
  if (typeof close?.code === 'number') return { status: CLOSE_TO_HTTP[close.code] ?? close.code, message: String(close.reason) };
  const response = (err as { response?: Response } | undefined)?.response;
  // graphql-sse's client gives the refused response: its body is the spec's error body.
  if (response !== undefined) return { status: response.status, message: ((await response.json().catch(() => ({}))) as { message?: string }).message ?? `HTTP ${response.status}` };
  return { status: 0, message: err instanceof Error ? err.message : String(err) };
}

function readResults(protocol: Subscriber['protocol'], operation: LiveRequest['operation'], results: AsyncIterableIterator<WireResult>, leave: () => void): Subscriber {
  const events: LiveEvent[] = [];
  const ended = (async (): Promise<Refusal | undefined> => {
    try {
      for await (const result of results) {
        if (result.errors !== undefined) return await graphqlRefusal(result.errors);
        events.push(result.data![operation]!);
      }
      return undefined;
    } catch (err) {
      return await graphqlRefusal(err);
    }
  })();
  return { protocol, events, ended, leave };
}

/** GraphQL over server-sent events: graphql-sse's client (distinct connections mode), the token as a header. */
export function graphqlSse(graphqlUrl: string, request: LiveRequest): Subscriber {
  const client = createSseClient({ url: graphqlUrl, headers: { ...auth(request.token), ...(request.lastEventId === undefined ? {} : { 'last-event-id': request.lastEventId }) }, retryAttempts: 0 });
  const results = client.iterate(subscription(request)) as AsyncIterableIterator<WireResult>;
  return readResults('graphql-sse', request.operation, results, () => {
    void results.return?.();
    client.dispose();
  });
}

/** GraphQL over WebSocket: graphql-ws's client on `ws`, the token in connection_init (browsers cannot set headers on a WebSocket). */
export function graphqlWs(graphqlUrl: string, request: LiveRequest): Subscriber {
  const client = createWsClient({
    url: graphqlUrl.replace(/^http/, 'ws'),
    webSocketImpl: WebSocket,
    connectionParams: request.token === undefined ? {} : { token: request.token },
    retryAttempts: 0,
  });
  const results = client.iterate(subscription(request)) as AsyncIterableIterator<WireResult>;
  return readResults('graphql-ws', request.operation, results, () => {
    void results.return?.();
    void client.dispose();
  });
}

/** gRPC: a grpc-js server stream; the event is the response's one field, with lower_snake_case names turned back into the schema's. */
export function rpc(client: CatalogClient, request: LiveRequest): Subscriber {
  const metadata = new grpc.Metadata();
  if (request.token !== undefined) metadata.set('authorization', `Bearer ${request.token}`);
  if (request.lastEventId !== undefined) metadata.set('last-event-id', request.lastEventId);
  const input = request.input ?? {};
  const call =
    request.operation === 'orderEvents'
      ? client.OrderEvents(input.orderId === undefined ? {} : { order_id: input.orderId }, metadata)
      : client.StockEvents(input.bookId === undefined ? {} : { book_id: input.bookId }, metadata);
  const events: LiveEvent[] = [];
  call.on('data', (message: Record<string, Record<string, unknown>>) => events.push(fromProto(Object.values(message)[0]!)));
  const ended = new Promise<Refusal | undefined>((resolve) => {
    call.on('error', (err: grpc.ServiceError) => resolve(err.code === grpc.status.CANCELLED ? undefined : { status: GRPC_TO_HTTP[err.code] ?? err.code, message: err.details }));
    call.on('end', () => resolve(undefined));
  });
  return { protocol: 'grpc', events, ended, leave: () => call.cancel() };
}

/** A message read with keepCase (`event_id`, `ORDER_STATUS_PLACED`) in the schema's terms (`eventId`, `placed`). */
function fromProto(message: Record<string, unknown>): LiveEvent {
  const event: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(message)) {
    const name = key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
    event[name] = key === 'status' || key === 'reason' ? String(value).replace(/^(ORDER_STATUS|STOCK_REASON)_/, '').toLowerCase() : value;
  }
  return event as LiveEvent;
}

/** The same subscription on every protocol. */
export function everywhere(endpoints: { rest: string; graphql: string }, client: CatalogClient, request: LiveRequest): Subscriber[] {
  return [sse(endpoints.rest, request), graphqlSse(endpoints.graphql, request), graphqlWs(endpoints.graphql, request), rpc(client, request)];
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `check` holds (polling), or fails naming `what`. */
export async function eventually(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(10);
  }
}
