/**
 * @fw/middleware — the built-in middleware of fw: cors, compress, logger, rateLimit and idempotency
 * (memory and Redis stores), authenticate (with a jose-based JWT verifier), requireRole, etag
 * (conditional GET) and secureHeaders, and the route meta keys they write.
 */
// The factories load their middleware on their first call (lazy.ts); the defaults are plain values.
export { compress, cors, etag, idempotency, isCompressibleType, jwtVerifier, logger, rateLimit, secureHeaders } from './lazy.js';
export {
  AUTH_REQUIRED_MESSAGE,
  DEFAULT_BROTLI_QUALITY,
  DEFAULT_COMPRESS_ENCODINGS,
  DEFAULT_COMPRESS_THRESHOLD,
  DEFAULT_CONTENT_SECURITY_POLICY,
  DEFAULT_CORS_ALLOWED_HEADERS,
  DEFAULT_CORS_MAX_AGE,
  DEFAULT_CORS_METHODS,
  DEFAULT_IDEMPOTENCY_HEADER,
  DEFAULT_IDEMPOTENCY_LOCK_TIMEOUT,
  DEFAULT_IDEMPOTENCY_METHODS,
  DEFAULT_IDEMPOTENCY_REPLAY_HEADER,
  DEFAULT_IDEMPOTENCY_STORED_HEADERS,
  DEFAULT_IDEMPOTENCY_TTL,
  DEFAULT_JWKS_ALGORITHMS,
  DEFAULT_RATE_LIMIT_MAX_REQUESTS,
  DEFAULT_RATE_LIMIT_MESSAGE,
  DEFAULT_RATE_LIMIT_WINDOW_MS,
  DEFAULT_SECURE_HEADERS,
  DEFAULT_STRICT_TRANSPORT_SECURITY,
  INVALID_TOKEN_MESSAGE,
  MISSING_EXP_MESSAGE,
} from './defaults.js';
export type { CorsMiddleware } from './cors.js';
export type { CompressMiddleware } from './compress.js';
export type { ETagMiddleware } from './etag.js';
export type { LoggerMiddleware } from './logger.js';
export type { RateLimitMiddleware } from './rate-limit.js';
export type { IdempotencyMiddleware } from './idempotency.js';
export { clientIpKey, DEFAULT_IPV6_SUBNET } from './ip-key.js';
export { MemoryStore, DEFAULT_MEMORY_STORE_MAX_KEYS } from './memory-store.js';
export { RedisStore, RedisStoreError, DEFAULT_REDIS_PREFIX, DEFAULT_REDIS_TIMEOUT } from './redis-store.js';
export { authenticate } from './authenticate.js';
export type { Authenticate, AuthenticateMiddleware } from './authenticate.js';
export { requireRole, rolesOf, INSUFFICIENT_ROLE_MESSAGE } from './require-role.js';
export type { SecureHeadersMiddleware } from './secure-headers.js';
// Also declares the route meta keys `roles` and `rateLimited` on core's RouteMeta (`auth` and `authOptional` are core's).
export type { RateLimitedMeta } from './route-meta.js';
export type {
  AuthenticateConfig,
  CompressConfig,
  CompressEncoding,
  ContentSecurityPolicyDirectives,
  CorsConfig,
  ETagConfig,
  IdempotencyConfig,
  IdempotencyRecord,
  IdempotencyStore,
  JsonWebKeyInput,
  JwtClaims,
  JwtVerifier,
  JwtVerifierConfig,
  LoggerConfig,
  LogTarget,
  MemoryStoreConfig,
  OriginPredicate,
  PublicKeyInput,
  RateLimitConfig,
  RateLimitHit,
  RateLimitStore,
  RedisClientLike,
  RedisStoreConfig,
  SecureHeadersConfig,
  StandardHeadersDraft,
  StoredResponse,
  StrictTransportSecurityConfig,
  TokenVerifier,
  VerifierService,
  VerifyFunction,
} from './types.js';
export { createPubSub } from './pubsub/create-pubsub.js';
export { MemoryPubSub } from './pubsub/memory-pubsub.js';
export { RedisPubSub, DEFAULT_PUBSUB_PREFIX } from './pubsub/redis-pubsub.js';
export { PubSubOverflowError } from './pubsub/subscription.js';
export { DEFAULT_PUBSUB_BUFFER_SIZE, DEFAULT_PUBSUB_MAX_TOPICS, DEFAULT_REPLAY_MAX_AGE, DEFAULT_REPLAY_SIZE } from './pubsub/config.js';
export type {
  MemoryPubSubConfig,
  PubSub,
  PubSubConfig,
  PubSubMessage,
  PubSubOverflow,
  RedisPubSubClientLike,
  RedisPubSubConfig,
  RedisSubscriberLike,
  ReplayConfig,
  SubscribeOptions,
  Subscription,
} from './pubsub/types.js';
