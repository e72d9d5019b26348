// The HTTP benchmark suites: which servers and scenarios run together (in one alternating run),
// which servers the per-round ratio columns are taken against (`refs`), which overheads are
// computed (`overheads`: a scenario on a server against a base scenario/server, per round), and
// the issue's targets. `node http/run.mjs --suite <name>` runs one; gRPC has its own runner
// (grpc/run.mjs) because wrk cannot speak it.
//
// `groups` name a set of servers that a ref may stand for: per round and per figure, the best of
// them (highest req/s, lowest CPU/req), e.g. Mercurius with JIT on or off, whichever did better.
//
// targets(m) gets the measurements (see report.mjs: m.ratios, m.fmt, m.median, m.overheadVersus)
// and returns [{ target, measured, verdict }].

export const suites = [
  {
    name: 'core',
    issue: 2,
    title: 'REST core: static, :param, 3 middleware against raw node:http, Fastify, Hono, Koa',
    servers: ['fw', 'raw', 'fastify', 'hono', 'koa'],
    scenarios: ['static', 'param', 'mw3'],
    refs: ['raw', 'fastify'],
    defaults: { rounds: 3, duration: 2 },
    targets(m) {
      const out = [];
      const toRaw = m.ratios(['fw', 'static'], ['raw', 'static']);
      const cpuToRaw = m.ratios(['fw', 'static'], ['raw', 'static'], 'cpuUsPerRequest');
      out.push({ target: 'static JSON ≥ 0.9× raw node:http', measured: `${m.fmt(toRaw)}; CPU/req × raw ${m.fmt(cpuToRaw)}`, verdict: m.median(toRaw) >= 0.9 ? 'met' : 'not met' });
      const toFastify = m.ratios(['fw', 'static'], ['fastify', 'static']);
      out.push({ target: 'static JSON ≥ 1.2× Fastify', measured: m.fmt(toFastify), verdict: m.median(toFastify) >= 1.2 ? 'met' : 'not met' });
      for (const sc of ['param', 'mw3']) {
        const x = m.ratios(['fw', sc], ['fw', 'static']);
        const cpu = m.ratios(['fw', sc], ['fw', 'static'], 'cpuUsPerRequest');
        out.push({ target: `${sc} within 10% of static (req/s ratio ≥ 0.9)`, measured: `req/s ${m.fmt(x)}; CPU/req ${m.fmt(cpu)} of static`, verdict: m.median(x) >= 0.9 ? 'met' : 'not met' });
      }
      return out;
    },
  },
  {
    name: 'middleware',
    issue: 3,
    title: 'static JSON behind CORS + rate limit, as a ratio to the bare route: fw against Fastify',
    servers: ['fw-middleware', 'fastify-middleware'],
    scenarios: ['static', 'cors-rl'],
    overheads: [
      { label: 'fw: cors() + rateLimit()', test: ['fw-middleware', 'cors-rl'], base: ['fw-middleware', 'static'] },
      { label: 'Fastify: @fastify/cors + @fastify/rate-limit', test: ['fastify-middleware', 'cors-rl'], base: ['fastify-middleware', 'static'] },
    ],
    targets: (m) => [m.overheadVersus('our CORS + rate-limit overhead no larger than Fastify’s', 0, 1)],
  },
  {
    name: 'connect',
    issue: 'Connect + gRPC-Web',
    title: 'Connect unary calls (JSON and binary): fw protocols.connect against @connectrpc/connect-node connectNodeAdapter',
    servers: ['fw-connect', 'connect-node'],
    scenarios: ['connect-json', 'connect-proto'],
    refs: ['connect-node'],
    defaults: { rounds: 3, duration: 3 },
    targets(m) {
      const out = [];
      for (const sc of ['connect-json', 'connect-proto']) {
        const rps = m.ratios(['fw-connect', sc], ['connect-node', sc]);
        const cpu = m.ratios(['fw-connect', sc], ['connect-node', sc], 'cpuUsPerRequest');
        out.push({ target: `${sc}: ≥ 1.0× connect-node's req/s`, measured: m.fmt(rps), verdict: m.median(rps) >= 1 ? 'met' : 'not met' });
        out.push({ target: `${sc}: ≤ 1.0× connect-node's CPU per call`, measured: m.fmt(cpu), verdict: m.median(cpu) <= 1 ? 'met' : 'not met' });
      }
      return out;
    },
  },
  {
    name: 'compression',
    issue: 'HTTP features',
    title: 'a 10 KB JSON answer compressed: fw compress() against Fastify + @fastify/compress, each with its defaults',
    servers: ['fw-compress', 'fastify-compress'],
    scenarios: ['json10k-gzip', 'json10k-br'],
    refs: ['fastify-compress'],
    targets(m) {
      const cpu = m.ratios(['fw-compress', 'json10k-gzip'], ['fastify-compress', 'json10k-gzip'], 'cpuUsPerRequest');
      const rps = m.ratios(['fw-compress', 'json10k-gzip'], ['fastify-compress', 'json10k-gzip']);
      const brCpu = m.ratios(['fw-compress', 'json10k-br'], ['fastify-compress', 'json10k-br'], 'cpuUsPerRequest');
      return [
        { target: 'gzip: CPU/req ≤ 1.2× @fastify/compress', measured: `CPU/req × Fastify ${m.fmt(cpu)}; req/s × Fastify ${m.fmt(rps)}`, verdict: m.median(cpu) <= 1.2 ? 'met' : 'not met' },
        { target: 'brotli, both at quality 4 (their defaults; information)', measured: `CPU/req × Fastify ${m.fmt(brCpu)}`, verdict: 'no target' },
      ];
    },
  },
  {
    name: 'validation',
    issue: 4,
    title: 'POST with a 10-field JSON body: zod (fw) and JSON Schema (Fastify) validation against the same route without',
    servers: ['fw-validation', 'fastify-validation'],
    scenarios: ['post', 'post-validated'],
    overheads: [
      { label: 'fw: zod 4 via createHandler', test: ['fw-validation', 'post-validated'], base: ['fw-validation', 'post'] },
      { label: 'Fastify: JSON Schema (Ajv) via schema.body', test: ['fastify-validation', 'post-validated'], base: ['fastify-validation', 'post'] },
    ],
    targets(m) {
      const vs = m.overheadVersus('none (report honestly)', 0, 1);
      const cross = m.ratios(['fw-validation', 'post-validated'], ['fastify-validation', 'post-validated']);
      const crossCpu = m.ratios(['fw-validation', 'post-validated'], ['fastify-validation', 'post-validated'], 'cpuUsPerRequest');
      return [
        { ...vs, verdict: 'no target' },
        { target: 'validated route, fw against Fastify (information)', measured: `req/s × Fastify ${m.fmt(cross)}; CPU/req × Fastify ${m.fmt(crossCpu)}`, verdict: 'no target' },
      ];
    },
  },
  {
    name: 'graphql',
    issue: 5,
    title: "GraphQL over HTTP: fw (graphql-js; executor: 'jit') against Fastify + Mercurius (JIT off; on), GraphQL Yoga and a bare node:http + graphql-http handler",
    servers: ['fw-graphql', 'fw-graphql-jit', 'mercurius', 'mercurius-jit', 'yoga', 'graphql-http'],
    scenarios: ['gql-hello', 'gql-user', 'gql-vars', 'gql-mutation'],
    groups: [{ name: 'mercurius-best', label: 'best Mercurius (JIT off / on)', of: ['mercurius', 'mercurius-jit'] }],
    refs: ['mercurius-best', 'graphql-http'],
    targets(m) {
      const out = [];
      for (const sc of ['gql-hello', 'gql-vars']) {
        const x = m.ratios(['fw-graphql', sc], ['graphql-http', sc]);
        const cpu = m.ratios(['fw-graphql', sc], ['graphql-http', sc], 'cpuUsPerRequest');
        out.push({ target: `${sc}: ≥ 1.0× the bare graphql-http handler`, measured: `req/s ${m.fmt(x)}; CPU/req ${m.fmt(cpu)}`, verdict: m.verdict(m.median(x) >= 1, m.median(cpu) <= 1) });
      }
      for (const sc of ['gql-hello', 'gql-user', 'gql-vars', 'gql-mutation']) {
        const x = m.ratios(['fw-graphql', sc], ['mercurius-best', sc]);
        const cpu = m.ratios(['fw-graphql', sc], ['mercurius-best', sc], 'cpuUsPerRequest');
        const yoga = m.ratios(['fw-graphql', sc], ['yoga', sc]);
        out.push({ target: `${sc}: fw against the best Mercurius and Yoga (information)`, measured: `req/s × best Mercurius ${m.fmt(x)}; CPU/req × best Mercurius ${m.fmt(cpu)}; req/s × Yoga ${m.fmt(yoga)}`, verdict: 'no target' });
        // Like for like: graphql-js against Mercurius without JIT, compiled against Mercurius with it
        // (fw compiles only { hello } of these four; the others select a list or a non-null field
        // beside others and run on graphql-js: packages/graphql/README.md, "Compiled execution").
        const plain = m.ratios(['fw-graphql', sc], ['mercurius', sc]);
        const compiled = m.ratios(['fw-graphql-jit', sc], ['mercurius-jit', sc]);
        out.push({ target: `${sc}: fw (graphql-js) against Mercurius JIT off; fw (executor: 'jit') against Mercurius JIT on (information)`, measured: `req/s ${m.fmt(plain)}; ${m.fmt(compiled)}`, verdict: 'no target' });
      }
      return out;
    },
  },
  {
    name: 'tracing',
    issue: 7,
    title: 'static JSON with tracing on, as a ratio to tracing off: fw against Fastify + OpenTelemetry instrumentations',
    servers: ['fw', 'fw-traced', 'fastify', 'fastify-otel'],
    scenarios: ['static'],
    overheads: [
      { label: 'fw: observability.tracing', test: ['fw-traced', 'static'], base: ['fw', 'static'] },
      { label: 'Fastify: instrumentation-http + instrumentation-fastify', test: ['fastify-otel', 'static'], base: ['fastify', 'static'] },
    ],
    targets: (m) => [m.overheadVersus('our tracing overhead below the peer’s', 0, 1)],
  },
  {
    name: 'metrics',
    issue: 27,
    title: 'static JSON with metrics on, as a ratio to metrics off (fw defaults)',
    servers: ['fw', 'fw-metrics'],
    scenarios: ['static'],
    overheads: [{ label: 'fw: observability.metrics', test: ['fw-metrics', 'static'], base: ['fw', 'static'] }],
    targets(m) {
      const cpu = m.ratios(['fw-metrics', 'static'], ['fw', 'static'], 'cpuUsPerRequest');
      const rps = m.ratios(['fw-metrics', 'static'], ['fw', 'static']);
      return [
        { target: 'metrics on: ≤ 5% more CPU per request on the REST static route', measured: `CPU/req × off ${m.fmt(cpu)}; req/s × off ${m.fmt(rps)}`, verdict: m.median(cpu) <= 1.05 ? 'met' : 'not met' },
      ];
    },
  },
];
