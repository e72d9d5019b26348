/**
 * @fw/app — `createApp`, and the names a user of it writes: routers, errors, the built-in
 * middleware, validation and the OpenAPI helpers. Every other public name of an fw package comes
 * from that package (`@fw/core`, `@fw/grpc`, ...) or, for apps that install only `@fw/app`, from
 * `@fw/app/<package>` (`@fw/app/core`, `@fw/app/grpc`, ...), which re-exports it whole.
 */
export { createApp } from './create-app.js';
export type { App, AppOptions, ProtocolManagerConfig, TracingOptions } from './create-app.js';
export type { ProtocolManager } from './protocol-manager.js';

export { HTTPError, Router, withMeta } from '@fw/core';
export type { Context, Middleware, Next, RequestContext, Route, RouteMeta, RouterConfig } from '@fw/core';
export { authenticate, cors, jwtVerifier, logger, MemoryStore, rateLimit, RedisStore, requireRole } from '@fw/middleware';
export type { AuthenticateConfig, CorsConfig, JwtClaims, JwtVerifierConfig, LoggerConfig, RateLimitConfig } from '@fw/middleware';
export { createHandler, validate } from '@fw/validate';
export type { ValidationErrorEntry, ValidationSchema } from '@fw/validate';
export type { GraphQLConfig } from '@fw/graphql';
export type { GrpcBidiHandler, GrpcClientStreamHandler, GrpcConfig, GrpcServerStreamHandler, GrpcUnaryHandler } from '@fw/grpc';
export { describeRoute, openapiPlugin } from '@fw/openapi';
export type { OpenAPIPluginConfig, RouteDescription } from '@fw/openapi';
