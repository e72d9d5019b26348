import type { PluginHost } from '@fw/core/plugin';
import { resolveGraphQLConfig } from './config.js';
import { createEndpoint } from './handler.js';
import type { GraphQLConfig, GraphQLPlugin } from './types.js';

/**
 * The GraphQL protocol plugin. Registered on an application, it answers GraphQL over HTTP on
 * `path` (after the app's global middleware: cors, logger, rateLimit, authenticate all apply, and
 * `ctx.protocol` is `graphql`), and serves the bundled GraphiQL when `playground` is on. Errors
 * thrown on `path`, by middleware too, are answered as GraphQL responses (`{ errors }`).
 * The configuration is checked here, so a bad one fails when the app is built.
 * @example
 * const app = new Application();
 * app.register(graphqlPlugin({ schema, context: (req, ctx) => ({ user: ctx.user }) }));
 * await app.listen(4000);
 */
export function graphqlPlugin<TContext = unknown>(config: GraphQLConfig<TContext>): GraphQLPlugin {
  const endpoint = createEndpoint(resolveGraphQLConfig(config));
  const { path, schema } = endpoint.config;
  return {
    name: 'graphql',
    path,
    handler: endpoint.handler,
    getSchema: () => schema,
    setup(host: PluginHost): void {
      endpoint.attach(host);
      // Outside all global middleware: a 429 from rateLimit(), a 401 from authenticate or a 413
      // from a body read becomes a GraphQL response ({ errors }) with its status and headers.
      host.wrap(endpoint.guard);
      host.claimPath(path, endpoint.handler, { protocol: 'graphql' });
      const playground = endpoint.playground;
      if (playground !== undefined) {
        // The GraphiQL files are plain HTTP, on exact paths under the endpoint.
        for (const assetPath of playground.assetPaths) host.claimPath(assetPath, playground.asset, { protocol: 'http' });
      }
    },
  };
}
