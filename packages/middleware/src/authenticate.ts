import { errorCodeOf, HTTPError, isHTTPError, withMeta, type Next, type RequestContext, type WithMeta } from '@fw/core';
import { bearerToken } from '@fw/core/plugin';
import { firstValue } from './internal/headers.js';
import type { AuthenticateConfig, TokenVerifier, VerifyFunction } from './types.js';
import { AUTH_REQUIRED_MESSAGE, INVALID_TOKEN_MESSAGE } from './defaults.js';


/** The middleware `authenticate(verifier)` returns: it runs on every protocol's context and marks its routes `auth` (or `authOptional`). */
export type AuthenticateMiddleware = WithMeta<(ctx: RequestContext, next: Next) => Promise<void>>;

/**
 * `authenticate` is both a ready middleware and a factory:
 * - `authenticate(verifier)` / `authenticate({ verifier, optional?, realm? })` returns a middleware;
 * - `authenticate` itself, used as middleware, uses the verifier set with `authenticate.configure()`.
 */
export interface Authenticate {
  /** Used directly as middleware: verifies with the verifier given to `authenticate.configure()`. */
  (ctx: RequestContext, next: Next): Promise<void>;
  /** Returns a middleware that verifies bearer tokens with `verifier`. */
  <U>(verifier: TokenVerifier<U> | AuthenticateConfig<U>): AuthenticateMiddleware;
  /** Sets (or with `null` clears) the verifier the bare `authenticate` middleware uses, process-wide. */
  configure(verifier: TokenVerifier | AuthenticateConfig | null): void;
}

let configured: AuthenticateMiddleware | undefined;

function bare(ctx: RequestContext, next: Next): Promise<void> {
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
export const authenticate: WithMeta<Authenticate> = withMeta(
  Object.assign(
    function authenticate(first: unknown, second?: unknown): Promise<void> | AuthenticateMiddleware {
      if (typeof second === 'function' && first !== null && typeof first === 'object' && 'headers' in first) {
        return bare(first as RequestContext, second as Next);
      }
      return createAuthenticate(toConfig(first));
    } as Authenticate,
    {
      configure(verifier: TokenVerifier | AuthenticateConfig | null): void {
        configured = verifier === null ? undefined : createAuthenticate(toConfig(verifier));
      },
    },
  ),
  { auth: true },
);

function toConfig(value: unknown): AuthenticateConfig {
  if (typeof value === 'function' || isService(value)) return { verifier: value as TokenVerifier };
  if (value !== null && typeof value === 'object' && 'verifier' in value) return value as AuthenticateConfig;
  throw new TypeError('authenticate expects a verifier: a function (token, ctx) => user, an object with verify(token, ctx), or { verifier, optional?, realm? }');
}

function isService(value: unknown): value is { verify: VerifyFunction } {
  return value !== null && typeof value === 'object' && typeof (value as { verify?: unknown }).verify === 'function';
}

function createAuthenticate(config: AuthenticateConfig): AuthenticateMiddleware {
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

  const middleware = async function authenticate(ctx: RequestContext, next: Next): Promise<void> {
    const header = firstValue(ctx.headers.authorization);
    if (header === undefined || header === '') {
      if (optional) return next();
      throw new HTTPError(401, AUTH_REQUIRED_MESSAGE, undefined, { headers: challenge });
    }
    const token = bearerToken(header);
    if (token === undefined) throw new HTTPError(401, AUTH_REQUIRED_MESSAGE, undefined, { headers: challenge });
    let user: unknown;
    try {
      user = await verify(token, ctx);
    } catch (err) {
      if (isHTTPError(err)) {
        // A verifier's own 401 ("token has no exp") still needs the RFC 6750 challenge; the code
        // it was given carries over.
        if (err.statusCode === 401 && !hasChallenge(err.headers)) {
          throw new HTTPError(401, err.message, err.details, { code: errorCodeOf(err), cause: err, headers: { ...err.headers, ...invalidChallenge }, expose: err.expose });
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
  // Optional authentication documents the token as accepted, not required.
  return withMeta(middleware, optional ? { authOptional: true } : { auth: true });
}

function hasChallenge(headers: Readonly<Record<string, string>> | undefined): boolean {
  if (headers === undefined) return false;
  for (const name in headers) if (name.toLowerCase() === 'www-authenticate') return true;
  return false;
}
