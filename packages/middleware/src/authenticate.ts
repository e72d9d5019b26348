import { HTTPError, isHTTPError, ROUTE_META, type Next, type RouteMeta } from '@fw/core';
import { firstValue } from './internal/headers.js';
import type { AuthenticateConfig, ProtocolContext, ProtocolMiddleware, TokenVerifier, VerifyFunction } from './types.js';

/** Message of the 401 when no (or no well-formed) bearer token was sent. */
export const AUTH_REQUIRED_MESSAGE = 'Authentication required';
/** Message of the 401 when the verifier rejected the token. */
export const INVALID_TOKEN_MESSAGE = 'Invalid or expired token';

// RFC 6750 §2.1: "Bearer" 1*SP b64token; the scheme is case-insensitive.
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
const AUTH_META: RouteMeta = Object.freeze({ auth: true });
/** Optional authentication documents the token as accepted, not required. */
const OPTIONAL_AUTH_META: RouteMeta = Object.freeze({ authOptional: true });

/**
 * `authenticate` is both a ready middleware and a factory:
 * - `authenticate(verifier)` / `authenticate({ verifier, optional?, realm? })` returns a middleware;
 * - `authenticate` itself, used as middleware, uses the verifier set with `authenticate.configure()`.
 */
export interface Authenticate {
  /** Used directly as middleware: verifies with the verifier given to `authenticate.configure()`. */
  (ctx: ProtocolContext, next: Next): Promise<void>;
  /** Returns a middleware that verifies bearer tokens with `verifier`. */
  <U>(verifier: TokenVerifier<U> | AuthenticateConfig<U>): ProtocolMiddleware;
  /** Sets (or with `null` clears) the verifier the bare `authenticate` middleware uses, process-wide. */
  configure(verifier: TokenVerifier | AuthenticateConfig | null): void;
}

let configured: ProtocolMiddleware | undefined;

function bare(ctx: ProtocolContext, next: Next): Promise<void> {
  if (configured === undefined) {
    return Promise.reject(
      new Error('authenticate was used as middleware but no verifier is configured: call authenticate.configure(verifier) at startup, or use authenticate(verifier)'),
    );
  }
  return configured(ctx, next);
}

/**
 * Reads `Authorization: Bearer <token>`, asks the verifier for the user and sets `ctx.user`
 * (for the JWT verifier: the claims, so `ctx.user.sub` is the subject). No or a malformed header
 * → 401 with `WWW-Authenticate: Bearer`; a rejected token → 401 with
 * `WWW-Authenticate: Bearer error="invalid_token"`. An HTTPError thrown by the verifier is passed
 * on as it is (e.g. 503 when a key server is down). Works for HTTP, GraphQL and gRPC contexts.
 * @example
 * app.get('/me', authenticate(jwtVerifier({ secret })), (ctx) => ctx.json(ctx.user));
 * authenticate.configure(jwtVerifier({ jwksUrl })); app.use(authenticate);
 */
export const authenticate: Authenticate = Object.assign(
  function authenticate(first: unknown, second?: unknown): Promise<void> | ProtocolMiddleware {
    if (typeof second === 'function' && first !== null && typeof first === 'object' && 'headers' in first) {
      return bare(first as ProtocolContext, second as Next);
    }
    return createAuthenticate(toConfig(first));
  } as Authenticate,
  {
    configure(verifier: TokenVerifier | AuthenticateConfig | null): void {
      configured = verifier === null ? undefined : createAuthenticate(toConfig(verifier));
    },
    [ROUTE_META]: AUTH_META,
  },
);

function toConfig(value: unknown): AuthenticateConfig {
  if (typeof value === 'function' || isService(value)) return { verifier: value as TokenVerifier };
  if (value !== null && typeof value === 'object' && 'verifier' in value) return value as AuthenticateConfig;
  throw new TypeError('authenticate expects a verifier: a function (token, ctx) => user, an object with verify(token, ctx), or { verifier, optional?, realm? }');
}

function isService(value: unknown): value is { verify: VerifyFunction } {
  return value !== null && typeof value === 'object' && typeof (value as { verify?: unknown }).verify === 'function';
}

function createAuthenticate(config: AuthenticateConfig): ProtocolMiddleware {
  const { verifier } = config;
  let verify: VerifyFunction;
  if (typeof verifier === 'function') verify = verifier;
  else if (isService(verifier)) verify = (token, ctx) => verifier.verify(token, ctx);
  else throw new TypeError('authenticate: verifier must be a function (token, ctx) => user or an object with verify(token, ctx)');
  const optional = config.optional ?? false;
  if (typeof optional !== 'boolean') throw new TypeError('authenticate: optional must be a boolean');
  const realm = config.realm;
  if (realm !== undefined && (typeof realm !== 'string' || /["\\\r\n]/.test(realm))) {
    throw new TypeError('authenticate: realm must be a string without quotes, backslashes or line breaks');
  }
  const realmPart = realm === undefined ? '' : ` realm="${realm}"`;
  const challenge = { 'WWW-Authenticate': `Bearer${realmPart}` };
  const invalidChallenge = { 'WWW-Authenticate': `Bearer${realmPart}${realm === undefined ? '' : ','} error="invalid_token"` };

  const middleware = async function authenticate(ctx: ProtocolContext, next: Next): Promise<void> {
    const header = firstValue(ctx.headers.authorization);
    if (header === undefined || header === '') {
      if (optional) return next();
      throw new HTTPError(401, AUTH_REQUIRED_MESSAGE, undefined, { headers: challenge });
    }
    const match = BEARER.exec(header);
    if (match === null) throw new HTTPError(401, AUTH_REQUIRED_MESSAGE, undefined, { headers: challenge });
    let user: unknown;
    try {
      user = await verify(match[1]!, ctx);
    } catch (err) {
      if (isHTTPError(err)) {
        // A verifier's own 401 ("token has no exp") still needs the RFC 6750 challenge.
        if (err.statusCode === 401 && !hasChallenge(err.headers)) {
          throw new HTTPError(401, err.message, err.details, { cause: err, headers: { ...err.headers, ...invalidChallenge }, expose: err.expose, grpcStatus: err.grpcStatus });
        }
        throw err;
      }
      throw new HTTPError(401, INVALID_TOKEN_MESSAGE, undefined, { cause: err, headers: invalidChallenge });
    }
    if (user === undefined || user === null || user === false) {
      throw new HTTPError(401, INVALID_TOKEN_MESSAGE, undefined, { headers: invalidChallenge });
    }
    ctx.user = user;
    return next();
  };
  return Object.assign(middleware, { [ROUTE_META]: optional ? OPTIONAL_AUTH_META : AUTH_META });
}

function hasChallenge(headers: Readonly<Record<string, string>> | undefined): boolean {
  if (headers === undefined) return false;
  for (const name in headers) if (name.toLowerCase() === 'www-authenticate') return true;
  return false;
}
