import { isHttpContext, type Context, type Next, type RequestContext } from '@fw/core';
import { checkOptions } from '@fw/core/plugin';
import { nodeCrypto } from './internal/builtins.js';
import { ifNoneMatchMatches, parseHttpDate } from './internal/conditional.js';
import type { ETagConfig } from './types.js';

/** The conditional-GET middleware `etag()` returns (HTTP only: it lets gRPC calls and other protocols' contexts through untouched). */
export type ETagMiddleware = (ctx: Context, next: Next) => Promise<void>;

const ETAG_OPTIONS = ['weak'] as const;

/**
 * Conditional GET (RFC 9110 §13). After the route has answered a GET or HEAD with `200` and a
 * recorded body (`ctx.json()`, `ctx.text()`, `ctx.send()`), it sets `ETag` to a hash of the body's
 * bytes, weak by default (`W/"<sha1, base64url>"`), unless the handler set an `ETag` of its own,
 * which is then used as it is. When the request's `If-None-Match` matches it (a list, or `*`; the
 * weak comparison) the answer becomes `304` with no body, no `Content-Type` and no `Content-Length`,
 * its other headers kept (`ETag`, `Cache-Control`, `Vary`, `Expires`, `Content-Location`, `Last-Modified`).
 * Without `If-None-Match`, an `If-Modified-Since` no earlier than the handler's `Last-Modified`
 * gives the same `304`. Streams (a body piped into `ctx.res`, server-sent events), other statuses
 * and other methods are left alone.
 * @example
 * app.use(etag());                                      // every GET and HEAD route
 * app.get('/catalog', etag({ weak: false }), (ctx) => ctx.json(catalog)); // one route, a strong ETag
 */
export function etag(config: ETagConfig = {}): ETagMiddleware {
  if (config === null || typeof config !== 'object') throw new TypeError('etag: config must be an object');
  checkOptions(config, ETAG_OPTIONS, { owner: 'etag' });
  const weak = config.weak ?? true;
  if (typeof weak !== 'boolean') throw new TypeError('etag: weak must be a boolean');
  const open = weak ? 'W/"' : '"';

  // Typed on every context because the gRPC package runs the app's middleware on its calls too.
  return async function etag(ctx: RequestContext, next: Next): Promise<void> {
    if (!isHttpContext(ctx) || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    await next();
    if (ctx.statusCode !== 200) return;
    // Only a body the context holds can be hashed and withheld; a stream is already on its way.
    const body = ctx.responseBody;
    if (body === undefined) return;
    const res = ctx.res;
    let tag = res.getHeader('etag');
    if (tag === undefined) {
      // One native call over the bytes as they will be sent (a string is hashed as its UTF-8, with
      // no copy made here). Measured against FNV-1a in JavaScript: 5x faster at 1 KiB, 1.5-3x at
      // 16 KiB and up; slower only below a few hundred bytes, where both take under a microsecond.
      tag = `${open}${nodeCrypto().hash('sha1', body, 'base64url')}"`;
      ctx.setHeader('etag', tag);
    }
    if (notModified(ctx, String(tag), res.getHeader('last-modified'))) ctx.status(304);
  };
}

/**
 * Whether the preconditions of a GET or HEAD say the client's copy is current (RFC 9110 §13.2.2):
 * `If-None-Match` when present (then `If-Modified-Since` is not looked at), else `If-Modified-Since`
 * against `Last-Modified`; a date that is not a valid HTTP-date is ignored.
 */
function notModified(ctx: Context, tag: string, lastModified: number | string | string[] | undefined): boolean {
  const ifNoneMatch = ctx.headers['if-none-match'];
  if (ifNoneMatch !== undefined) return ifNoneMatchMatches(Array.isArray(ifNoneMatch) ? ifNoneMatch.join(', ') : ifNoneMatch, tag);
  const ifModifiedSince = ctx.headers['if-modified-since'];
  if (typeof ifModifiedSince !== 'string' || typeof lastModified !== 'string') return false;
  const since = parseHttpDate(ifModifiedSince);
  const modified = parseHttpDate(lastModified);
  return since !== undefined && modified !== undefined && modified <= since;
}
