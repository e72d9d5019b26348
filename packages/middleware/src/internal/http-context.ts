import { Context, type RequestContext } from '@fw/core';

/**
 * Whether `ctx` is the HTTP `Context` (REST routes and the GraphQL endpoint) rather than the call
 * context of another protocol: HTTP-only middleware (`cors`, `logger`) lets the others through,
 * since the gRPC package runs the app's middleware on its calls too.
 */
export function isHttpContext(ctx: RequestContext): ctx is Context {
  // The shape test covers a second copy of @fw/core (its ESM and CJS builds loaded side by side).
  return ctx instanceof Context || ('req' in ctx && 'res' in ctx && typeof ctx.res === 'object' && ctx.res !== null);
}
