import { defaultLog } from '@fw/core/plugin';
import { nodeCrypto } from '../internal/builtins.js';
import { checkTopic, resolvePubSubConfig, subscriberSettings, type ResolvedPubSubConfig } from './config.js';
import { isAfter, parseEventId, type ParsedId } from './event-id.js';
import { QueuedSubscription } from './subscription.js';
import type { PubSub, PubSubMessage, RedisPubSubClientLike, RedisPubSubConfig, RedisSubscriberLike, SubscribeOptions, Subscription } from './types.js';

/** Key and channel prefix when `prefix` is not given. */
export const DEFAULT_PUBSUB_PREFIX = 'fw:ps:';

// One round trip per publish, atomic: XADD to the topic's stream (its replay window, trimmed to
// `size` events and, by the id's own milliseconds, to `maxAge`; the key expires when the topic goes
// quiet), then PUBLISH "<id> <json>" on the topic's channel for the live subscribers of every instance.
const PUBLISH_SCRIPT = `
local id = redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[3], '*', 'd', ARGV[2])
local maxAge = tonumber(ARGV[4])
if maxAge > 0 then
  local ms = tonumber(string.match(id, '^(%d+)'))
  redis.call('XTRIM', KEYS[1], 'MINID', tostring(ms - maxAge))
  redis.call('PEXPIRE', KEYS[1], maxAge)
end
redis.call('PUBLISH', ARGV[1], id .. ' ' .. ARGV[2])
return id
`;

let publishSha: string | undefined;

/** One local subscriber: live events wait in `held` until its replay has been queued. */
interface Listener {
  readonly subscription: QueuedSubscription<unknown>;
  held: Array<{ message: PubSubMessage<unknown>; id: ParsedId }> | undefined;
}

interface Topic {
  readonly listeners: Set<Listener>;
  /** Settles when the channel's SUBSCRIBE has been confirmed. */
  readonly subscribed: Promise<void>;
  /** The id of the last event delivered here: live events at or before it are duplicates. */
  last: ParsedId | undefined;
  /** Live events that arrive while the events missed during a reconnection are read from the stream. */
  catchingUp: Array<{ message: PubSubMessage<unknown>; id: ParsedId }> | undefined;
}

/**
 * A pub/sub over Redis, so every instance's subscribers get every instance's events. Each topic
 * is a stream key (the replay window) and a channel; the events cross as JSON. The client passed
 * in publishes and reads replays; one connection made with its `duplicate()` subscribes, shared by
 * all of this instance's subscribers (SUBSCRIBE when a topic gets its first one, UNSUBSCRIBE when
 * it loses its last).
 */
export class RedisPubSub<TEvents extends object = Record<string, unknown>> implements PubSub<TEvents> {
  readonly #redis: RedisPubSubClientLike;
  readonly #prefix: string;
  readonly #config: ResolvedPubSubConfig;
  readonly #onError: (error: unknown) => void;
  readonly #topics = new Map<string, Topic>();
  #connection: RedisSubscriberLike | undefined = undefined;
  #closed = false;

  constructor(config: RedisPubSubConfig) {
    const redis = config.redis;
    if (redis === null || typeof redis !== 'object' || typeof redis.evalsha !== 'function' || typeof redis.duplicate !== 'function') {
      throw new TypeError('createPubSub: redis must be an ioredis client');
    }
    const prefix = config.prefix ?? DEFAULT_PUBSUB_PREFIX;
    if (typeof prefix !== 'string') throw new TypeError('createPubSub: prefix must be a string');
    this.#redis = redis;
    this.#prefix = prefix;
    this.#config = resolvePubSubConfig(config);
    this.#onError = config.onError ?? ((error) => defaultLog('createPubSub: the Redis subscriber connection failed; ioredis reconnects and subscribes again.', error));
  }

  async publish<K extends keyof TEvents & string>(topic: K, data: TEvents[K]): Promise<string> {
    checkTopic(topic, 'publish');
    const payload = JSON.stringify(data) as string | undefined;
    if (payload === undefined) throw new TypeError(`publish: an event of "${topic}" must be JSON (got ${typeof data})`);
    const args = [this.#prefix + topic, this.#prefix + topic, payload, this.#config.replaySize, this.#config.maxAge] as const;
    publishSha ??= nodeCrypto().createHash('sha1').update(PUBLISH_SCRIPT).digest('hex');
    let id: unknown;
    try {
      id = await this.#redis.evalsha(publishSha, 1, ...args);
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      id = await this.#redis.eval(PUBLISH_SCRIPT, 1, ...args);
    }
    return String(id);
  }

  subscribe<K extends keyof TEvents & string>(topic: K, options: SubscribeOptions = {}): Subscription<TEvents[K]> {
    checkTopic(topic, 'subscribe');
    if (this.#closed) throw new Error('subscribe: this pub/sub is closed');
    const { bufferSize, overflow } = subscriberSettings(this.#config, options);
    const subscription: QueuedSubscription<unknown> = new QueuedSubscription(topic, bufferSize, overflow, options.signal, () => this.#leave(topic, listener));
    const listener: Listener = { subscription, held: [] };
    if (!subscription.open) return subscription as Subscription<TEvents[K]>;
    let state = this.#topics.get(topic);
    if (state === undefined) {
      state = { listeners: new Set(), subscribed: this.#channelSubscribe(topic), last: undefined, catchingUp: undefined };
      this.#topics.set(topic, state);
    }
    state.listeners.add(listener);
    state.subscribed
      .then(() => this.#replay(topic, listener, parseEventId(options.lastEventId)))
      .then(
        () => subscription.markReady(),
        (err: unknown) => subscription.fail(err),
      );
    return subscription as Subscription<TEvents[K]>;
  }

  subscribers(topic: keyof TEvents & string): number {
    return this.#topics.get(topic)?.listeners.size ?? 0;
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const state of [...this.#topics.values()]) for (const listener of [...state.listeners]) void listener.subscription.return();
    this.#topics.clear();
    const connection = this.#connection;
    this.#connection = undefined;
    if (connection !== undefined) await connection.quit().catch(() => undefined);
  }

  /** The shared subscriber connection, made on the first subscription. */
  #subscriber(): RedisSubscriberLike {
    if (this.#connection !== undefined) return this.#connection;
    const connection = this.#redis.duplicate();
    let connected = false;
    connection.on('error', (error) => this.#onError(error));
    connection.on('message', (channel, message) => this.#deliver(channel, message));
    // After a reconnection (ioredis subscribes again by itself), what was published meanwhile is read
    // from the streams — once our own SUBSCRIBE confirms the channels are live again, so nothing falls between.
    connection.on('ready', () => {
      if (!connected) {
        connected = true;
        return;
      }
      const topics = [...this.#topics];
      if (topics.length === 0) return;
      connection.subscribe(...topics.map(([topic]) => this.#prefix + topic)).then(
        () => {
          for (const [topic, state] of topics) void this.#catchUp(topic, state);
        },
        (err: unknown) => this.#onError(err),
      );
    });
    this.#connection = connection;
    return connection;
  }

  #channelSubscribe(topic: string): Promise<void> {
    return this.#subscriber()
      .subscribe(this.#prefix + topic)
      .then(() => undefined);
  }

  #leave(topic: string, listener: Listener): void {
    const state = this.#topics.get(topic);
    if (state === undefined || !state.listeners.delete(listener) || state.listeners.size > 0) return;
    this.#topics.delete(topic);
    this.#connection?.unsubscribe(this.#prefix + topic).catch((err: unknown) => this.#onError(err));
  }

  /** Queues the kept events after `after`, then the live ones held meanwhile that came later. */
  async #replay(topic: string, listener: Listener, after: ParsedId | undefined): Promise<void> {
    let last = after;
    if (after !== undefined && this.#config.replaySize > 0 && listener.subscription.open) {
      const rows = await this.#redis.xrange(this.#prefix + topic, `(${after[0]}-${after[1]}`, '+', 'COUNT', this.#config.replaySize);
      const oldest = this.#config.maxAge === 0 ? -Infinity : Date.now() - this.#config.maxAge;
      for (const [id, fields] of rows) {
        const parsed = parseEventId(id);
        const payload = fields[1];
        if (parsed === undefined || payload === undefined) continue;
        last = parsed;
        if (parsed[0] >= oldest) listener.subscription.replay({ id, data: JSON.parse(payload) as unknown });
      }
    }
    const held = listener.held ?? [];
    listener.held = undefined;
    for (const { message, id } of held) if (last === undefined || isAfter(id, last)) listener.subscription.push(message);
  }

  /** Delivers the events of `topic` published after the last one delivered, then the live ones that came meanwhile. */
  async #catchUp(topic: string, state: Topic): Promise<void> {
    const after = state.last;
    if (after === undefined || this.#config.replaySize === 0 || state.catchingUp !== undefined) return;
    state.catchingUp = [];
    try {
      const rows = await this.#redis.xrange(this.#prefix + topic, `(${after[0]}-${after[1]}`, '+', 'COUNT', this.#config.replaySize);
      for (const [id, fields] of rows) {
        const parsed = parseEventId(id);
        const payload = fields[1];
        if (parsed !== undefined && payload !== undefined) this.#dispatch(state, { id, data: JSON.parse(payload) as unknown }, parsed);
      }
    } catch (err) {
      this.#onError(err);
    } finally {
      const held = state.catchingUp ?? [];
      state.catchingUp = undefined;
      for (const { message, id } of held) this.#dispatch(state, message, id);
    }
  }

  #deliver(channel: string, raw: string): void {
    if (!channel.startsWith(this.#prefix)) return;
    const state = this.#topics.get(channel.slice(this.#prefix.length));
    if (state === undefined) return;
    const space = raw.indexOf(' ');
    const id = raw.slice(0, space);
    const parsed = parseEventId(id);
    if (space < 0 || parsed === undefined) return;
    let message: PubSubMessage<unknown>;
    try {
      message = { id, data: JSON.parse(raw.slice(space + 1)) as unknown };
    } catch (err) {
      this.#onError(err);
      return;
    }
    if (state.catchingUp !== undefined) state.catchingUp.push({ message, id: parsed });
    else this.#dispatch(state, message, parsed);
  }

  /** Hands one event to every listener of the topic, once: an event at or before the last one delivered is a duplicate. */
  #dispatch(state: Topic, message: PubSubMessage<unknown>, parsed: ParsedId): void {
    if (state.last !== undefined && !isAfter(parsed, state.last)) return;
    state.last = parsed;
    for (const listener of state.listeners) {
      if (listener.held === undefined) listener.subscription.push(message);
      else if (listener.held.length < this.#config.bufferSize) listener.held.push({ message, id: parsed });
      else listener.subscription.push(message); // past the buffer while replaying: the subscription's own overflow rule decides
    }
  }
}
