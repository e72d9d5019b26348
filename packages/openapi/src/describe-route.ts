import { ROUTE_SCHEMA, withMeta } from '@fw/core';
import type { Next, ROUTE_META, RouteMeta, RouteSchema } from '@fw/core';

/** Error statuses (400–599) a route answers: `[409, 404]`, or `{ 409: 'Not enough stock' }` with a description each. */
export type RouteErrors = readonly number[] | Readonly<Record<number, string>>;

declare module '@fw/core' {
  // The route meta keys this package owns (core declares `description` and `tags`); `describeRoute`
  // writes them, `withMeta` and `route({ meta })` accept them, and the document reads them.
  interface RouteMeta {
    /** A one-line summary of the operation (OpenAPI `summary`). */
    summary?: string;
    /** The operation's id in the document. @default derived from the method and path */
    operationId?: string;
    /** Marks the operation deprecated. */
    deprecated?: boolean;
    /** Leaves the route out of the OpenAPI document. */
    hidden?: boolean;
    /** Error statuses the route answers beyond those documented automatically. */
    errors?: RouteErrors;
    /** Responses by status, as `schema.responses` takes them (`schema.responses` wins per status). */
    responses?: Readonly<Record<number | string, unknown>>;
    /** Merged into the operation as it is (`externalDocs`, `x-*` fields). */
    openapi?: Record<string, unknown>;
  }
}

/** What `describeRoute()` adds to a route's documentation. */
export interface RouteDescription {
  summary?: string;
  description?: string;
  tags?: string[];
  operationId?: string;
  deprecated?: boolean;
  /** Leave the route out of the document. */
  hidden?: boolean;
  /** Responses by status: a schema, `null` for no body, or a `ResponseSpec`. */
  responses?: Record<number | string, unknown>;
  /**
   * Error statuses the route answers beyond those documented automatically (409, 404 from a
   * handler, ...): a list, or descriptions by status. Each is documented with the framework's
   * error body; a status listed in `responses` keeps that response. Kept in `meta.errors`.
   */
  errors?: RouteErrors;
  /** Merged into the operation as it is (`externalDocs`, `x-*` fields). */
  openapi?: Record<string, unknown>;
}

/** The middleware `describeRoute()` returns: it only passes on, and carries the description for `getRoutes()`. */
export type DescribeRouteMiddleware = ((ctx: unknown, next: Next) => Promise<void>) & {
  readonly [ROUTE_META]: RouteMeta;
  readonly [ROUTE_SCHEMA]: RouteSchema;
};

/**
 * Documents a route registered with `get()`/`post()`/...: summary, tags, responses and the like,
 * carried as route meta (`withMeta`) and under `ROUTE_SCHEMA`, so `getRoutes()` (and so `openapi()`)
 * reports them beside the schemas `validate()` attaches. At run time it only calls `next()`.
 * @example
 * app.get('/books/:id', describeRoute({ summary: 'One book', responses: { 200: Book } }), ...createHandler({ params }, handler));
 * app.post('/orders', describeRoute({ responses: { 201: Order }, errors: { 409: 'Not enough stock' } }), placeOrder);
 */
export function describeRoute(description: RouteDescription): DescribeRouteMiddleware {
  const { responses, ...meta } = description;
  const middleware = function describedRoute(_ctx: unknown, next: Next): Promise<void> {
    return next();
  };
  const schema: RouteSchema = responses === undefined ? {} : { responses };
  return Object.assign(withMeta(middleware, meta), { [ROUTE_SCHEMA]: schema });
}
