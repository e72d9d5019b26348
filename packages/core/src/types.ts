import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context } from './context.js';
import type { Operation } from './operation.js';

/** The HTTP methods a route can be registered for. */
export type HTTPMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS' | 'HEAD';

/** Every method `all()` registers for. */
export const HTTP_METHODS: readonly HTTPMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'];

/** Calls the rest of the chain; resolves when it has finished. */
export type Next = () => Promise<void>;

/**
 * A middleware or handler: `(ctx, next)`, returning nothing or a promise. `Middleware` alone is
 * typed on the HTTP `Context`; `Middleware<RequestContext>` runs on every protocol and is accepted
 * wherever HTTP middleware is (`app.use`, routes, `compose`).
 */
export type Middleware<C = Context> = (ctx: C, next: Next) => unknown;

/** A middleware that accepts any context shape (what `createHandler` and plugins produce). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyMiddleware = (ctx: Context<any, any, any>, next: Next) => unknown;

/** Parsed query string: each key a string, or an array when the key repeats. */
export type QueryRecord = Record<string, string | string[] | undefined>;

/** Route params: the names in the path are strings; any other key may be present from a prefix. */
export type ParamsOf<P extends string> = string extends P
  ? Record<string, string | undefined>
  : { [K in ParamNames<P>]: string } & Record<string, string | undefined>;

/** The `:name` segments of a path literal. */
export type ParamNames<P extends string> = P extends `${string}:${infer Rest}`
  ? Rest extends `${infer Name}/${infer Tail}`
    ? Name | ParamNames<`/${Tail}`>
    : Rest
  : never;

/** The context a route handler receives for path `P`. */
export type RouteContext<P extends string = string> = Context<unknown, QueryRecord, ParamsOf<P>>;

/** A schema of any validation library; the validate package knows how to run it. */
export type SchemaLike = unknown;

/** Schemas attached to a route (filled by `validate()`/`createHandler()` or given to `route()`). */
export interface RouteSchema {
  body?: SchemaLike;
  query?: SchemaLike;
  params?: SchemaLike;
  /** Response schemas by status code, for documentation. */
  responses?: Record<number, SchemaLike>;
}

/**
 * Descriptive data for a route, read by `getRoutes()` and `@fw/openapi`. Packages declare the keys
 * they own by declaration merging (`declare module '@fw/core' { interface RouteMeta { roles?: string[] } }`).
 */
export interface RouteMeta {
  /** A sentence describing the route. */
  description?: string;
  /** Groups the route (OpenAPI tags). */
  tags?: string[];
  /** The operation a route serves (set by `app.operation()`). */
  operation?: Operation;
  /**
   * The route needs an authenticated user (the spec's `Route.meta.auth`): `authenticate` and
   * `requireRole` say so, and custom auth middleware says so with `withMeta(fn, { auth: true })`.
   * Documents read it (OpenAPI: a 401 and a security requirement), and so do start-up checks (a
   * protocol warns when such global middleware does not run for its calls).
   */
  auth?: boolean;
  /** The route reads credentials when they are sent and works without them (`authenticate({ optional: true })`). */
  authOptional?: boolean;
}

/** A registered route as `getRoutes()` reports it. */
export interface Route {
  method: HTTPMethod;
  /** The full path, prefixes included. */
  path: string;
  /** The final handler. */
  handler: AnyMiddleware;
  /** Middleware registered with the route itself (router middleware is not listed here). */
  middleware: AnyMiddleware[];
  schema?: RouteSchema;
  meta?: RouteMeta;
  /** The route's deadline in ms (`RouteDefinition.timeout`), when it has one of its own. */
  timeout?: number;
}

/** What `findRoute` returns when a route matches. */
export interface RouteMatch {
  route: Route;
  params: Record<string, string>;
}

/** Options of `new Router()`. */
export interface RouterConfig {
  /** Prepended to every route of this router. */
  prefix?: string;
  /** Middleware applied to every route of this router. */
  middleware?: Middleware[];
}

/** A route given as a record to `router.route()`. */
export interface RouteDefinition {
  method: HTTPMethod | HTTPMethod[] | 'ALL';
  path: string;
  handler: AnyMiddleware;
  middleware?: AnyMiddleware[];
  schema?: RouteSchema;
  meta?: RouteMeta;
  /**
   * The deadline of each request, in ms from when the route matched (its body read included): it
   * becomes `ctx.deadline`, `ctx.signal` aborts when it passes and the answer is 504
   * (`deadline_exceeded`). 0: none, over the app's default `timeout`.
   * @default the app's `timeout` (none)
   */
  timeout?: number;
}

/** The raw request and response types. */
export type RawRequest = IncomingMessage;
export type RawResponse = ServerResponse;
