/**
 * The route meta keys this package writes (and `@fw/openapi` documents): declared on core's
 * `RouteMeta`, so `withMeta` checks them and `getRoutes()` reports them typed. `auth` and
 * `authOptional`, which `authenticate` and `requireRole` also write, are core's own keys.
 */

/** What `rateLimit()` reports on the routes it guards: its window and limit. */
export interface RateLimitedMeta {
  /** Length of a window in milliseconds. */
  readonly windowMs: number;
  /** Requests allowed per key per window. */
  readonly maxRequests: number;
}

declare module '@fw/core' {
  interface RouteMeta {
    /** The roles of which the user needs one (`requireRole`); the scopes of the route's security requirement. */
    roles?: readonly string[];
    /** The route is rate limited (`rateLimit`): its window and limit, or `true` when they are not known; documented with a 429 and the rate-limit headers. */
    rateLimited?: RateLimitedMeta | boolean;
  }
}
