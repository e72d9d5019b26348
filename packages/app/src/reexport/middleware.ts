/** `@fw/app/middleware`: everything `@fw/middleware` exports, for apps that install only `@fw/app`. */
export * from '@fw/middleware';
// The functions and classes are the root entry's own objects (the build points this import at
// `@fw/app` itself), so `import { x } from '@fw/app'` and from here give the same object.
export {
  authenticate,
  clientIpKey,
  cors,
  createPubSub,
  jwtVerifier,
  logger,
  MemoryPubSub,
  MemoryStore,
  PubSubOverflowError,
  rateLimit,
  RedisPubSub,
  RedisStore,
  RedisStoreError,
  requireRole,
  rolesOf,
} from '../index.js';
