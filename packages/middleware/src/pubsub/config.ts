import type { PubSubConfig, PubSubOverflow, SubscribeOptions } from './types.js';

/** Events kept per topic for replay when `replay.size` is not given. */
export const DEFAULT_REPLAY_SIZE = 100;
/** How long an event is kept for replay, in ms, when `replay.maxAge` is not given. */
export const DEFAULT_REPLAY_MAX_AGE = 300_000;
/** Events queued per subscriber that does not read, when `bufferSize` is not given. */
export const DEFAULT_PUBSUB_BUFFER_SIZE = 1024;
/** Topics whose replay window the memory pub/sub keeps, when `maxTopics` is not given. */
export const DEFAULT_PUBSUB_MAX_TOPICS = 1000;

/** The options every pub/sub reads, checked and with defaults. */
export interface ResolvedPubSubConfig {
  readonly replaySize: number;
  readonly maxAge: number;
  readonly bufferSize: number;
  readonly overflow: PubSubOverflow;
}

function count(name: string, value: unknown, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw new TypeError(`createPubSub: ${name} must be an integer >= ${min}, got ${typeof value === 'number' ? value : typeof value}`);
  }
  return value;
}

function overflowOf(value: unknown, fallback: PubSubOverflow, where: string): PubSubOverflow {
  if (value === undefined) return fallback;
  if (value !== 'error' && value !== 'drop-oldest') throw new TypeError(`${where}: overflow must be 'error' or 'drop-oldest', got ${typeof value === 'string' ? value : typeof value}`);
  return value;
}

export function resolvePubSubConfig(config: PubSubConfig): ResolvedPubSubConfig {
  const replay = config.replay ?? {};
  return {
    replaySize: count('replay.size', replay.size, DEFAULT_REPLAY_SIZE, 0),
    maxAge: count('replay.maxAge', replay.maxAge, DEFAULT_REPLAY_MAX_AGE, 0),
    bufferSize: count('bufferSize', config.bufferSize, DEFAULT_PUBSUB_BUFFER_SIZE, 1),
    overflow: overflowOf(config.overflow, 'error', 'createPubSub'),
  };
}

/** A subscriber's own buffer settings, over the pub/sub's. */
export function subscriberSettings(config: ResolvedPubSubConfig, options: SubscribeOptions): { bufferSize: number; overflow: PubSubOverflow } {
  return {
    bufferSize: count('bufferSize', options.bufferSize, config.bufferSize, 1),
    overflow: overflowOf(options.overflow, config.overflow, 'subscribe'),
  };
}

/** The topic must be a non-empty string: it names a key and a channel on Redis. */
export function checkTopic(topic: unknown, where: string): asserts topic is string {
  if (typeof topic !== 'string' || topic.length === 0) throw new TypeError(`${where}: the topic must be a non-empty string`);
}
