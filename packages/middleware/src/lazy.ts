// The middleware factories of this package: each is this package's own function, and loads its
// implementation (internal/implementation.ts) on its first call, when the app is set up. Importing
// @fw/middleware, as @fw/app's root does for every app, compiles none of them: an app pays for
// the middleware it uses. The middleware a factory returns is the implementation's own function,
// so nothing on the request path goes through this file.
import type { RequestContext } from '@fw/core';
import type { CompressMiddleware } from './compress.js';
import type { CorsMiddleware } from './cors.js';
import type { ETagMiddleware } from './etag.js';
import type { IdempotencyMiddleware } from './idempotency.js';
import type * as Implementation from './internal/implementation.js';
import type { LoggerMiddleware } from './logger.js';
import type { RateLimitMiddleware } from './rate-limit.js';
import type { SecureHeadersMiddleware } from './secure-headers.js';
import type {
  CompressConfig,
  CorsConfig,
  ETagConfig,
  IdempotencyConfig,
  JwtVerifier,
  JwtVerifierConfig,
  LoggerConfig,
  RateLimitConfig,
  SecureHeadersConfig,
} from './types.js';

let implementation: typeof Implementation | undefined;
// eslint-disable-next-line @typescript-eslint/no-require-imports -- synchronous on purpose: middleware factories are synchronous
const load = (): typeof Implementation => (implementation ??= require('./internal/implementation.js') as typeof Implementation);

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
  return load().cors(config);
}

/**
 * Compresses responses with the coding the client's `Accept-Encoding` prefers among `encodings`
 * (brotli, gzip; zstd where Node has it), and adds `Vary: Accept-Encoding` to every answer of a
 * compressible type. Bodies under `threshold`, types that are already compressed, answers that
 * already have a `Content-Encoding`, `Cache-Control: no-transform`, HEAD, 204/206/304, server-sent
 * events, gRPC and Connect answers are sent as they are. Bodies of `ctx.json()`, `ctx.text()`,
 * `ctx.send()` are compressed whole; what a handler writes or pipes into `ctx.res` is compressed
 * as it streams. Install it with `app.use()` before middleware that writes answers.
 * @example
 * app.use(compress({ threshold: 2048 }));
 */
export function compress(config: CompressConfig = {}): CompressMiddleware {
  return load().compress(config);
}

/**
 * Whether `compress()` compresses a media type (`type/subtype`, lower case) by default: text
 * (event streams aside), JSON and `+json`, JavaScript, XML and `+xml`, SVG, form data, YAML,
 * WebAssembly, uncompressed fonts. Images, audio, video, archives and `application/octet-stream`
 * are already compressed or unknown: not by default.
 */
export function isCompressibleType(mediaType: string): boolean {
  return load().isCompressibleType(mediaType);
}

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
  return load().etag(config);
}

/**
 * Logs one line per request: `[<status>] <method> <path> - <duration>ms`; the status is green
 * for 2xx, cyan for 3xx, yellow for 4xx, red for 5xx when colours are on (as node decides for a
 * terminal: FORCE_COLOR, NO_COLOR, NODE_DISABLE_COLORS, TTY). A thrown error logs
 * `[ERROR] <method> <path> - <duration>ms <error text>` followed by the stack (4xx HTTPErrors
 * without it when `clientErrorStacks: false`), and is re-thrown, so the error handler still
 * answers. A request whose client cancelled or left logs the plain line `[499] <method> <path> -
 * <duration>ms`, without a stack. A WebSocket connection its middleware let through (GraphQL over
 * WebSocket runs it at `connection_init`) logs the `101` of its handshake. Control characters from the request (method, path, error messages) are written as
 * visible escapes (`\n`, `\x1b`), so no request can forge a log line or drive the terminal.
 * @example
 * app.use(logger());                                  // to stdout
 * app.use(logger({ stream: (line) => lines.push(line) }));
 */
export function logger(config: LoggerConfig = {}): LoggerMiddleware {
  return load().logger(config);
}

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
  return load().rateLimit(config);
}

/**
 * Makes retries of unsafe requests safe (IETF draft-ietf-httpapi-idempotency-key-header): a
 * request of `methods` with an `Idempotency-Key` header runs once; its response (status, the
 * `storedHeaders`, body bytes) is stored under the key and the request's `keyGenerator` scope,
 * with a fingerprint of the request (SHA-256 of method, path and raw body bytes). A retry with the
 * same key and request gets that response again with `Idempotent-Replayed: true`; the same key
 * with another request is answered 422; a retry while the first still runs, 409 with
 * `Retry-After`. A 5xx (or a thrown 5xx) is not stored, so the retry runs again; a 2xx-4xx is.
 * Works on HTTP requests (REST routes, operations' routes, Connect calls on the app's port);
 * other contexts pass through. Share keys between instances with `store: new RedisStore({ client })`.
 * @example
 * app.post('/payments', idempotency({ keyGenerator: (ctx) => (ctx.user as { sub: string }).sub }), pay);
 */
export function idempotency<C extends RequestContext = RequestContext>(config: IdempotencyConfig<C> = {}): IdempotencyMiddleware<C> {
  return load().idempotency(config);
}

/**
 * Security response headers for an API (what helmet and Hono's `secureHeaders` send, with an API's
 * strictest policy): `Content-Security-Policy: default-src 'none'; frame-ancestors 'none'`,
 * `X-Content-Type-Options: nosniff`, `X-Frame-Options: DENY`, `Referrer-Policy: no-referrer`,
 * `Cross-Origin-Opener-Policy` and `Cross-Origin-Resource-Policy: same-origin`,
 * `X-DNS-Prefetch-Control: off`, `X-Permitted-Cross-Domain-Policies: none`, and, on requests that
 * came over https (`ctx.secure`: TLS, or a proxy `trustProxy` trusts saying so),
 * `Strict-Transport-Security: max-age=15552000; includeSubDomains`. `X-Powered-By` is removed.
 * Each option takes a value of its own, `false` (not sent) or `true` (its default, for those off by
 * default). The headers are set before the route runs, so error answers and streams carry them and
 * a route that sets one itself (a page with its own `Content-Security-Policy`) keeps its own.
 * @example
 * app.use(secureHeaders());
 * app.use(secureHeaders({ xFrameOptions: 'SAMEORIGIN', contentSecurityPolicy: { defaultSrc: ["'self'"] } }));
 */
export function secureHeaders(config: SecureHeadersConfig = {}): SecureHeadersMiddleware {
  return load().secureHeaders(config);
}

/**
 * A token verifier for `authenticate` built on `jose`: checks the signature (HS256 secret,
 * RS256/ES256/EdDSA public key, or a remote JWKS), `exp` (required unless `requireExp: false`,
 * since a token without one is valid forever) and `nbf`, and optionally `iss`/`aud`, and
 * returns the claims, which `authenticate` puts in `ctx.user` (`ctx.user.sub` is the subject).
 * When the JWKS cannot be fetched the verifier throws a 503 instead of calling the token invalid.
 * @example
 * const verify = jwtVerifier({ jwksUrl: 'https://auth.example.com/.well-known/jwks.json', issuer: 'https://auth.example.com/', audience: 'api' });
 * app.use(authenticate(verify));
 */
export function jwtVerifier(config: JwtVerifierConfig): JwtVerifier {
  return load().jwtVerifier(config);
}
