import type { IncomingHttpHeaders } from 'node:http';
import { HTTPError } from './http-error.js';
import type { LogFunction } from './internal/logging.js';
import type { AnyMiddleware } from './types.js';

/** Middleware may carry the browser origins it admits under this key (set by `cors()`); attach it with `withOriginPolicy`. */
export const ORIGIN_POLICY: unique symbol = Symbol.for('fw.originPolicy');

/** What an origin policy is told about the request besides its `Origin`. */
export interface OriginRequest {
  /** Whether the request carries credentials a browser adds on its own: a `Cookie` or an `Authorization` header. */
  readonly credentialed: boolean;
}

/**
 * Whether a page of `origin`, another origin than the server's, may open a connection (a WebSocket)
 * carrying what `request` says: the answer a CORS configuration gives for a `fetch` of that page.
 */
export type OriginPolicy = (origin: string, request: OriginRequest) => boolean;

/** Anything that has request headers: an `IncomingMessage`, a `Context`. */
export interface WithHeaders {
  readonly headers: IncomingHttpHeaders;
}

/**
 * Attaches an origin policy to a middleware function and returns the same function: installed
 * with `app.use()`, it decides which browser origins may open connections that the CORS headers of
 * a response cannot protect (a WebSocket upgrade). Every policy of the global middleware must agree.
 * @example
 * app.use(withOriginPolicy(myCors, (origin) => origin === 'https://app.example'));
 */
export function withOriginPolicy<F extends (...args: never[]) => unknown>(middleware: F, policy: OriginPolicy): F {
  if (typeof middleware !== 'function') throw new TypeError('withOriginPolicy expects a middleware function');
  if (typeof policy !== 'function') throw new TypeError('withOriginPolicy expects a policy function (origin, request) => boolean');
  return Object.assign(middleware, { [ORIGIN_POLICY]: policy });
}

/** The origin policy a middleware carries, if any. */
export function originPolicyOf(middleware: unknown): OriginPolicy | undefined {
  const policy = (middleware as { [ORIGIN_POLICY]?: unknown } | null)?.[ORIGIN_POLICY];
  return typeof policy === 'function' ? (policy as OriginPolicy) : undefined;
}

/**
 * @internal The check behind `host.checkOrigin`: throws a 403 `HTTPError` unless the request has
 * no `Origin` (not a browser), comes from the server's own origin (its `Host`), or every origin
 * policy of `middleware()` admits it. Without a policy, a page of another origin is admitted only
 * without credentials: what it could do then, any client could do from anywhere.
 */
export function createOriginCheck(middleware: () => readonly AnyMiddleware[], log: LogFunction): (req: WithHeaders) => void {
  let listed: readonly AnyMiddleware[] | undefined;
  let policies: readonly OriginPolicy[] = [];
  return (req) => {
    const headers = req.headers;
    const origin = headers.origin;
    if (origin === undefined || sameOrigin(origin, headers.host)) return;
    const list = middleware();
    if (list !== listed) {
      policies = list.map(originPolicyOf).filter((policy) => policy !== undefined);
      listed = list;
    }
    const request: OriginRequest = { credentialed: present(headers.cookie) || present(headers.authorization) };
    let allowed: boolean;
    try {
      allowed = policies.length === 0 ? !request.credentialed : policies.every((policy) => policy(origin, request) === true);
    } catch (err) {
      log('An origin policy threw; the request is refused', err);
      allowed = false;
    }
    if (!allowed) throw new HTTPError(403, 'Origin not allowed');
  };
}

/** Whether `origin` (scheme, host and port of the page) names the host the request was sent to; the scheme aside, as TLS may end at a proxy. */
function sameOrigin(origin: string, host: string | undefined): boolean {
  if (host === undefined || host === '') return false;
  try {
    const page = new URL(origin);
    // Read with the page's scheme, so a default port given in `Host` (`:443`) compares as absent.
    return page.host !== '' && page.host === new URL(`${page.protocol}//${host}`).host;
  } catch {
    // `null` (a sandboxed frame, a file) and anything else that is not an origin.
    return false;
  }
}

function present(value: string | undefined): boolean {
  return value !== undefined && value !== '';
}
