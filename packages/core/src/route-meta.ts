import type { RouteMeta, RouteSchema } from './types.js';

/** Middleware may carry the schemas it checks under this key, so routes report them (set by `validate()`). */
export const ROUTE_SCHEMA: unique symbol = Symbol.for('fw.route.schema');
/** Middleware may carry route meta under this key; attach it with `withMeta(mw, meta)`. */
export const ROUTE_META: unique symbol = Symbol.for('fw.route.meta');

/**
 * The keys `RouteMeta` declares, core's and those packages merge in, without the catch-all index
 * signature: what `withMeta` accepts, so a misspelt or undeclared key does not compile.
 */
export type DeclaredRouteMeta = {
  [K in keyof RouteMeta as string extends K ? never : number extends K ? never : K]?: RouteMeta[K];
};

/** A middleware carrying route meta (what `withMeta` returns). */
export type WithMeta<F> = F & { readonly [ROUTE_META]: DeclaredRouteMeta };

/**
 * Attaches route meta to a middleware function and returns the same function, typed: every route
 * whose chain holds it reports the meta in `getRoutes()` (and so in the OpenAPI document). Meta the
 * function already carries is kept, `meta` wins per key. Declare your own keys by merging into
 * `RouteMeta` (`declare module '@fw/core' { interface RouteMeta { audit?: boolean } }`).
 * @example
 * const audited = withMeta(async (ctx, next) => { await next(); audit(ctx); }, { tags: ['audited'] });
 * app.post('/orders', audited, createOrder);
 */
export function withMeta<F extends (...args: never[]) => unknown>(middleware: F, meta: DeclaredRouteMeta): WithMeta<F> {
  if (typeof middleware !== 'function') throw new TypeError('withMeta expects a middleware function');
  if (typeof meta !== 'object' || meta === null) throw new TypeError('withMeta expects a meta object');
  const carried = metaOf(middleware);
  const merged = Object.freeze(carried === undefined ? { ...meta } : { ...carried, ...meta });
  return Object.assign(middleware, { [ROUTE_META]: merged });
}

/** The route meta a middleware carries, if any. */
export function metaOf(middleware: unknown): RouteMeta | undefined {
  return (middleware as { [ROUTE_META]?: RouteMeta } | null)?.[ROUTE_META];
}

/** The schemas a middleware carries, if any. */
export function schemaOf(middleware: unknown): RouteSchema | undefined {
  return (middleware as { [ROUTE_SCHEMA]?: RouteSchema } | null)?.[ROUTE_SCHEMA];
}
