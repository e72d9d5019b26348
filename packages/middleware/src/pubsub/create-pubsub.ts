import { MemoryPubSub } from './memory-pubsub.js';
import { RedisPubSub } from './redis-pubsub.js';
import type { MemoryPubSubConfig, PubSub, RedisPubSubConfig } from './types.js';

/**
 * Creates a publish/subscribe: in memory, or over Redis when `redis` (an ioredis client) is given,
 * so that every instance's subscribers get every instance's events. Each topic keeps a replay
 * window; a subscriber that gives `lastEventId` gets what it missed, then the live events.
 * @example
 * const bus = createPubSub<{ orders: OrderEvent }>();               // or createPubSub({ redis: new Redis(url) })
 * await bus.publish('orders', { orderId: '1', status: 'shipped' });
 * for await (const { id, data } of bus.subscribe('orders', { signal: ctx.signal, lastEventId: ctx.lastEventId })) {
 *   yield tracked(id, data);
 * }
 */
export function createPubSub<TEvents extends object = Record<string, unknown>>(config?: MemoryPubSubConfig | RedisPubSubConfig): PubSub<TEvents> {
  if (config !== undefined && (config === null || typeof config !== 'object')) throw new TypeError('createPubSub: the config must be an object');
  if (config !== undefined && 'redis' in config) return new RedisPubSub<TEvents>(config);
  return new MemoryPubSub<TEvents>(config);
}
