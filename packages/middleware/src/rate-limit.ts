import { HTTPError, toHTTPError, withMeta, type Next, type RequestContext, type WithMeta } from '@fw/core';
import { defaultLog, markPerCall } from '@fw/core/plugin';
import { checkSubnet, DEFAULT_IPV6_SUBNET, ipKey } from './ip-key.js';
import { MemoryStore } from './memory-store.js';
import type { RateLimitedMeta } from './route-meta.js';
import type { RateLimitConfig, RateLimitHit, StandardHeadersDraft } from './types.js';
import { DEFAULT_RATE_LIMIT_WINDOW_MS, DEFAULT_RATE_LIMIT_MAX_REQUESTS, DEFAULT_RATE_LIMIT_MESSAGE } from './defaults.js';


/** The rate-limiting middleware `rateLimit()` returns; it works on HTTP, GraphQL and gRPC contexts and marks its routes `rateLimited`. */
export type RateLimitMiddleware<C extends RequestContext = RequestContext> = WithMeta<(ctx: C, next: Next) => Promise<void>>;

/**
 * Limits requests per key (default: the client IP, `ctx.ip`, with IPv6 clients counted per /56
 * network, see `ipv6Subnet`; behind a proxy set the app's `trustProxy` so it comes from
 * `X-Forwarded-For`) in fixed windows. Every response carries
 * `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset` (ISO 8601); past the limit
 * it sets those and `Retry-After` (seconds) on the response and throws `HTTPError(429, message)`
 * carrying them too, so they reach the client whichever error handler answers. Global
 * (`app.use`), it counts each operation a WebSocket carries, with the key of its connection.
 * @example
 * app.use(rateLimit({ windowMs: 60_000, maxRequests: 100 }));
 * app.post('/login', rateLimit({ maxRequests: 5, skipSuccessfulRequests: true }), login);
 */
export function rateLimit<C extends RequestContext = RequestContext>(config: RateLimitConfig<C> = {}): RateLimitMiddleware<C> {
  const windowMs = config.windowMs ?? DEFAULT_RATE_LIMIT_WINDOW_MS;
  const max = config.maxRequests ?? DEFAULT_RATE_LIMIT_MAX_REQUESTS;
  const ipv6Subnet = config.ipv6Subnet ?? DEFAULT_IPV6_SUBNET;
  checkSubnet(ipv6Subnet);
  const keyGenerator = config.keyGenerator ?? ((ctx: C): string => ipKey(ctx.ip, ipv6Subnet));
  const message = config.message ?? DEFAULT_RATE_LIMIT_MESSAGE;
  const skipSuccessful = config.skipSuccessfulRequests ?? false;
  const skipFailed = config.skipFailedRequests ?? false;
  const skip = config.skip;
  const store = config.store ?? new MemoryStore();
  const draft = standardDraft(config.standardHeaders ?? false);
  const failClosed = config.failClosed ?? false;
  const onStoreError = config.onStoreError ?? defaultStoreErrorLog(failClosed);

  if (typeof windowMs !== 'number' || !Number.isFinite(windowMs) || windowMs <= 0) {
    throw new TypeError(`rateLimit: windowMs must be a positive number of milliseconds, got ${String(windowMs)}`);
  }
  if (typeof max !== 'number' || !Number.isInteger(max) || max < 0) {
    throw new TypeError(`rateLimit: maxRequests must be a whole number >= 0, got ${String(max)}`);
  }
  if (typeof keyGenerator !== 'function') throw new TypeError('rateLimit: keyGenerator must be a function (ctx) => string');
  if (typeof message !== 'string') throw new TypeError('rateLimit: message must be a string');
  if (skip !== undefined && typeof skip !== 'function') throw new TypeError('rateLimit: skip must be a function (ctx) => boolean');
  if (store === null || typeof store !== 'object' || typeof store.increment !== 'function' || typeof store.decrement !== 'function') {
    throw new TypeError('rateLimit: store must implement increment(key, windowMs) and decrement(key)');
  }

  const limitValue = String(max);
  const windowSeconds = Math.ceil(windowMs / 1000);
  const policy = draft === 'draft-8' ? `"${max}-in-${windowSeconds}s";q=${max};w=${windowSeconds}` : `${max};w=${windowSeconds}`;
  const undoing = skipSuccessful || skipFailed;
  let storeHealthy = true;
  // Consecutive hits usually share a window end (one busy client, or Redis TTLs rounded alike).
  let lastResetAt = Number.NaN;
  let lastResetIso = '';

  const reportStoreError = (err: unknown): void => {
    if (!storeHealthy) return;
    storeHealthy = false;
    try {
      onStoreError(err);
    } catch {
      // A failing reporter must not fail the request.
    }
  };

  const storeFailed = (ctx: C, next: Next, err: unknown): Promise<void> => {
    reportStoreError(err);
    if (failClosed) return Promise.reject(new HTTPError(503, 'Service Unavailable', undefined, { cause: err }));
    return next();
  };

  /** Whether a response with this final status is taken back under the skip options. */
  const skipped = (status: number): boolean => (status >= 200 && status < 300 ? skipSuccessful : status >= 400 ? skipFailed : false);

  const undo = (key: string): void => {
    try {
      const result = store.decrement(key);
      if (result instanceof Promise) result.catch(reportStoreError);
    } catch (err) {
      reportStoreError(err);
    }
  };

  const resetIso = (resetAt: number): string => {
    if (resetAt !== lastResetAt) {
      lastResetAt = resetAt;
      lastResetIso = new Date(resetAt).toISOString();
    }
    return lastResetIso;
  };

  /** The IETF `RateLimit` header value for the configured draft. */
  const standardValue = (remaining: number, secondsLeft: number): string =>
    draft === 'draft-8' ? `"${max}-in-${windowSeconds}s";r=${remaining};t=${secondsLeft}` : `limit=${max}, remaining=${remaining}, reset=${secondsLeft}`;

  const secondsUntil = (resetAt: number): number => Math.max(0, Math.ceil((resetAt - Date.now()) / 1000));

  const proceed = (ctx: C, next: Next, key: string, hit: RateLimitHit): Promise<void> => {
    storeHealthy = true;
    if (hit.count > max) {
      // A 429 is a failed response too.
      if (skipFailed) undo(key);
      const secondsLeft = secondsUntil(hit.resetAt);
      const headers: Record<string, string> = {
        'X-RateLimit-Limit': limitValue,
        'X-RateLimit-Remaining': '0',
        'X-RateLimit-Reset': resetIso(hit.resetAt),
        'Retry-After': String(secondsLeft),
      };
      if (draft !== undefined) {
        headers['RateLimit'] = standardValue(0, secondsLeft);
        headers['RateLimit-Policy'] = policy;
      }
      // Set on the response itself, so an error middleware that writes its own 429 body keeps
      // them, and carried by the error for the default error handler and the gRPC layer.
      for (const name in headers) ctx.setHeader(name, headers[name]!);
      return Promise.reject(new HTTPError(429, message, undefined, { headers }));
    }
    const remaining = max - hit.count;
    ctx.setHeader('X-RateLimit-Limit', limitValue);
    ctx.setHeader('X-RateLimit-Remaining', String(remaining));
    ctx.setHeader('X-RateLimit-Reset', resetIso(hit.resetAt));
    if (draft !== undefined) {
      ctx.setHeader('RateLimit', standardValue(remaining, secondsUntil(hit.resetAt)));
      ctx.setHeader('RateLimit-Policy', policy);
    }
    if (!undoing) return next();
    return next().then(
      () => {
        if (skipped(ctx.statusCode)) undo(key);
      },
      (err: unknown) => {
        if (skipped(toHTTPError(err).statusCode)) undo(key);
        throw err;
      },
    );
  };

  const middleware = function rateLimit(ctx: C, next: Next): Promise<void> {
    try {
      if (skip !== undefined && skip(ctx) === true) return next();
      const key = keyGenerator(ctx);
      if (typeof key !== 'string') throw new TypeError(`rateLimit: keyGenerator returned ${typeof key}, expected a string`);
      let hit: RateLimitHit | Promise<RateLimitHit>;
      try {
        hit = store.increment(key, windowMs);
      } catch (err) {
        return storeFailed(ctx, next, err);
      }
      if (hit instanceof Promise) {
        return hit.then(
          (resolved) => proceed(ctx, next, key, resolved),
          (err: unknown) => storeFailed(ctx, next, err),
        );
      }
      return proceed(ctx, next, key, hit);
    } catch (err) {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- passes on what skip or keyGenerator threw, as an async function would
      return Promise.reject(err);
    }
  };
  // Marks the routes it guards, so documentation can list their 429; and counts each call a
  // WebSocket carries, not the socket (core's `host.perCall`).
  const rateLimited: RateLimitedMeta = Object.freeze({ windowMs, maxRequests: max });
  return markPerCall(withMeta(middleware, { rateLimited }));
}

function standardDraft(option: boolean | StandardHeadersDraft): StandardHeadersDraft | undefined {
  if (option === false) return undefined;
  if (option === true || option === 'draft-7') return 'draft-7';
  if (option === 'draft-8') return 'draft-8';
  throw new TypeError(`rateLimit: standardHeaders must be a boolean, 'draft-7' or 'draft-8', got ${String(option)}`);
}

function defaultStoreErrorLog(failClosed: boolean): (error: unknown) => void {
  return (error) => {
    const outcome = failClosed ? 'answering 503' : 'letting requests through unlimited';
    defaultLog(`rateLimit: the rate-limit store failed; ${outcome} until it answers again.`, error);
  };
}
