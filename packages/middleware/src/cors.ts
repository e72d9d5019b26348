import { HTTP_METHODS, type Context, type Next, type RequestContext, isHttpContext } from '@fw/core';
import { withOriginPolicy, type OriginPolicy } from '@fw/core/plugin';
import { appendVary, firstValue } from './internal/headers.js';
import type { CorsConfig } from './types.js';
import { DEFAULT_CORS_METHODS, DEFAULT_CORS_ALLOWED_HEADERS, DEFAULT_CORS_MAX_AGE } from './defaults.js';


const RESOLVED: Promise<void> = Promise.resolve();

/** The CORS middleware `cors()` returns (HTTP only: it lets gRPC calls and other protocols' contexts through untouched). */
export type CorsMiddleware = (ctx: Context, next: Next) => Promise<void>;

/**
 * Cross-origin resource sharing. Answers preflight requests (`OPTIONS` with
 * `Access-Control-Request-Method`) with 204 without reaching the route, and adds the CORS
 * headers to every other response, error responses included. Use it with `app.use()` so
 * preflights for any path are answered. Installed so, it also says which origins may open a
 * WebSocket to the app (core's `host.checkOrigin`): an upgrade from another origin is refused 403
 * unless `origin` allows it, and, when it carries cookies, unless `credentials` is true.
 * @example
 * app.use(cors({ origin: ['https://app.example.com'], credentials: true }));
 */
export function cors(config: CorsConfig = {}): CorsMiddleware {
  const origin = config.origin ?? '*';
  const credentials = config.credentials ?? false;
  const methods = config.methods ?? DEFAULT_CORS_METHODS;
  const allowedHeaders = config.allowedHeaders ?? DEFAULT_CORS_ALLOWED_HEADERS;
  const exposedHeaders = config.exposedHeaders ?? [];
  const maxAge = config.maxAge ?? DEFAULT_CORS_MAX_AGE;

  checkOrigin(origin);
  if (typeof credentials !== 'boolean') throw new TypeError('cors: credentials must be a boolean');
  if (credentials && origin === '*') {
    throw new TypeError(
      'cors: credentials: true cannot be combined with origin "*" (browsers reject a wildcard origin on credentialed requests). ' +
        'Give an explicit origin: a string, a list of origins, or a function (origin) => boolean.',
    );
  }
  for (const method of methods) {
    if (!HTTP_METHODS.includes(method)) throw new TypeError(`cors: unknown method "${String(method)}" in methods`);
  }
  checkHeaderList('allowedHeaders', allowedHeaders);
  checkHeaderList('exposedHeaders', exposedHeaders);
  if (typeof maxAge !== 'number' || !Number.isInteger(maxAge) || maxAge < 0) {
    throw new TypeError(`cors: maxAge must be a whole number of seconds >= 0, got ${String(maxAge)}`);
  }

  const allowMethods = methods.join(', ');
  const allowHeaders = allowedHeaders.join(', ');
  const exposeHeaders = exposedHeaders.length > 0 ? exposedHeaders.join(', ') : undefined;
  const maxAgeValue = String(maxAge);
  const anyOrigin = origin === '*';
  const fixedOrigin = typeof origin === 'string' && !anyOrigin ? origin : undefined;
  const allowedList = Array.isArray(origin) ? new Set<string>(origin) : undefined;
  const predicate = typeof origin === 'function' ? origin : undefined;

  /** The `Access-Control-Allow-Origin` value for this request, or undefined when not allowed. */
  const allowOrigin = (requestOrigin: string | undefined): string | undefined => {
    if (anyOrigin) return '*';
    if (fixedOrigin !== undefined) return fixedOrigin;
    if (requestOrigin === undefined) return undefined;
    if (allowedList !== undefined) return allowedList.has(requestOrigin) ? requestOrigin : undefined;
    return predicate!(requestOrigin) === true ? requestOrigin : undefined;
  };

  // What a page of another origin may open where no CORS header protects the answer (a WebSocket
  // upgrade carries the page's cookies and the page reads what comes back): what a fetch of that
  // page could read. A credentialed one needs `credentials: true`, so `*` admits only uncredentialed ones.
  const originPolicy: OriginPolicy = (requestOrigin, { credentialed }) => {
    if (credentialed && !credentials) return false;
    if (anyOrigin) return true;
    if (fixedOrigin !== undefined) return requestOrigin === fixedOrigin;
    if (allowedList !== undefined) return allowedList.has(requestOrigin);
    return predicate!(requestOrigin) === true;
  };

  // Typed on every context because the gRPC package runs the app's middleware on its calls too.
  return withOriginPolicy(function cors(ctx: RequestContext, next: Next): Promise<void> {
    // HTTP only: a gRPC call has no browser behind it.
    if (!isHttpContext(ctx)) return next();
    const requestOrigin = firstValue(ctx.headers.origin);
    const allowed = allowOrigin(requestOrigin);
    if (!anyOrigin) appendVary(ctx.res, 'Origin');
    if (allowed !== undefined) {
      ctx.setHeader('access-control-allow-origin', allowed);
      if (credentials) ctx.setHeader('access-control-allow-credentials', 'true');
    }

    if (ctx.method === 'OPTIONS' && ctx.headers['access-control-request-method'] !== undefined) {
      if (allowed !== undefined) {
        ctx.setHeader('access-control-allow-methods', allowMethods);
        ctx.setHeader('access-control-allow-headers', allowHeaders);
        ctx.setHeader('access-control-max-age', maxAgeValue);
      }
      // A preflight is answered here; the route never sees it.
      ctx.status(204);
      return RESOLVED;
    }

    if (allowed !== undefined && exposeHeaders !== undefined) ctx.setHeader('access-control-expose-headers', exposeHeaders);
    return next();
  }, originPolicy);
}

function checkOrigin(origin: unknown): void {
  if (typeof origin === 'function') return;
  const list = typeof origin === 'string' ? [origin] : Array.isArray(origin) ? (origin as unknown[]) : undefined;
  if (list === undefined) throw new TypeError('cors: origin must be a string, an array of strings, or a function (origin) => boolean');
  if (list.length === 0) throw new TypeError('cors: origin list is empty; give at least one origin');
  for (const entry of list) {
    if (typeof entry !== 'string' || entry === '') throw new TypeError('cors: every origin must be a non-empty string');
    if (entry !== '*' && entry !== 'null' && entry.endsWith('/')) {
      throw new TypeError(`cors: origin "${entry}" must not end with "/" (browsers send "${entry.replace(/\/+$/, '')}")`);
    }
  }
}

function checkHeaderList(name: string, list: readonly string[]): void {
  if (!Array.isArray(list)) throw new TypeError(`cors: ${name} must be an array of header names`);
  for (const header of list) {
    if (typeof header !== 'string' || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(header)) {
      throw new TypeError(`cors: ${name} contains an invalid header name: ${JSON.stringify(header)}`);
    }
  }
}
