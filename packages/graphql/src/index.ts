/**
 * @fw/graphql — a GraphQL-over-HTTP endpoint for fw applications, built on graphql-http, with a
 * parsed-document cache, query limits, error mapping through core's status table and an offline
 * GraphiQL playground.
 */
export { graphqlPlugin } from './plugin.js';
export { createGraphQLHandler } from './handler.js';
export { DEFAULT_GRAPHQL_LIMITS, DEFAULT_GRAPHQL_PATH, validateGraphQLConfig } from './config.js';
export type {
  GraphQLConfig,
  GraphQLContextFactory,
  GraphQLDocumentCacheConfig,
  GraphQLHandler,
  GraphQLLimits,
  GraphQLLogger,
  GraphQLPlugin,
} from './types.js';
