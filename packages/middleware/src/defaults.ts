import type { HTTPMethod } from '@fw/core';
import type { CompressEncoding } from './types.js';

/**
 * The defaults and fixed messages of the middleware, exported by the package: kept apart from the
 * middleware themselves, which load on their first call (lazy.ts), so that reading a default
 * loads none of them.
 */

// cors()
/** Methods announced on preflight when `methods` is not given. */
export const DEFAULT_CORS_METHODS: readonly HTTPMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
/** Request headers announced on preflight when `allowedHeaders` is not given. */
export const DEFAULT_CORS_ALLOWED_HEADERS: readonly string[] = ['Content-Type', 'Authorization'];
/** Preflight cache duration in seconds when `maxAge` is not given. */
export const DEFAULT_CORS_MAX_AGE = 86400;

// compress()
/** The codings offered when `encodings` is not given, the server's preference first. */
export const DEFAULT_COMPRESS_ENCODINGS: readonly CompressEncoding[] = Object.freeze(['br', 'gzip']);
/** Bodies smaller than this many bytes are sent uncompressed when `threshold` is not given. */
export const DEFAULT_COMPRESS_THRESHOLD = 1024;
/**
 * The brotli quality when `brotliOptions` does not set one. Node's default, 11, costs about 150×
 * gzip's CPU on a 10 KB JSON answer; at 4 brotli costs what gzip (level 6) costs and still sends
 * fewer bytes (measured on 2, 10 and 100 KB JSON: 37/88/342 µs against gzip's 39/91/1377 µs).
 */
export const DEFAULT_BROTLI_QUALITY = 4;

// rate-limit()
/** Window length when `windowMs` is not given. */
export const DEFAULT_RATE_LIMIT_WINDOW_MS = 60_000;
/** Requests per window when `maxRequests` is not given. */
export const DEFAULT_RATE_LIMIT_MAX_REQUESTS = 100;
/** Message of the 429 body when `message` is not given. */
export const DEFAULT_RATE_LIMIT_MESSAGE = 'Too many requests, please try again later';

// idempotency()
/** The header that carries the key when `header` is not given (IETF draft-ietf-httpapi-idempotency-key-header). */
export const DEFAULT_IDEMPOTENCY_HEADER = 'Idempotency-Key';
/** How long a response is replayed when `ttl` is not given: 24 hours, as the draft and Stripe suggest. */
export const DEFAULT_IDEMPOTENCY_TTL = 86_400_000;
/** How long a running key stays locked when `lockTimeout` is not given. */
export const DEFAULT_IDEMPOTENCY_LOCK_TIMEOUT = 60_000;
/** The methods a key applies to when `methods` is not given: those that are neither safe nor idempotent already. */
export const DEFAULT_IDEMPOTENCY_METHODS: readonly string[] = Object.freeze(['POST', 'PATCH']);
/** The header that marks a replayed response when `replayHeader` is not given (Stripe's). */
export const DEFAULT_IDEMPOTENCY_REPLAY_HEADER = 'Idempotent-Replayed';
/** The response headers stored and replayed when `storedHeaders` is not given: those that describe the representation. */
export const DEFAULT_IDEMPOTENCY_STORED_HEADERS: readonly string[] = Object.freeze([
  'content-type',
  'content-encoding',
  'content-language',
  'content-location',
  'location',
  'etag',
  'last-modified',
  'cache-control',
  'vary',
  'link',
]);

// authenticate()
/** Message of the 401 when no (or no well-formed) bearer token was sent. */
export const AUTH_REQUIRED_MESSAGE = 'Authentication required';
/** Message of the 401 when the verifier rejected the token. */
export const INVALID_TOKEN_MESSAGE = 'Invalid or expired token';

// jwt()
/** Algorithms a JWKS URL accepts when `algorithms` is not given: every asymmetric JWS algorithm. */
export const DEFAULT_JWKS_ALGORITHMS: readonly string[] = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];
/** Message of the 401 for a token without `exp` (unless `requireExp: false`). */
export const MISSING_EXP_MESSAGE = 'Token has no expiration time (exp claim)';

// secure-headers()
/** `Content-Security-Policy` for API answers: nothing may load, nothing may frame the answer. */
export const DEFAULT_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'";
/** `Strict-Transport-Security` sent on https requests: 180 days, subdomains included. */
export const DEFAULT_STRICT_TRANSPORT_SECURITY = 'max-age=15552000; includeSubDomains';
/** Each header option of `secureHeaders()`: its header, the value `true` sends (`undefined`: none, a string must be given), and whether it is on by default. */
export const SECURE_HEADERS_TABLE = {
  contentSecurityPolicy: ['content-security-policy', DEFAULT_CONTENT_SECURITY_POLICY, true],
  crossOriginEmbedderPolicy: ['cross-origin-embedder-policy', 'require-corp', false],
  crossOriginOpenerPolicy: ['cross-origin-opener-policy', 'same-origin', true],
  crossOriginResourcePolicy: ['cross-origin-resource-policy', 'same-origin', true],
  originAgentCluster: ['origin-agent-cluster', '?1', false],
  permissionsPolicy: ['permissions-policy', undefined, false],
  referrerPolicy: ['referrer-policy', 'no-referrer', true],
  xContentTypeOptions: ['x-content-type-options', 'nosniff', true],
  xDnsPrefetchControl: ['x-dns-prefetch-control', 'off', true],
  xFrameOptions: ['x-frame-options', 'DENY', true],
  xPermittedCrossDomainPolicies: ['x-permitted-cross-domain-policies', 'none', true],
  xXssProtection: ['x-xss-protection', '0', false],
} as const satisfies Record<string, readonly [string, string | undefined, boolean]>;

/** The headers on by default, as sent: header name → value (`Strict-Transport-Security` on https requests only). */
export const DEFAULT_SECURE_HEADERS: Readonly<Record<string, string>> = Object.freeze(
  Object.fromEntries<string>([
    ...Object.values(SECURE_HEADERS_TABLE).flatMap(([name, value, on]): Array<[string, string]> => (on && value !== undefined ? [[name, value]] : [])),
    ['strict-transport-security', DEFAULT_STRICT_TRANSPORT_SECURITY],
  ]),
);
