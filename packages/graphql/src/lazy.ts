// The functions of this package that need graphql (and graphql-ws, graphql-sse and ws): each is
// this package's own function, and loads its implementation (internal/implementation.ts, which
// loads graphql) on its first call. Importing @fw/graphql, as @fw/app's root does for every app,
// loads none of those libraries: a REST-only app never pays for them.
import type * as Implementation from './internal/implementation.js';
import type { GraphQLSchemaChange } from './operations/breaking.js';
import type { GraphQLConfig, GraphQLHandler, GraphQLPlugin } from './types.js';

let implementation: typeof Implementation | undefined;
// eslint-disable-next-line @typescript-eslint/no-require-imports -- synchronous on purpose: createApp and plugin factories are synchronous
const load = (): typeof Implementation => (implementation ??= require('./internal/implementation.js') as typeof Implementation);

/**
 * The GraphQL protocol plugin. Registered on an application, it answers GraphQL over HTTP on
 * `path` (after the app's global middleware: cors, logger, rateLimit, authenticate all apply, and
 * `ctx.protocol` is `graphql`), and serves the bundled GraphiQL when `playground` is on. Errors
 * thrown on `path`, by middleware too, are answered as GraphQL responses (`{ errors }`).
 * The configuration is checked here, so a bad one fails when the app is built.
 *
 * The operations registered on the app that name `graphql` (`app.operation(op)`) are served as
 * fields of the schema's query and mutation types; without a `schema` (or with `true`), the
 * schema is generated from them alone. An operation that cannot be served (a name clash, a type
 * GraphQL cannot express) makes `app.operation()` throw; `listen()` fails when there is nothing
 * to serve.
 * @example
 * const app = new Application();
 * app.register(graphqlPlugin({ schema, context: (req, ctx) => ({ user: ctx.user }) }));
 * await app.listen(4000);
 */
export function graphqlPlugin<TContext = unknown>(config: GraphQLConfig<TContext> | true): GraphQLPlugin {
  return load().graphqlPlugin(config);
}

/**
 * Creates the GraphQL-over-HTTP request handler for a configuration: a middleware to mount on the
 * endpoint path yourself, from a plugin of your own (`graphqlPlugin` does this with `claimPath`).
 * Without `onLog` it logs to stderr, as core's default log does.
 * @example
 * app.register({ name: 'api', setup: (host) => host.claimPath('/api/graphql', createGraphQLHandler({ schema }), { protocol: 'graphql' }) });
 */
export function createGraphQLHandler<TContext = unknown>(config: GraphQLConfig<TContext>): GraphQLHandler {
  return load().createGraphQLHandler(config);
}

/**
 * The differences between two GraphQL schemas (SDL): what breaks existing operations, as
 * graphql-js's `findBreakingChanges` says (a removed type, field, argument or enum value, a changed
 * type, an argument or input field that became required, an output field that became nullable);
 * what is dangerous, as graphql-inspector classes it (an enum value, union member or interface
 * added, an optional argument or an input field with a default added, a default changed, a
 * directive no longer repeatable); then what was added (types, output fields), which is safe. A
 * standard scalar no longer referenced is not reported: every schema has it. Breaking changes come
 * first, then dangerous ones.
 * @example
 * const changes = findSchemaChanges(committedSdl, printSchema(schema));
 * const breaking = changes.filter((change) => change.breaking);
 */
export function findSchemaChanges(before: string, after: string): GraphQLSchemaChange[] {
  return load().findSchemaChanges(before, after);
}
