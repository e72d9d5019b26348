import type { Context } from './context.js';
import { RAW_BODY, RAW_IN_USE } from './internal/symbols.js';

/**
 * The body of an HTTP request as its client sent it (any Content-Type or Content-Encoding, at most
 * the app's `bodyLimit`, else 413), read once and kept: `ctx.parseBody()` and the protocols served
 * on a claimed path read the same bytes afterwards. Undefined for a request without a body, or
 * whose raw stream a handler already read. For middleware that needs the bytes themselves (a
 * signature check, an idempotency fingerprint).
 * @example
 * const bytes = await readRawBody(ctx);
 */
export function readRawBody(ctx: Context): Promise<Buffer | undefined> {
  return ctx[RAW_BODY]();
}

/**
 * Whether the handler took over the raw response (headers sent, a stream piped into `ctx.res`,
 * server-sent events): its bytes never pass through the context, so `ctx.responseBody` is
 * undefined and the answer cannot be kept or replayed.
 */
export function rawResponseInUse(ctx: Context): boolean {
  return ctx[RAW_IN_USE]();
}
