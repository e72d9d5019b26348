import { HTTPError } from '../http-error.js';

/**
 * Throws the 405 (`Allow: GET, HEAD`) for a request that is neither GET nor HEAD: the guard of
 * read-only endpoints such as documents and bundled pages.
 * @example
 * function serveDocument(ctx: Context) { assertGetOrHead(ctx); ctx.json(document); }
 */
export function assertGetOrHead(ctx: { readonly method: string }): void {
  if (ctx.method !== 'GET' && ctx.method !== 'HEAD') throw new HTTPError(405, 'Method Not Allowed', undefined, { headers: { allow: 'GET, HEAD' } });
}

/** `Authorization: Bearer <token>` (RFC 6750 §2.1: the scheme is case-insensitive, one or more spaces, a b64token); the token is group 1. */
export const BEARER_TOKEN = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/**
 * The token of an `Authorization: Bearer <token>` header value, or undefined when the value is
 * missing or not a well-formed bearer credential. A repeated header counts by its first value.
 * @example
 * const token = bearerToken(ctx.headers.authorization);
 */
export function bearerToken(header: string | readonly string[] | undefined): string | undefined {
  const value = typeof header === 'string' ? header : header?.[0];
  if (value === undefined) return undefined;
  return BEARER_TOKEN.exec(value)?.[1];
}
