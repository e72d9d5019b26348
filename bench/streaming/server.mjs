// Streaming benchmark server: one topic of "tick" events fanned out to every subscriber. VARIANT:
//   fw         — fw: one streaming operation (`defineOperation({ stream: true })`) served as
//                server-sent events (GET /events), GraphQL subscriptions (graphql-sse and graphql-ws
//                on /graphql), a gRPC server stream (bench.Ticker/Ticks on GRPC_PORT) and the same
//                method as a Connect server stream (POST /bench.Ticker/Ticks on the HTTP port), fed
//                by fw's in-memory pub/sub;
//   yoga       — graphql-yoga on node:http, the same schema over GraphQL-over-SSE, fed by yoga's pub/sub;
//   mercurius  — Fastify + mercurius with `subscription: true` (WebSocket), fed by mercurius's pub/sub;
//   connect-node — @connectrpc/connect-node's connectNodeAdapter on node:http, serving the proto fw
//                generates for the same operation (`bench.Ticker/Ticks`, compiled by `buf build`,
//                http/servers/connect-shared.mjs) with a plain async generator handler, fed by the
//                same in-memory pub/sub as fw (connect-node has none of its own), so the two compare
//                the transports. fw serves the same method over Connect on its HTTP port.
// Every server answers POST /publish?n=N (publishes N events one after another, then answers),
// GET /subscribers (how many subscribers the topic has now) and POST /gc (a full collection, then
// the heap and external memory in use, for the memory figure; servers run with --expose-gc).
import http from 'node:http';
import { announce } from '../http/servers/ready.mjs';

const TYPE_DEFS = /* GraphQL */ `
  type Tick { n: Int!, at: String! }
  type Query { ping: String! }
  type Subscription { ticks: Tick! }
`;
const variant = process.env.VARIANT;

/** The routes every variant answers beside its subscriptions; `publish(data)` resolves once sent. */
function control(url, publish, subscribers) {
  if (url.startsWith('/publish')) {
    const n = Number(new URL(url, 'http://x').searchParams.get('n') ?? 1);
    return (async () => {
      for (let i = 0; i < n; i++) await publish({ n: i, at: new Date().toISOString() });
      return { published: n };
    })();
  }
  if (url === '/subscribers') return Promise.resolve({ subscribers: subscribers() });
  if (url === '/gc') {
    // Twice: the first pass lets finalizers run, the second frees what they released.
    globalThis.gc?.();
    globalThis.gc?.();
    const { heapUsed, external } = process.memoryUsage();
    return Promise.resolve({ gc: typeof globalThis.gc === 'function', heapUsed, external });
  }
  return undefined;
}

if (variant === 'fw') {
  const { createApp, tracked } = await import('@fw/app');
  const { createPubSub } = await import('@fw/app/middleware');
  const pubsub = createPubSub({ replay: { size: 0 } });
  const grpcPort = Number(process.env.GRPC_PORT);
  const app = createApp({
    protocols: { graphql: {}, grpc: { port: grpcPort, host: '127.0.0.1' }, connect: true },
    // The benchmark opens many streams from one address.
    streams: { maxPerClient: 100_000, maxOpen: 100_000 },
  });
  const { pingOperation, ticksOperation } = await import('./operation.mjs');
  app.operation(
    await ticksOperation(async function* (_input, ctx) {
      for await (const message of pubsub.subscribe('ticks', { signal: ctx.signal })) yield tracked(message.id, message.data);
    }),
  );
  // A schema needs a query type, as the peers' schema has one.
  app.operation(await pingOperation());
  for (const path of ['/publish', '/subscribers', '/gc']) {
    app.post(path, async (ctx) => ctx.json(await control(ctx.req.url, (data) => pubsub.publish('ticks', data), () => pubsub.subscribers('ticks'))));
    app.get(path, async (ctx) => ctx.json(await control(ctx.req.url, (data) => pubsub.publish('ticks', data), () => pubsub.subscribers('ticks'))));
  }
  await app.listen(0, '127.0.0.1');
  announce(app.server.address().port, ['sse', 'graphql-sse', 'graphql-ws', 'grpc', 'connect', 'connect-proto']);
} else if (variant === 'yoga') {
  const { createPubSub, createSchema, createYoga } = await import('graphql-yoga');
  const pubsub = createPubSub();
  let subscribers = 0;
  const yoga = createYoga({
    logging: false,
    graphiql: false,
    schema: createSchema({
      typeDefs: TYPE_DEFS,
      resolvers: {
        Query: { ping: () => 'pong' },
        Subscription: {
          ticks: {
            subscribe: async function* () {
              subscribers++;
              try {
                yield* pubsub.subscribe('ticks');
              } finally {
                subscribers--;
              }
            },
            resolve: (tick) => tick,
          },
        },
      },
    }),
  });
  const server = http.createServer((req, res) => {
    const answer = control(req.url, async (data) => pubsub.publish('ticks', data), () => subscribers);
    if (answer === undefined) return yoga(req, res);
    answer.then((body) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body)));
  });
  server.listen(0, '127.0.0.1', () => announce(server.address().port, ['graphql-sse']));
} else if (variant === 'mercurius') {
  const { default: Fastify } = await import('fastify');
  const { default: mercurius } = await import('mercurius');
  const app = Fastify({ logger: false });
  let subscribers = 0;
  await app.register(mercurius, {
    schema: TYPE_DEFS,
    subscription: true,
    resolvers: {
      Query: { ping: () => 'pong' },
      Subscription: {
        ticks: {
          subscribe: async function* (_root, _args, { pubsub }) {
            subscribers++;
            try {
              for await (const tick of await pubsub.subscribe('ticks')) yield { ticks: tick };
            } finally {
              subscribers--;
            }
          },
        },
      },
    },
  });
  const route = async (req) => control(req.url, (data) => app.graphql.pubsub.publish({ topic: 'ticks', payload: data }), () => subscribers);
  app.post('/publish', route);
  app.get('/subscribers', route);
  app.post('/gc', route);
  await app.listen({ port: 0, host: '127.0.0.1' });
  announce(app.server.address().port, ['graphql-ws']);
} else if (variant === 'connect-node') {
  const { connectNodeAdapter } = await import('@connectrpc/connect-node');
  const { createPubSub } = await import('@fw/app/middleware');
  const { catalogService } = await import('../http/servers/connect-shared.mjs');
  const { ticksOperation } = await import('./operation.mjs');
  const pubsub = createPubSub({ replay: { size: 0 } });
  const service = catalogService({ operations: [await ticksOperation()], service: 'bench.Ticker' });
  const handler = connectNodeAdapter({
    routes(router) {
      router.service(service, {
        // TicksResponse { tick: Tick }: the message fw's generated proto wraps each event in.
        async *ticks(_request, ctx) {
          for await (const message of pubsub.subscribe('ticks', { signal: ctx.signal })) yield { tick: message.data };
        },
      });
    },
  });
  const server = http.createServer((req, res) => {
    const answer = control(req.url, (data) => pubsub.publish('ticks', data), () => pubsub.subscribers('ticks'));
    if (answer === undefined) return handler(req, res);
    answer.then((body) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body)));
  });
  server.listen(0, '127.0.0.1', () => announce(server.address().port, ['connect', 'connect-proto']));
} else {
  throw new Error(`VARIANT must be fw, yoga, mercurius or connect-node (got ${variant})`);
}
