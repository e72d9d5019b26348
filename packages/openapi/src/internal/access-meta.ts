import type { RouteMeta } from '@fw/core';

/**
 * The route meta keys `@fw/middleware` declares and the document reads: `authenticate` and
 * `requireRole` mark `auth`/`authOptional`/`roles`, `rateLimit` marks `rateLimited`. This package
 * may not import `@fw/middleware`, so it reads them by shape, as unknown values it checks itself
 * (a route's own `meta` may hold anything at run time).
 */
export interface AccessMeta {
  /** The route needs an authenticated user. */
  readonly auth?: unknown;
  /** A token is verified when sent; the route works without one. */
  readonly authOptional?: unknown;
  /** The roles the route requires. */
  readonly roles?: unknown;
  /** The route is rate limited (`{ windowMs, maxRequests }`, or `true`). */
  readonly rateLimited?: unknown;
}

/** The access keys of a route's meta, whichever package declared them. */
export function accessMeta(meta: RouteMeta): AccessMeta {
  const bag: object = meta;
  return bag;
}
