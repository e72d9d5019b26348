import type { RequestContext } from './request-context.js';

/**
 * "The client cancelled or left" as one condition, decided here for every protocol: a request whose
 * client went away is not a server fault, so it logs no stack, counts as no server error in metrics
 * and marks no span failed. A transport marks the reason its `ctx.signal` aborts with when the client
 * goes (`markClientGone`); `isClientGone` recognises that reason, anything that wraps it as its
 * `cause`, and the abort errors a request's work throws once its client is gone.
 */

/**
 * The status a request whose client left is recorded with (in metrics, spans and the access log),
 * as proxies log it: 499 Client Closed Request. Nothing is sent: there is no one to send it to.
 */
export const CLIENT_CLOSED_REQUEST = 499;

/** Brands the reasons made by `markClientGone`, readable across copies of this package. */
const CLIENT_GONE: unique symbol = Symbol.for('fw.client-gone');

/** How many `cause` links `isClientGone` follows (wrappers rarely nest deeper; a cycle must end). */
const MAX_CAUSES = 8;

/** Errors a request's work throws when what it wrote to or waited on was torn down with the client's connection. */
const ABORT_CODES: ReadonlySet<unknown> = new Set(['ABORT_ERR', 'ECONNRESET', 'EPIPE', 'ERR_STREAM_PREMATURE_CLOSE', 'ERR_STREAM_DESTROYED']);

/**
 * Marks `error` as the reason a request stops because its client cancelled or left, and returns
 * it: a transport aborts `ctx.signal` with it. It carries `statusCode` 499, so that `toHTTPError`
 * (and error middleware that logs 5xx) sees a client's doing, not a server error.
 * @example
 * controller.abort(markClientGone(new Error('The client closed the connection')));
 */
export function markClientGone<E extends Error>(error: E): E {
  Object.defineProperty(error, CLIENT_GONE, { value: true });
  if (!('statusCode' in error)) Object.defineProperty(error, 'statusCode', { value: CLIENT_CLOSED_REQUEST });
  return error;
}

/**
 * Whether `error` is (or wraps, through `cause`) a reason marked by `markClientGone`; with `ctx`,
 * also whether it is an abort error (an `AbortError`, a reset or closed stream) thrown while that
 * request's client is gone (its `ctx.signal` aborted with such a reason). Any other error stays a
 * server error, even after the client left. Never throws.
 * @example
 * catch (err) { if (!isClientGone(err, ctx)) log('Error', err); throw err; }
 */
export function isClientGone(error: unknown, ctx?: RequestContext): boolean {
  try {
    if (isMarked(error)) return true;
    if (ctx === undefined || !isAbortError(error)) return false;
    const signal = ctx.signal;
    return signal.aborted && isMarked(signal.reason);
  } catch {
    // A Proxy or a getter that throws: not a reason any transport made.
    return false;
  }
}

/** Whether `value` or one of its causes carries the mark. */
function isMarked(value: unknown): boolean {
  let current = value;
  for (let depth = 0; depth < MAX_CAUSES; depth++) {
    if (current === null || typeof current !== 'object') return false;
    if ((current as Record<symbol, unknown>)[CLIENT_GONE] === true) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

function isAbortError(error: unknown): boolean {
  if (error === null || typeof error !== 'object') return false;
  const { name, code } = error as { name?: unknown; code?: unknown };
  return name === 'AbortError' || ABORT_CODES.has(code);
}
