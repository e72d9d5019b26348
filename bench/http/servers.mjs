// The servers the HTTP benchmarks load, each a file started as its own process. Which of them a
// run starts, and which are the ratio references, is the suite's business (suites.mjs).
export const servers = [
  // Core (issue 2); fw and fastify also serve the tracing suite's untraced side.
  { name: 'fw', label: 'fw (@fw/app createApp)', file: 'servers/fw.mjs' },
  { name: 'raw', label: 'raw node:http', file: 'servers/raw.mjs' },
  { name: 'fastify', label: 'Fastify', file: 'servers/fastify.mjs' },
  { name: 'hono', label: 'Hono (@hono/node-server)', file: 'servers/hono.mjs' },
  { name: 'koa', label: 'Koa + @koa/router', file: 'servers/koa.mjs' },
  // Middleware (issue 3): bare route and the route behind CORS + rate limit, in one process.
  { name: 'fw-middleware', label: 'fw (@fw/app)', file: 'servers/fw-middleware.mjs' },
  { name: 'fastify-middleware', label: 'Fastify', file: 'servers/fastify-middleware.mjs' },
  // Connect: one service over the Connect protocol, fw's transport against connect-node's adapter.
  { name: 'fw-connect', label: 'fw (@fw/app), protocols.connect', file: 'servers/fw-connect.mjs' },
  { name: 'connect-node', label: '@connectrpc/connect-node connectNodeAdapter on node:http', file: 'servers/connect-node.mjs' },
  // Compression: a 10 KB JSON answer behind compress() / @fastify/compress.
  { name: 'fw-compress', label: 'fw (@fw/app) + compress()', file: 'servers/fw-compress.mjs' },
  { name: 'fastify-compress', label: 'Fastify + @fastify/compress', file: 'servers/fastify-compress.mjs' },
  // Validation (issue 4): POST without and with body validation, in one process.
  { name: 'fw-validation', label: 'fw (@fw/app)', file: 'servers/fw-validation.mjs' },
  { name: 'fastify-validation', label: 'Fastify', file: 'servers/fastify-validation.mjs' },
  // GraphQL (issue 5).
  { name: 'fw-graphql', label: 'fw (@fw/app, protocols.graphql), graphql-js', file: 'servers/fw-graphql.mjs' },
  { name: 'fw-graphql-jit', label: "fw (@fw/app, protocols.graphql), executor: 'jit'", file: 'servers/fw-graphql-jit.mjs' },
  { name: 'graphql-http', label: 'bare node:http + graphql-http', file: 'servers/graphql-http.mjs' },
  { name: 'mercurius', label: 'Fastify + Mercurius, JIT off', file: 'servers/mercurius.mjs' },
  { name: 'mercurius-jit', label: 'Fastify + Mercurius, JIT on (jit: 1)', file: 'servers/mercurius-jit.mjs' },
  { name: 'yoga', label: 'GraphQL Yoga 5 (node:http)', file: 'servers/yoga.mjs' },
  // Tracing (issue 7): the core servers' twins with tracing on.
  { name: 'fw-traced', label: 'fw, tracing on (SDK, batch, no-op exporter)', file: 'servers/fw-traced.mjs' },
  { name: 'fastify-otel', label: 'Fastify + OTel http & fastify instrumentations (SDK, batch, no-op exporter)', file: 'servers/fastify-otel.mjs' },
  // Metrics: the core fw server's twin with observability.metrics on (Prometheus reader, admin port).
  { name: 'fw-metrics', label: 'fw, metrics on (SDK, Prometheus reader on an admin port)', file: 'servers/fw-metrics.mjs' },
];
