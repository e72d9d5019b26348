/**
 * @fw/app — `createApp`, `emit`, and every public name of the fw packages in one import: `@fw/core`
 * whole (routers, `HTTPError`, `compose`, `withMeta`, ...), and the functions and classes of
 * `@fw/middleware`, `@fw/validate`, `@fw/openapi`, `@fw/graphql`, `@fw/grpc`, `@fw/connect`, `@fw/tracing` and `@fw/metrics`
 * (`cors`, `authenticate`, `validate`, `defineOperation`, `describeRoute`, `MemoryStore`, ...), each
 * the very object its package exports. A REST-only app stays cheap to start because each package
 * is: graphql, the gRPC libraries and OpenTelemetry load only when an option or a first call needs
 * them. `@fw/app/<package>` (`@fw/app/middleware`, ...) re-exports one package whole, constants included.
 * @example
 * import { createApp, cors, validate, HTTPError } from '@fw/app';
 */
export { createApp } from './create-app.js';
export type { App, AppHealth, AppOptions, HealthCheck, HealthOptions, MetricsOptions, ProtocolManagerConfig, ReadinessReport, ShutdownOptions, TracingOptions } from './create-app.js';
export type { ProtocolManager } from './protocol-manager.js';
// emit and start load their implementation with their first call, not with the package.
export { emit, start } from './lazy.js';
export type { EmitKind, EmitOptions, EmitResult, EmitTarget, EmittedFile, SchemaChange } from './emit.js';

export {
  Application,
  compose,
  Context,
  createContextKey,
  deadlineExceeded,
  ERROR_CODE_STATUS,
  errorBody,
  errorCodeOf,
  HTTP_METHODS,
  HTTPError,
  isHTTPError,
  isHttpContext,
  isOperation,
  isTracked,
  isValidationError,
  joinPaths,
  MULTIPART_DEFAULTS,
  MULTIPART_OPTION_NAMES,
  OPERATION_NAME,
  OPERATION_TYPE,
  ROUTE_META,
  ROUTE_SCHEMA,
  Router,
  statusText,
  STREAM_DEFAULTS,
  timeRemaining,
  toHTTPError,
  tracked,
  ValidationError,
  withMeta,
} from '@fw/core';
export type * from '@fw/core';

export {
  authenticate,
  clientIpKey,
  compress,
  cors,
  createPubSub,
  etag,
  idempotency,
  isCompressibleType,
  jwtVerifier,
  logger,
  MemoryPubSub,
  MemoryStore,
  PubSubOverflowError,
  rateLimit,
  RedisPubSub,
  RedisStore,
  RedisStoreError,
  requireRole,
  rolesOf,
  secureHeaders,
} from '@fw/middleware';
export type * from '@fw/middleware';
export { createHandler, defineOperation, validate } from '@fw/validate';
export type * from '@fw/validate';
export { checkContract, describeRoute, openapi, openapiPlugin } from '@fw/openapi';
export type * from '@fw/openapi';
// Both packages name a type `OperationMethod`: the root's is the operations' one (`@fw/app/openapi` has the other).
export type { OperationMethod } from '@fw/validate';
export { createGraphQLHandler, findSchemaChanges, graphqlErrorCode, graphqlPlugin, validateGraphQLConfig } from '@fw/graphql';
export type * from '@fw/graphql';
export {
  createGrpcServiceRunner,
  describeOperations,
  fieldViolations,
  findProtoChanges,
  generateProtos,
  grpcMethodName,
  grpcPlugin,
  grpcStatusOf,
  GrpcContext,
  GrpcError,
  hasNoSideEffects,
  httpStatusFromGrpc,
  operationMethodPaths,
  validateGrpcConfig,
} from '@fw/grpc';
export type * from '@fw/grpc';
export { graphqlSpanName, grpcSpanName, httpSpanName, isHttpServerError, tracingPlugin } from '@fw/tracing';
export type * from '@fw/tracing';
export { connectCodeOf, connectPlugin } from '@fw/connect';
export type * from '@fw/connect';
export { metricsPlugin } from '@fw/metrics';
export type * from '@fw/metrics';
export type { StartedApp, StartOptions } from './start/primary.js';
