import type { HTTPError } from './http-error.js';

/**
 * Whether an error a call ended with is the server's fault, to log in full (with its stack): a
 * 5xx answer, but for a deadline that passed (`deadline_exceeded`, 504). A deadline is the budget
 * the client sent or the one the route gives its handler; its passing is an outcome of the call,
 * counted in metrics and spans, not a fault to log on every occurrence (as RPC servers treat a
 * passed deadline). A client that left is told apart before this (`isClientGone`). Every
 * transport asks this one rule before logging.
 * @example
 * catch (err) { const error = toHTTPError(err); if (!isClientGone(err, ctx) && isServerFault(error)) log('Error', err); }
 */
export function isServerFault(error: HTTPError): boolean {
  return error.statusCode >= 500 && error.code !== 'deadline_exceeded';
}
