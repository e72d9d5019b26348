import { toHTTPError, type Context, type Middleware, type Next } from '@fw/core';
import { isServerFault, type LogFunction } from '@fw/core/plugin';
import { send, thrownResponse } from './answer.js';
import { mediaTypeOf } from './negotiation.js';

/**
 * The error guard of a GraphQL endpoint: middleware the plugin runs around the app's middleware on
 * the endpoint path only (`claimPath`'s `guard`), answering what was thrown there (by middleware,
 * or the handler) as a GraphQL response: a 429 from `rateLimit()`, a 401 from `authenticate`, a 413
 * from a body read keep their status and headers; an unexpected error is logged and (unless
 * `maskErrors` is off) masked.
 */
export function createErrorGuard(maskErrors: boolean, log: LogFunction): Middleware<Context> {
  const answerError = (ctx: Context, thrown: unknown): void => {
    // Too late for an answer of our own: core cuts the response short.
    if (ctx.res.headersSent || ctx.res.writableEnded) throw thrown;
    const error = toHTTPError(thrown);
    if (isServerFault(error)) log(`GraphQL request failed on ${ctx.method} ${ctx.path}: ${thrown instanceof Error ? thrown.message : String(thrown)}`, thrown);
    // What middleware set for an answer of its own no longer describes this one.
    ctx.res.removeHeader('content-length');
    send(ctx, thrownResponse(thrown, error, maskErrors, mediaTypeOf(ctx)));
  };

  // Without an async function around it: one promise less per request on the endpoint.
  return (ctx: Context, next: Next): Promise<void> => {
    let pending: Promise<void>;
    try {
      pending = next();
    } catch (err) {
      answerError(ctx, err);
      return Promise.resolve();
    }
    return pending.then(undefined, (err: unknown) => answerError(ctx, err));
  };
}
