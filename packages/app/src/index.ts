/**
 * @fw/app — `createApp`, `emit`, and the names a user of it writes: routers, errors, the built-in
 * middleware, validation and operations, and the OpenAPI helpers. Every other public name of an
 * fw package comes from that package (`@fw/core`, `@fw/grpc`, ...) or, for apps that install only
 * `@fw/app`, from `@fw/app/<package>` (`@fw/app/core`, `@fw/app/grpc`, ...), which re-exports it whole.
 */
export { createApp } from './create-app.js';
export type { App, AppOptions, ProtocolManagerConfig, TracingOptions } from './create-app.js';
export type { ProtocolManager } from './protocol-manager.js';
export { emit } from './emit.js';
export type { EmitKind, EmitOptions, EmitResult, EmitTarget, EmittedFile } from './emit.js';

export { HTTPError, Router, withMeta } from '@fw/core';
export type { Context, Middleware, Next, Operation, RequestContext, Route, RouteMeta, RouterConfig } from '@fw/core';
export { authenticate, cors, jwtVerifier, logger, MemoryStore, rateLimit, RedisStore, requireRole } from '@fw/middleware';
export type { AuthenticateConfig, CorsConfig, JwtClaims, JwtVerifierConfig, LoggerConfig, RateLimitConfig } from '@fw/middleware';
export { createHandler, defineOperation, validate } from '@fw/validate';
export type { OperationDefinition, ValidationErrorEntry, ValidationSchema } from '@fw/validate';
export type { GraphQLConfig } from '@fw/graphql';
export type { GrpcBidiHandler, GrpcClientStreamHandler, GrpcConfig, GrpcServerStreamHandler, GrpcUnaryHandler } from '@fw/grpc';
export { describeRoute, openapiPlugin } from '@fw/openapi';
export type { OpenAPIPluginConfig, RouteDescription } from '@fw/openapi';
