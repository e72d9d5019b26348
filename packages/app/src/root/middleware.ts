// `@fw/middleware`'s functions and classes on the root entry, loaded on first use (see ../internal/lazy.ts).
import { ROUTE_META } from '@fw/core';
import type * as M from '@fw/middleware';
import { lazyClass, lazyFunction } from '../internal/lazy.js';
import { loadMiddleware as load } from '../internal/optional.js';

/** `@fw/middleware`'s `authenticate` (its `configure` and route meta included), loaded on first use. */
export const authenticate: typeof M.authenticate = lazyFunction('authenticate', () => load().authenticate, ['configure', ROUTE_META]);
/** `@fw/middleware`'s `clientIpKey`, loaded on first use. */
export const clientIpKey: typeof M.clientIpKey = lazyFunction('clientIpKey', () => load().clientIpKey);
/** `@fw/middleware`'s `createPubSub`, loaded on first use. */
export const createPubSub: typeof M.createPubSub = lazyFunction('createPubSub', () => load().createPubSub);
/** `@fw/middleware`'s `cors`, loaded on first use. */
export const cors: typeof M.cors = lazyFunction('cors', () => load().cors);
/** `@fw/middleware`'s `jwtVerifier`, loaded on first use. */
export const jwtVerifier: typeof M.jwtVerifier = lazyFunction('jwtVerifier', () => load().jwtVerifier);
/** `@fw/middleware`'s `logger`, loaded on first use. */
export const logger: typeof M.logger = lazyFunction('logger', () => load().logger);
/** `@fw/middleware`'s `rateLimit`, loaded on first use. */
export const rateLimit: typeof M.rateLimit = lazyFunction('rateLimit', () => load().rateLimit);
/** `@fw/middleware`'s `requireRole`, loaded on first use. */
export const requireRole: typeof M.requireRole = lazyFunction('requireRole', () => load().requireRole);
/** `@fw/middleware`'s `rolesOf`, loaded on first use. */
export const rolesOf: typeof M.rolesOf = lazyFunction('rolesOf', () => load().rolesOf);
/** `@fw/middleware`'s `MemoryStore` class, loaded on first use. */
export const MemoryStore: typeof M.MemoryStore = lazyClass('MemoryStore', () => load().MemoryStore);
/** An instance of `@fw/middleware`'s `MemoryStore`. */
export type MemoryStore = M.MemoryStore;
/** `@fw/middleware`'s `RedisStore` class, loaded on first use. */
export const RedisStore: typeof M.RedisStore = lazyClass('RedisStore', () => load().RedisStore);
/** An instance of `@fw/middleware`'s `RedisStore`. */
export type RedisStore = M.RedisStore;
/** `@fw/middleware`'s `RedisStoreError` class, loaded on first use. */
export const RedisStoreError: typeof M.RedisStoreError = lazyClass('RedisStoreError', () => load().RedisStoreError);
/** An instance of `@fw/middleware`'s `RedisStoreError`. */
export type RedisStoreError = M.RedisStoreError;
/** `@fw/middleware`'s `MemoryPubSub` class, loaded on first use. */
export const MemoryPubSub: typeof M.MemoryPubSub = lazyClass('MemoryPubSub', () => load().MemoryPubSub);
/** An instance of `@fw/middleware`'s `MemoryPubSub`. */
export type MemoryPubSub<TEvents extends object = Record<string, unknown>> = M.MemoryPubSub<TEvents>;
/** `@fw/middleware`'s `RedisPubSub` class, loaded on first use. */
export const RedisPubSub: typeof M.RedisPubSub = lazyClass('RedisPubSub', () => load().RedisPubSub);
/** An instance of `@fw/middleware`'s `RedisPubSub`. */
export type RedisPubSub<TEvents extends object = Record<string, unknown>> = M.RedisPubSub<TEvents>;
/** `@fw/middleware`'s `PubSubOverflowError` class, loaded on first use. */
export const PubSubOverflowError: typeof M.PubSubOverflowError = lazyClass('PubSubOverflowError', () => load().PubSubOverflowError);
/** An instance of `@fw/middleware`'s `PubSubOverflowError`. */
export type PubSubOverflowError = M.PubSubOverflowError;
