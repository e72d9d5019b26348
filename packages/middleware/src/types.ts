import type { KeyObject, webcrypto } from 'node:crypto';
import type { BrotliOptions, ZlibOptions } from 'node:zlib';
import type { HTTPMethod, RequestContext } from '@fw/core';

// ---------------------------------------------------------------------------------------------
// cors

/** Decides whether a request origin is allowed. */
export type OriginPredicate = (origin: string) => boolean;

/** Options of `cors()`. */
export interface CorsConfig {
  /**
   * Allowed origins: `*` (any), one origin, a list, or a predicate. With a list or predicate the
   * matching request origin is echoed back and `Vary: Origin` is added.
   * @default '*'
   */
  origin?: string | readonly string[] | OriginPredicate;
  /** Methods announced in `Access-Control-Allow-Methods` on preflight. @default ['GET','POST','PUT','PATCH','DELETE','OPTIONS'] */
  methods?: readonly HTTPMethod[];
  /** Request headers announced in `Access-Control-Allow-Headers` on preflight. @default ['Content-Type','Authorization'] */
  allowedHeaders?: readonly string[];
  /** Response headers listed in `Access-Control-Expose-Headers` on actual responses. @default [] */
  exposedHeaders?: readonly string[];
  /** Sends `Access-Control-Allow-Credentials: true`; needs an explicit origin. @default false */
  credentials?: boolean;
  /** Seconds a browser may cache the preflight answer (`Access-Control-Max-Age`). @default 86400 */
  maxAge?: number;
}

// ---------------------------------------------------------------------------------------------
// logger

/** Where `logger()` writes: a stream-like object (gets `line + '\n'`) or a function (gets `line`). */
export type LogTarget =
  | {
      write(chunk: string): unknown;
      /** Whether it is a terminal (only terminals are coloured without `FORCE_COLOR`). */
      isTTY?: boolean;
      /** A terminal's own colour detection (`tty.WriteStream#hasColors(env)`), asked when present. */
      hasColors?(env?: object): boolean;
    }
  | ((line: string) => void);

/** Options of `logger()`. */
export interface LoggerConfig {
  /** Where lines go. @default process.stdout */
  stream?: LogTarget;
  /**
   * Colour the status. Default: as node colours a terminal: `FORCE_COLOR` (`1`/`2`/`3`/`true`/empty
   * on, even without a TTY; `0` or anything else off), else off with `NO_COLOR` (any value),
   * `NODE_DISABLE_COLORS` or `TERM=dumb`, else on for a TTY stream only. Read when `logger()` is called.
   * @default undefined (auto)
   */
  colors?: boolean;
  /**
   * Log the stack of thrown 4xx HTTPErrors (401, 404, 429, ...) too, since every error is logged with
   * its stack; `false` logs them as one line (other errors always get their stack).
   * @default true
   */
  clientErrorStacks?: boolean;
}

// ---------------------------------------------------------------------------------------------
// rateLimit

/** One counted hit as a store reports it. */
export interface RateLimitHit {
  /** Hits in the current window, this one included. */
  count: number;
  /** When the current window ends, in milliseconds since the epoch. */
  resetAt: number;
}

/**
 * Where rate-limit counters live. `increment` may answer synchronously (the memory store does,
 * so the common path allocates no promise) or with a promise (Redis).
 */
export interface RateLimitStore {
  /** Counts one hit for `key` in a fixed window of `windowMs` (started by the first hit). */
  increment(key: string, windowMs: number): RateLimitHit | Promise<RateLimitHit>;
  /** Takes one hit back (used by `skipSuccessfulRequests` / `skipFailedRequests`). */
  decrement(key: string): void | Promise<void>;
  /** Forgets `key` entirely. */
  reset(key: string): void | Promise<void>;
}

/** Which IETF `RateLimit` header draft to follow when `standardHeaders` is on. */
export type StandardHeadersDraft = 'draft-7' | 'draft-8';

/** Options of `rateLimit()`. */
export interface RateLimitConfig<C extends RequestContext = RequestContext> {
  /** Length of a window in milliseconds. @default 60000 */
  windowMs?: number;
  /** Requests allowed per key per window. @default 100 */
  maxRequests?: number;
  /**
   * The key a request is counted under; what it returns is used as it is.
   * @default (ctx) => clientIpKey(ctx.ip, ipv6Subnet) (see the app's `trustProxy`)
   */
  keyGenerator?: (ctx: C) => string;
  /**
   * Prefix length by which the default key groups IPv6 clients (one customer holds a /64 or a
   * /56, so keying by full address lets it rotate past the limit); `false` keys by the full
   * address. Spellings are normalised either way (`::ffff:1.2.3.4` counts as `1.2.3.4`). Ignored
   * with a custom `keyGenerator`.
   * @default 56
   */
  ipv6Subnet?: number | false;
  /** Message of the 429 error body. @default 'Too many requests, please try again later' */
  message?: string;
  /** Do not count requests answered 2xx. @default false */
  skipSuccessfulRequests?: boolean;
  /** Do not count requests answered 4xx or 5xx (thrown errors included). @default false */
  skipFailedRequests?: boolean;
  /** Requests for which this returns true are neither counted nor limited. @default undefined */
  skip?: (ctx: C) => boolean;
  /** Where counters live. @default a new MemoryStore() per rateLimit() call */
  store?: RateLimitStore;
  /**
   * Also send the IETF `RateLimit` and `RateLimit-Policy` headers; `true` means `'draft-7'`
   * (`RateLimit: limit=100, remaining=99, reset=60`).
   * @default false
   */
  standardHeaders?: boolean | StandardHeadersDraft;
  /** When the store fails: false lets the request through (fail open), true answers 503. @default false */
  failClosed?: boolean;
  /**
   * Told about store failures: once when the store starts failing (again after it recovered).
   * @default one escaped entry on stderr (core's `defaultLog`): the explanation and the store's error
   */
  onStoreError?: (error: unknown) => void;
}

/** Options of `new MemoryStore()`. */
export interface MemoryStoreConfig {
  /**
   * Most keys kept at once (rate-limit windows; and, apart, as many idempotency keys). Expired windows are dropped as requests come in; past this cap the
   * least recently used key is dropped even if its window is live (that key starts a fresh window).
   * @default 100000
   */
  maxKeys?: number;
}

// ---------------------------------------------------------------------------------------------
// idempotency

/** A response as `idempotency()` stores it, to replay to a retry. */
export interface StoredResponse {
  /** The HTTP status. */
  status: number;
  /** The response headers kept (`storedHeaders`), lower-case names. */
  headers: Record<string, string>;
  /** The body's bytes, base64; empty for no body. For `kind: 'value'`, the result serialized with `node:v8`, or the refusal's JSON. */
  body: string;
  /**
   * Undefined: an HTTP answer, replayed as it was sent. `'value'`: a procedure call's (gRPC)
   * operation result, replayed as the call's result, or its refusal (`status` >= 400).
   */
  kind?: 'value';
}

/** What a store holds for one idempotency key. */
export type IdempotencyRecord =
  /** The first request with the key is still running. */
  | { state: 'running'; fingerprint: string }
  /** It finished: its response is replayed to retries. */
  | { state: 'done'; fingerprint: string; response: StoredResponse };

/**
 * Where `idempotency()` keeps its keys: `MemoryStore` and `RedisStore` implement it beside the
 * rate-limit counters (one store object can serve both). Each method may answer synchronously or
 * with a promise.
 */
export interface IdempotencyStore {
  /**
   * Atomically: when `key` holds nothing, records it `running` with `fingerprint` for `lockMs` and
   * returns undefined (the caller runs the request); otherwise returns what it holds, unchanged.
   */
  begin(key: string, fingerprint: string, lockMs: number): IdempotencyRecord | undefined | Promise<IdempotencyRecord | undefined>;
  /** Replaces the `running` record of `key` with the finished one, kept for `ttlMs`. */
  finish(key: string, record: IdempotencyRecord & { state: 'done' }, ttlMs: number): void | Promise<void>;
  /** Forgets `key` (the first request failed: a retry runs again). */
  abandon(key: string): void | Promise<void>;
}

/** Options of `idempotency()`. */
export interface IdempotencyConfig<C extends RequestContext = RequestContext> {
  /** The request header that carries the key. @default 'Idempotency-Key' */
  header?: string;
  /** The methods the key applies to; other methods pass through untouched. @default ['POST', 'PATCH'] */
  methods?: readonly string[];
  /** How long a finished response is replayed, in ms. @default 86400000 (24 hours) */
  ttl?: number;
  /**
   * How long a key stays locked while its first request runs, in ms: past it (the instance died
   * mid-request) a retry runs again. Keep it above your slowest request. @default 60000
   */
  lockTimeout?: number;
  /** Answer 400 to a request of these methods without the header. @default false */
  required?: boolean;
  /**
   * Whose key it is: keys of different scopes never meet. Return the client's identity
   * (`(ctx) => (ctx.user as { sub: string }).sub`) so one client can never replay another's response.
   * @default (ctx) => `${ctx.method} ${ctx.path}` (the key alone, per method and path)
   */
  keyGenerator?: (ctx: C) => string;
  /** Where keys and responses live. @default a new MemoryStore() per idempotency() call */
  store?: IdempotencyStore;
  /**
   * The response headers stored and replayed (besides the status and body); others (cookies, rate
   * limits, dates) belong to each response.
   * @default ['content-type', 'content-encoding', 'content-language', 'content-location', 'location', 'etag', 'last-modified', 'cache-control', 'vary', 'link']
   */
  storedHeaders?: readonly string[];
  /** The header that marks a replayed response (value `true`). @default 'Idempotent-Replayed' */
  replayHeader?: string;
  /** Longest key accepted; a longer one is answered 400. @default 255 */
  maxKeyLength?: number;
}

/** The few ioredis methods the Redis store calls (ioredis 5 `Redis` and `Cluster` both fit). */
export interface RedisClientLike {
  /** EVALSHA: runs a cached script. */
  evalsha(sha: string, numKeys: number, ...args: Array<string | number>): Promise<unknown>;
  /** EVAL: runs (and caches) a script. */
  eval(script: string, numKeys: number, ...args: Array<string | number>): Promise<unknown>;
  /** DEL. */
  del(...keys: string[]): Promise<number>;
  /** SET with `PX` (a TTL in ms): how `idempotency()` stores a response. */
  set?(key: string, value: string, px: 'PX', milliseconds: number): Promise<unknown>;
  /** SET with `PX`, `NX` and `GET`: how `idempotency()` locks a key (needs Redis 7). */
  set?(key: string, value: string, px: 'PX', milliseconds: number, nx: 'NX', get: 'GET'): Promise<unknown>;
}

/** Options of `new RedisStore()`. */
export interface RedisStoreConfig {
  /** An ioredis client (tip: `enableOfflineQueue: false` so commands fail at once while disconnected). */
  client: RedisClientLike;
  /** Prefix of every Redis key. @default 'fw:rl:' */
  prefix?: string;
  /** Longest wait for Redis per hit, in milliseconds; then the hit fails (see `failClosed`). @default 500 */
  timeout?: number;
}

// ---------------------------------------------------------------------------------------------
// authenticate

/** Checks a bearer token and returns the user; throwing or returning nothing means "invalid". */
export type VerifyFunction<U = unknown> = (token: string, ctx: RequestContext) => U | null | undefined | false | Promise<U | null | undefined | false>;

/** A token-verification service: an object with a `verify` method. */
export interface VerifierService<U = unknown> {
  verify: VerifyFunction<U>;
}

/** What `authenticate` accepts as its verifier: a function or a service object. */
export type TokenVerifier<U = unknown> = VerifyFunction<U> | VerifierService<U>;

/** Options of `authenticate({ ... })`. */
export interface AuthenticateConfig<U = unknown> {
  /** Checks the token and returns the user. */
  verifier: TokenVerifier<U>;
  /** Let requests without an `Authorization` header through with no user (a bad token is still 401). @default false */
  optional?: boolean;
  /** Adds `realm="<realm>"` to `WWW-Authenticate`. @default undefined */
  realm?: string;
}

/** The claims of a verified JWT: what `jwtVerifier` puts in `ctx.user`. */
export interface JwtClaims {
  /** Subject: the user id. */
  sub?: string;
  iss?: string;
  aud?: string | string[];
  exp?: number;
  nbf?: number;
  iat?: number;
  jti?: string;
  [claim: string]: unknown;
}

/** A public key as `jwtVerifier` accepts it: a KeyObject, a CryptoKey, a PEM string (SPKI or X.509) or a JWK. */
export type PublicKeyInput = KeyObject | webcrypto.CryptoKey | string | JsonWebKeyInput;

/** A public JSON Web Key (RSA, EC or OKP). */
export interface JsonWebKeyInput {
  kty: string;
  [parameter: string]: unknown;
}

/** Options of `jwtVerifier()`: exactly one of `secret`, `publicKey`, `jwksUrl`. */
export interface JwtVerifierConfig {
  /** Shared secret for HMAC (HS256 by default); use at least 32 random bytes. */
  secret?: string | Uint8Array;
  /** Public key for RS256 / ES256 / EdDSA tokens. */
  publicKey?: PublicKeyInput;
  /** URL of a JSON Web Key Set; keys are fetched on demand and cached. */
  jwksUrl?: string | URL;
  /** Remote key set tuning, in milliseconds. @default { timeout: 5000, cooldown: 30000, cacheMaxAge: 600000 } */
  jwks?: { timeout?: number; cooldown?: number; cacheMaxAge?: number };
  /**
   * Accepted `alg` values. Default: `['HS256']` for a secret; from the key for a public key
   * (RS256, PS256, ES256/384/512 by curve, EdDSA); every asymmetric JWS algorithm for a JWKS URL.
   */
  algorithms?: readonly string[];
  /** Required `iss` (one of). @default undefined (not checked) */
  issuer?: string | readonly string[];
  /** Required `aud` (one of). @default undefined (not checked) */
  audience?: string | readonly string[];
  /** Leeway for `exp` / `nbf` / `iat`, in seconds. @default 0 */
  clockTolerance?: number;
  /** Claims that must be present (e.g. `['sub']`). @default [] */
  requiredClaims?: readonly string[];
  /**
   * Refuse tokens without an `exp` claim (401 `Token has no expiration time (exp claim)`): such a
   * token, once leaked, is valid forever. `false` accepts them (an `exp` that is there is still checked).
   * @default true
   */
  requireExp?: boolean;
}

/** The verifier `jwtVerifier()` returns: usable with `authenticate(verifier)`. */
export type JwtVerifier = (token: string, ctx?: RequestContext) => Promise<JwtClaims>;

// ---------------------------------------------------------------------------------------------
// etag

/** Options of `etag()`. */
export interface ETagConfig {
  /**
   * Send weak ETags (`W/"…"`): the answer is the same, byte for byte or not (a compressed copy,
   * another JSON spacing). `false` sends strong ones (`"…"`), for byte ranges and `If-Match`.
   * @default true
   */
  weak?: boolean;
}

// ---------------------------------------------------------------------------------------------
// secureHeaders

/**
 * Content-Security-Policy directives by their camelCase names (`defaultSrc` → `default-src`), each
 * a source, a list of sources, or `true` for a directive without one (`upgradeInsecureRequests`).
 */
export type ContentSecurityPolicyDirectives = Readonly<Record<string, string | readonly string[] | boolean | undefined>>;

/** `Strict-Transport-Security` by its parts. */
export interface StrictTransportSecurityConfig {
  /** Seconds the browser keeps to https. @default 15552000 (180 days) */
  maxAge?: number;
  /** The policy covers subdomains too. @default true */
  includeSubDomains?: boolean;
  /** Ask to be on the browsers' preload list. @default false */
  preload?: boolean;
}

/**
 * Options of `secureHeaders()`. Each header option takes its value as a string, `false` (not sent)
 * or `true` (its default value).
 */
export interface SecureHeadersConfig {
  /**
   * `Content-Security-Policy`: a policy as written, or its directives. A route that sets its own keeps it.
   * @default "default-src 'none'; frame-ancestors 'none'"
   */
  contentSecurityPolicy?: string | ContentSecurityPolicyDirectives | boolean;
  /** `Cross-Origin-Embedder-Policy`; `true` sends `require-corp`. @default false */
  crossOriginEmbedderPolicy?: string | boolean;
  /** `Cross-Origin-Opener-Policy`. @default 'same-origin' */
  crossOriginOpenerPolicy?: string | boolean;
  /** `Cross-Origin-Resource-Policy`. @default 'same-origin' */
  crossOriginResourcePolicy?: string | boolean;
  /** `Origin-Agent-Cluster`; `true` sends `?1`. @default false */
  originAgentCluster?: string | boolean;
  /** `Permissions-Policy`, e.g. `'camera=(), microphone=()'` (no default value). @default false */
  permissionsPolicy?: string | boolean;
  /** `Referrer-Policy`. @default 'no-referrer' */
  referrerPolicy?: string | boolean;
  /**
   * `Strict-Transport-Security`. Not given: `max-age=15552000; includeSubDomains` on requests that
   * came over https (`ctx.secure`) only. `true`, a string or its parts: sent on every answer (TLS
   * ended at a proxy `trustProxy` does not trust; browsers ignore it over plain http). `false`: never.
   * @default 'max-age=15552000; includeSubDomains' on https requests
   */
  strictTransportSecurity?: string | StrictTransportSecurityConfig | boolean;
  /** `X-Content-Type-Options`. @default 'nosniff' */
  xContentTypeOptions?: string | boolean;
  /** `X-DNS-Prefetch-Control`. @default 'off' */
  xDnsPrefetchControl?: string | boolean;
  /** `X-Frame-Options`. @default 'DENY' */
  xFrameOptions?: string | boolean;
  /** `X-Permitted-Cross-Domain-Policies`. @default 'none' */
  xPermittedCrossDomainPolicies?: string | boolean;
  /** `X-XSS-Protection`; `true` sends `0` (turns off the old filters, as helmet does). @default false */
  xXssProtection?: string | boolean;
  /** Remove `X-Powered-By` from the answer. @default true */
  removePoweredBy?: boolean;
}

// ---------------------------------------------------------------------------------------------
// compress

/** A content coding `compress()` can answer with (`zstd` only where Node has `zlib.createZstdCompress`). */
export type CompressEncoding = 'zstd' | 'br' | 'gzip' | 'deflate';

/** Options of `compress()`. */
export interface CompressConfig {
  /**
   * The codings offered, in the server's order of preference (it breaks ties between codings the
   * client weighs equally). `zstd` is left out where this Node has no zstd (Node 20): listing it is
   * not an error.
   * @default ['br', 'gzip']
   */
  encodings?: readonly CompressEncoding[];
  /** Bodies smaller than this many bytes go out uncompressed (a body of unknown size, streamed, is compressed). @default 1024 */
  threshold?: number;
  /**
   * Which media types (`type/subtype`, lower case, without parameters) are compressed. Event
   * streams, gRPC and Connect answers never are, whatever this says.
   * @default text/*, JSON and `+json`, JavaScript, XML and `+xml`, SVG, form data, WebAssembly, TTF/OTF fonts (`isCompressibleType`)
   */
  types?: RegExp | ((mediaType: string) => boolean);
  /** Options of the brotli encoder; `params` merge over the default. @default { params: { [BROTLI_PARAM_QUALITY]: 4 } } */
  brotliOptions?: BrotliOptions;
  /** Options of the gzip and deflate encoders. @default node's (level 6) */
  zlibOptions?: ZlibOptions;
}
