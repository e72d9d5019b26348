import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { createApp, type App, type Middleware } from '@fw/app';
import { authenticate, cors, logger, rateLimit, RedisStore, type RateLimitStore } from '@fw/app/middleware';
import type { MetricsPlugin } from '@fw/app/metrics';
import { openapiPlugin } from '@fw/app/openapi';
import { CONNECT_CORS_ALLOWED_HEADERS, CONNECT_CORS_EXPOSED_HEADERS } from '@fw/app/connect';
import { errorBody, toHTTPError } from '@fw/app/core';
import { isClientGone } from '@fw/core/plugin';
import { demoVerifier, mintToken, requireAuth } from './auth.js';
import type { DemoConfig } from './config.js';
import { InMemoryRepository, SEED } from './domain/repository.js';
import { Store } from './domain/store.js';
import { LiveEvents } from './live.js';
import { bookstoreOperations } from './operations.js';
import { restV1 } from './rest/v1.js';
import { restV2 } from './rest/v2.js';

/** Where the `.proto` generated from the operations is kept (committed; `pnpm emit` writes it). */
export const PROTO_DIR = fileURLToPath(new URL('../proto', import.meta.url));

/** The health check, exempt from rate limiting. */
export const HEALTH_PATH = '/healthz';

export interface RunningDemo {
  app: App;
  store: Store;
  live: LiveEvents;
  /** The REST base URL to open (http://localhost:3000 when every interface is bound). */
  restUrl: string;
  graphqlUrl: string;
  grpcTarget: string;
  /** The Prometheus text of the app's metrics. */
  metricsUrl: string;
  /** A token for the seeded admin (write routes), and one for a plain customer. */
  adminToken: string;
  customerToken: string;
  close(): Promise<void>;
}

/**
 * The application's own error middleware (the conventional try/catch around `next`): the
 * standard body plus a request id, and unexpected errors logged with the id. A request whose
 * client cancelled or left goes on to the framework, which records it without an error.
 */
function errorMiddleware(log: (line: string) => void): Middleware {
  let counter = 0;
  return async function errors(ctx, next) {
    const requestId = typeof ctx.headers['x-request-id'] === 'string' ? ctx.headers['x-request-id'] : `req-${(++counter).toString(36)}`;
    ctx.setHeader('x-request-id', requestId);
    try {
      await next();
    } catch (err) {
      // A client that cancelled or left is not a server fault: nothing to log, no one to answer.
      if (isClientGone(err, ctx)) throw err;
      const error = toHTTPError(err);
      if (error.statusCode >= 500) log(`[${requestId}] ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      if (error.headers) for (const [key, value] of Object.entries(error.headers)) ctx.setHeader(key, value);
      ctx.json({ ...errorBody(error), requestId }, error.statusCode);
    }
  };
}

/** What GraphiQL opens on at /graphql: a catalogue query, and where the token of the order calls goes. */
export const PLAYGROUND_QUERY = `# The fw demo bookstore. Run this with the ▶ button (or Ctrl+Enter).
# The order calls (myOrders, placeOrder, subscription orderEvents) need the customer token the
# demo printed: open Headers below and put { "authorization": "Bearer <customer token>" }
query Books {
  listBooks(limit: 3) {
    id
    title
    author
    priceCents
    stock
  }
}
`;

/**
 * Builds the demo application: one app, three protocols, the same store behind each, and the live
 * events of `live` (which the store publishes to) served as streams on each. Does not listen;
 * `listen()` without arguments binds `config.port` and `config.host` (what `fw start` does).
 * `stopped` runs once a signal has shut it down, just before the process exits.
 */
export function buildDemoApp(store: Store, live: LiveEvents, config: DemoConfig, stopped?: () => void): App {
  const verifier = demoVerifier(config.jwtSecret);
  const limits = rateLimitStore(config);
  const app = createApp({
    adapter: { type: 'node-http' },
    // `fw start dist/app.js` listens where these say: PORT (3000) and HOST, as `node dist/main.js` does.
    port: config.port,
    host: config.host,
    // SIGTERM or Ctrl+C (node dist/main.js or an fw start worker): not ready, the delay, the drain;
    // then the live events' pub/sub and the Redis connection close.
    shutdown: {
      delay: config.shutdownDelay,
      beforeExit: async () => {
        await live.close();
        await limits.close();
        stopped?.();
      },
    },
    observability: {
      tracing: { enabled: true, serviceName: 'fw-demo', exporter: config.tracingExporter },
      // Prometheus text at GET /metrics (summed over every worker under fw start).
      metrics: { enabled: true, serviceName: 'fw-demo' },
    },
    protocols: {
      // No schema: it is generated from the operations (schemas/schema.graphql).
      graphql: { playground: { defaultQuery: PLAYGROUND_QUERY } },
      grpc: {
        port: config.grpcPort,
        // The HTTP server's interface unless GRPC_HOST says otherwise: 0.0.0.0 in the container.
        host: config.grpcHost,
        // No .proto of our own: bookstore.proto is generated from the operations; its field numbers
        // are read back from the committed file, so they never change.
        protoOut: PROTO_DIR,
        // grpcurl-style tooling (grpcurl list / describe) works without the proto file.
        reflection: true,
        // The app's global middleware (rate limit, optional authentication) runs for gRPC calls too.
        middleware: 'global',
      },
      // The same gRPC methods on the HTTP port, over Connect and gRPC-Web, for browsers and curl
      // (field numbers from protoOut above).
      connect: true,
    },
  });

  // traceparent/tracestate: browser clients propagate their trace into the demo's spans.
  // The Connect and gRPC-Web headers too: browser clients of /bookstore.Catalog/* send and read them.
  app.use(
    cors({
      origin: '*',
      allowedHeaders: ['Content-Type', 'Authorization', 'traceparent', 'tracestate', ...CONNECT_CORS_ALLOWED_HEADERS],
      exposedHeaders: ['x-request-id', 'traceparent', 'x-ratelimit-remaining', ...CONNECT_CORS_EXPOSED_HEADERS],
    }),
  );
  if (config.logRequests) app.use(logger());
  app.use(errorMiddleware((line) => console.error(line)));
  // Health checks are never limited: a load balancer probing /healthz must not take the app out.
  app.use(rateLimit({ windowMs: 60_000, maxRequests: config.rateLimitMax, store: limits.store, skip: (ctx) => ctx.path === HEALTH_PATH }));
  // Fills ctx.user when a token is sent (every protocol); routes that need one say so below.
  app.use(authenticate({ verifier, optional: true }));

  // Answers 401 without a verified user (the global authenticate above verified any token sent).
  const auth = requireAuth(verifier);
  app.get('/', (ctx) =>
    ctx.json({
      service: 'fw demo bookstore',
      rest: ['/api/v1/books', '/api/v2/books'],
      graphql: app.getProtocolManager()?.getGraphQLPath(),
      grpc: app.getProtocolManager()?.getGrpcAddress()?.target,
    }),
  );
  app.get(HEALTH_PATH, (ctx) => ctx.json({ ok: true }));
  // The catalogue reads and the orders: one definition each, served on REST, GraphQL and gRPC.
  for (const operation of bookstoreOperations(store, auth, live)) app.operation(operation);
  app.use('/api/v1', restV1(store, auth));
  app.use('/api/v2', restV2(store));

  // API documentation: /openapi.json (both versions), one document per version, Swagger UI at /docs.
  const info = { title: 'fw demo bookstore', version: '1.0.0', description: 'The REST side of the demo; the same store serves GraphQL and gRPC.' };
  app.register(
    openapiPlugin({
      info,
      include: (route) => route.path.startsWith('/api/'),
      documents: [
        { name: 'v1', path: '/api/v1/openapi.json', prefix: '/api/v1', info },
        { name: 'v2', path: '/api/v2/openapi.json', prefix: '/api/v2', info: { ...info, version: '2.0.0' } },
      ],
    }),
  );
  return app;
}

/**
 * Where the rate limit keeps its counts: in Redis when REDIS_URL is set, so that the workers of
 * `fw start --workers N` and every replica share one limit (the memory store refuses to run in a
 * cluster worker, where each process would allow the whole limit); otherwise in memory (the
 * rateLimit default), for the single process of `node dist/main.js`.
 */
export function rateLimitStore(config: Pick<DemoConfig, 'redisUrl'>): { store: RateLimitStore | undefined; close: () => Promise<void> } {
  if (config.redisUrl === undefined) return { store: undefined, close: async () => {} };
  // lazyConnect: building the app (fw emit) opens no connection; the first request does.
  const client = new Redis(config.redisUrl, { lazyConnect: true });
  return {
    store: new RedisStore({ client, prefix: 'fw-demo:rl:' }),
    close: async () => {
      await client.quit().catch(() => client.disconnect());
    },
  };
}

/** Starts the demo: seeded store, app, HTTP and gRPC listeners, demo tokens. */
export async function startDemo(config: DemoConfig): Promise<RunningDemo> {
  const live = new LiveEvents((line) => console.log(line));
  const store = new Store(new InMemoryRepository(SEED), live.events);
  const app = buildDemoApp(store, live, config, () => console.log('demo stopped'));
  const info = await app.listen();
  const manager = app.getProtocolManager()!;
  const [admin, customer] = SEED.users;
  const metrics = app.getPlugin<MetricsPlugin>('metrics');
  return {
    app,
    store,
    live,
    restUrl: info.localUrl,
    graphqlUrl: `${info.localUrl}${manager.getGraphQLPath()}`,
    grpcTarget: manager.getGrpcAddress()!.target,
    metricsUrl: `${info.localUrl}${metrics?.path ?? '/metrics'}`,
    adminToken: await mintToken(admin!, config.jwtSecret),
    customerToken: await mintToken(customer!, config.jwtSecret),
    // The app's close ends every open stream (SSE `retry:`, GraphQL `complete`, gRPC UNAVAILABLE)
    // and waits for their handlers' `finally`; then the pub/sub lets go.
    close: () => app.close().then(() => live.close()),
  };
}
