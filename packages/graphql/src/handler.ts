import { createLogger } from '@fw/core/plugin';
import { resolveGraphQLConfig } from './config.js';
import { createEndpoint } from './endpoint/endpoint.js';
import { fixedSource } from './operations/source.js';
import type { GraphQLConfig, GraphQLHandler } from './types.js';

/** The implementation of `createGraphQLHandler`: the package exports ./lazy.ts's, which loads this on its first call. */
export function createGraphQLHandler<TContext = unknown>(config: GraphQLConfig<TContext>): GraphQLHandler {
  const resolved = resolveGraphQLConfig(config);
  if (resolved.schema === undefined) {
    throw new TypeError('createGraphQLHandler: `schema` is required (a GraphQLSchema); a schema generated from operations is served by graphqlPlugin.');
  }
  // Escaped, and safe to call: a throwing onLog never fails a request. JSON depth: core's default.
  return createEndpoint(resolved, fixedSource(resolved.schema), { log: createLogger(resolved.onLog), maxJsonDepth: () => undefined }).handler;
}
