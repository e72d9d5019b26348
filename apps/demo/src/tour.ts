import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { mintToken } from './auth.js';
import { createClient as createBookstoreClient } from './client.js';
import { readConfig } from './config.js';
import { SEED } from './domain/repository.js';
import { PROTO_DIR } from './server.js';

// A first look at every protocol against a running demo: one real call each (REST, GraphQL, gRPC,
// Connect), then the same live order event received on three (server-sent events, a GraphQL
// subscription, a gRPC stream).
const config = readConfig();
const base = process.env.DEMO_URL ?? `http://${config.host}:${config.port}`;
const grpcTarget = process.env.DEMO_GRPC ?? `${config.host}:${config.grpcPort}`;
const token = await mintToken(SEED.users[1]!, config.jwtSecret);

// Without a running demo the first call would end in fetch's bare `TypeError: fetch failed`
// (ECONNREFUSED in its cause): say what is wrong and what to run instead.
try {
  await fetch(`${base}/livez`, { signal: AbortSignal.timeout(5000) });
} catch (err) {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause;
  const why = typeof cause?.message === 'string' ? cause.message : err instanceof Error ? err.message : String(err);
  console.error(`The demo is not running at ${base} (${why}).
Start it in another terminal, then run the tour again:
  npx -y pnpm@10.34.9 demo
(DEMO_URL and DEMO_GRPC point the tour at a demo elsewhere.)`);
  process.exit(1);
}

const show = (title: string, value: unknown): void => console.log(`\n── ${title}\n${typeof value === 'string' ? value : JSON.stringify(value, null, 2)}`);

// REST, through the typed client `fw emit --client` generated from the operations (client.ts):
// one method per operation, the route, the query and the body are its business.
const shop = createBookstoreClient({ baseUrl: base, headers: () => ({ authorization: `Bearer ${token}` }) });
show('REST  client.listBooks({ genre: "fiction", limit: 2 }) → GET /api/v1/books?genre=fiction&limit=2', await shop.listBooks({ genre: 'fiction', limit: 2 }));

// GraphQL: a query takes flat arguments
const gql = await fetch(`${base}/graphql`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
  body: JSON.stringify({ query: 'query Tour($genre: Genre) { listBooks(genre: $genre, limit: 2) { title author stock } myOrders { id totalCents } }', variables: { genre: 'science' } }),
});
show(`GraphQL  query Tour (as ${SEED.users[1]!.name}) → ${gql.status}`, await gql.json());

// gRPC, with the .proto generated from the operations: proto-loader with keepCase reads its
// lower_snake_case fields (price_cents); enums by name, int64 as numbers.
type Catalog = grpc.Client & Record<string, (...args: unknown[]) => unknown>;
const definition = protoLoader.loadSync(join(PROTO_DIR, 'bookstore', 'bookstore.proto'), { keepCase: true, longs: Number, enums: String, defaults: true });
const { bookstore } = grpc.loadPackageDefinition(definition) as unknown as { bookstore: { Catalog: new (target: string, credentials: grpc.ChannelCredentials) => Catalog } };
const client = new bookstore.Catalog(grpcTarget, grpc.credentials.createInsecure());
const unary = <T>(method: string, request: object): Promise<T> =>
  new Promise((resolve, reject) => client[method]!(request, (err: Error | null, reply: T) => (err ? reject(err) : resolve(reply))));
const { book } = await unary<{ book: unknown }>('GetBook', { id: 'b1' });
show(`gRPC  bookstore.Catalog/GetBook { id: "b1" } at ${grpcTarget} → GetBookResponse.book`, book);
const page = await unary<{ items: Array<{ title: string }> }>('ListBooks', { genre: 'GENRE_FICTION' });
show('gRPC  bookstore.Catalog/ListBooks { genre: GENRE_FICTION }', page.items.map((b) => b.title));

// Connect on the HTTP port: the same RPC as a browser calls it (connect-web, or curl), in
// canonical proto3 JSON: lowerCamelCase names, enums by name, int64 as strings.
const connect = await fetch(`${base}/bookstore.Catalog/GetBook`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: 'b1' }) });
show(`Connect  POST /bookstore.Catalog/GetBook {"id":"b1"} (Content-Type: application/json) → ${connect.status}`, await connect.json());

// Live: the caller's order events, followed on all three protocols at once.
const within = <T>(what: string, promise: Promise<T>): Promise<T> =>
  Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what}: no event within 5 s`)), 5000).unref())]);

// 1. Server-sent events, read as `curl -N` shows them (the frames as they arrive).
const sseStop = new AbortController();
const sseFrame = (async () => {
  const res = await fetch(`${base}/api/v1/orders/events`, { headers: { accept: 'text/event-stream', authorization: `Bearer ${token}` }, signal: sseStop.signal });
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    text += decoder.decode(chunk, { stream: true });
    const frame = text.split('\n\n').find((f) => f.includes('data:'));
    if (frame !== undefined) return `HTTP ${res.status} ${res.headers.get('content-type')}\n${frame}`;
  }
  throw new Error('the event stream ended without an event');
})();

// 2. A GraphQL subscription over WebSocket (graphql-ws), the token in connection_init.
const ws = createClient({ url: `${base.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: { token } });
const subscription = ws.iterate<{ orderEvents: unknown }>({ query: 'subscription { orderEvents { eventId orderId status totalCents } }' });
const gqlEvent = subscription.next();

// 3. A gRPC server stream, the token as metadata.
const metadata = new grpc.Metadata();
metadata.set('authorization', `Bearer ${token}`);
const stream = client.OrderEvents!({}, metadata) as grpc.ClientReadableStream<{ order_event: unknown }>;
stream.on('error', () => undefined); // the CANCELLED of leaving below
const grpcEvent = new Promise<unknown>((resolve) => stream.once('data', (message: { order_event: unknown }) => resolve(message.order_event)));

// The three streams open; then one order, placed over REST.
await new Promise((resolve) => setTimeout(resolve, 500));
const placed = await shop.placeOrder({ lines: [{ bookId: 'b4', quantity: 1 }] });
show('REST  client.placeOrder({ lines: [{ bookId: "b4", quantity: 1 }] }) → POST /api/v1/orders', placed);
show('SSE   GET /api/v1/orders/events (curl -N)', await within('SSE', sseFrame));
show('GraphQL  subscription { orderEvents } over graphql-ws', (await within('GraphQL', gqlEvent)).value);
show('gRPC  bookstore.Catalog/OrderEvents (server stream) → OrderEventsResponse.order_event', await within('gRPC', grpcEvent));

// Leaving ends each stream's handler on the server (its finally runs).
sseStop.abort();
await subscription.return?.();
await ws.dispose();
stream.cancel();
client.close();
