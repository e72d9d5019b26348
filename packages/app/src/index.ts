/**
 * @fw/app — `createApp`, `emit`, the core names every app writes (`Router`, `HTTPError`,
 * `withMeta`), and the types of everything a user of createApp annotates. Its values load nothing
 * beyond `@fw/core`: a REST-only app starts as fast as core alone. The middleware, validation,
 * operations and OpenAPI values come from their package (`@fw/middleware`, ...) or, for apps that
 * install only `@fw/app`, from `@fw/app/<package>` (`@fw/app/middleware`, `@fw/app/validate`, ...),
 * which re-exports it whole, as `hono/cors` does for Hono.
 */
export { createApp } from './create-app.js';
export type { App, AppOptions, ProtocolManagerConfig, TracingOptions } from './create-app.js';
export type { ProtocolManager } from './protocol-manager.js';
export { emit } from './emit.js';
export type { EmitKind, EmitOptions, EmitResult, EmitTarget, EmittedFile } from './emit.js';

export { HTTPError, Router, withMeta } from '@fw/core';
export type { Context, Middleware, Next, Operation, RequestContext, Route, RouteMeta, RouterConfig } from '@fw/core';
export type { AuthenticateConfig, CorsConfig, JwtClaims, JwtVerifierConfig, LoggerConfig, RateLimitConfig } from '@fw/middleware';
export type { OperationDefinition, ValidationErrorEntry, ValidationSchema } from '@fw/validate';
export type { GraphQLConfig } from '@fw/graphql';
export type { GrpcBidiHandler, GrpcClientStreamHandler, GrpcConfig, GrpcServerStreamHandler, GrpcUnaryHandler } from '@fw/grpc';
export type { OpenAPIPluginConfig, RouteDescription } from '@fw/openapi';
