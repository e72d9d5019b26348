/**
 * @fw/graphql — a GraphQL-over-HTTP endpoint for fw applications, answering as graphql-http does, with a
 * parsed-document cache, query limits, error mapping through GraphQL's column of the status table and an offline
 * GraphiQL playground.
 */
// graphql and the subscription libraries load with the first call of one of these, not with the package.
export { createGraphQLHandler, findSchemaChanges, graphqlPlugin } from './lazy.js';
export { DEFAULT_GRAPHQL_LIMITS, DEFAULT_GRAPHQL_PATH, validateGraphQLConfig } from './config.js';
export { GRAPHQL_CODE_OF_CODE, graphqlErrorCode } from './internal/errors.js';
// Also declares `graphql` on core's Operation, and `graphql` among core's ProtocolNames.
export type { OperationGraphQL } from './operations/binding.js';
export type {
  GraphQLConfig,
  GraphQLContextFactory,
  GraphQLDocumentCacheConfig,
  GraphQLExecutor,
  GraphQLHandler,
  GraphQLLimits,
  GraphQLLogger,
  GraphQLPlugin,
} from './types.js';
export type { GraphQLSchemaChange } from './operations/breaking.js';
// Subscriptions over server-sent events and WebSocket: their option type and defaults.
export { DEFAULT_GRAPHQL_SUBSCRIPTIONS } from './config.js';
export type { GraphQLSubscriptionsConfig } from './types.js';
