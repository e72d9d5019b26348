// The start-up cases: what a fresh process imports, and how it creates the application. Each
// `load()` does every import the case needs (timed as "import"); `create(mods)` builds the app
// from them (timed as "create"), including what a user builds first (the GraphQL schema). Every
// case's app can `listen(0, '127.0.0.1')` and `close()`; the `node` case creates nothing.
import { fileURLToPath } from 'node:url';

const PROTO_PATH = fileURLToPath(new URL('../grpc/bench.proto', import.meta.url));
const SDL = `
  type Query { hello: String!, user(id: ID!): User }
  type User { id: ID!, name: String! }
`;
const rootValue = { hello: () => 'world', user: ({ id }) => ({ id, name: `User ${id}` }) };
const grpc = () => ({
  port: 0,
  host: '127.0.0.1',
  protoPath: PROTO_PATH,
  services: { 'bench.Greeter': { SayHello: (call, callback) => callback(null, { message: `Hello ${call.request.name}` }) } },
});
// A span exporter that drops everything (the tracing suite's, without importing @opentelemetry/api).
const noopExporter = () => ({ export: (_spans, done) => done({ code: 0 }), shutdown: async () => {}, forceFlush: async () => {} });
const tracing = () => ({ enabled: true, serviceName: 'bench-startup', exporter: noopExporter() });

const app = () => import('@fw/app');
const appAndGraphql = async () => ({ ...(await import('@fw/app')), graphql: await import('graphql') });

export const cases = [
  {
    name: 'node',
    label: 'node alone (nothing imported; the floor)',
    load: async () => ({}),
    create: () => null,
  },
  {
    name: 'core',
    label: '@fw/core: new Application()',
    load: () => import('@fw/core'),
    create: ({ Application }) => new Application(),
  },
  {
    name: 'app-rest',
    label: '@fw/app: createApp() (REST only)',
    load: app,
    create: ({ createApp }) => createApp(),
  },
  {
    name: 'app-graphql',
    label: '@fw/app: protocols.graphql (2-type schema, buildSchema included)',
    load: appAndGraphql,
    create: ({ createApp, graphql }) => createApp({ protocols: { graphql: { schema: graphql.buildSchema(SDL), rootValue } } }),
  },
  {
    name: 'app-grpc',
    label: '@fw/app: protocols.grpc (1-method proto, protoPath)',
    load: app,
    create: ({ createApp }) => createApp({ protocols: { grpc: grpc() } }),
  },
  {
    name: 'app-tracing',
    label: '@fw/app: observability.tracing (SDK, no-op exporter)',
    load: app,
    create: ({ createApp }) => createApp({ observability: { tracing: tracing() } }),
  },
  {
    name: 'app-all',
    label: '@fw/app: graphql + grpc + tracing',
    load: appAndGraphql,
    create: ({ createApp, graphql }) =>
      createApp({ protocols: { graphql: { schema: graphql.buildSchema(SDL), rootValue }, grpc: grpc() }, observability: { tracing: tracing() } }),
  },
];
