import { checkTopic, DEFAULT_PUBSUB_MAX_TOPICS, resolvePubSubConfig, subscriberSettings, type ResolvedPubSubConfig } from './config.js';
import { EventIdClock, isAfter, parseEventId } from './event-id.js';
import { QueuedSubscription } from './subscription.js';
import type { MemoryPubSubConfig, PubSub, PubSubMessage, SubscribeOptions, Subscription } from './types.js';

interface Kept {
  readonly message: PubSubMessage<unknown>;
  readonly ms: number;
  readonly seq: number;
}

/**
 * The pub/sub of one process: publishing hands the event to every subscriber's queue at once (the
 * same object to each) and keeps it in the topic's replay window. Nothing crosses processes; use
 * the Redis pub/sub when several instances serve one stream.
 */
export class MemoryPubSub<TEvents extends object = Record<string, unknown>> implements PubSub<TEvents> {
  readonly #config: ResolvedPubSubConfig;
  readonly #maxTopics: number;
  readonly #clock = new EventIdClock();
  readonly #subscribers = new Map<string, Set<QueuedSubscription<unknown>>>();
  // Least recently published first, so the oldest topic's window goes when there are too many.
  readonly #windows = new Map<string, Kept[]>();

  constructor(config: MemoryPubSubConfig = {}) {
    this.#config = resolvePubSubConfig(config);
    const maxTopics = config.maxTopics ?? DEFAULT_PUBSUB_MAX_TOPICS;
    if (!Number.isInteger(maxTopics) || maxTopics < 1) throw new TypeError(`createPubSub: maxTopics must be an integer >= 1, got ${String(maxTopics)}`);
    this.#maxTopics = maxTopics;
  }

  publish<K extends keyof TEvents & string>(topic: K, data: TEvents[K]): Promise<string> {
    checkTopic(topic, 'publish');
    const now = Date.now();
    const id = this.#clock.next(now);
    const message: PubSubMessage<unknown> = { id, data };
    this.#keep(topic, message, now);
    const subscribers = this.#subscribers.get(topic);
    if (subscribers !== undefined) for (const subscriber of subscribers) subscriber.push(message);
    return Promise.resolve(id);
  }

  subscribe<K extends keyof TEvents & string>(topic: K, options: SubscribeOptions = {}): Subscription<TEvents[K]> {
    checkTopic(topic, 'subscribe');
    const { bufferSize, overflow } = subscriberSettings(this.#config, options);
    const subscription: QueuedSubscription<unknown> = new QueuedSubscription(topic, bufferSize, overflow, options.signal, () => {
      const current = this.#subscribers.get(topic);
      if (current?.delete(subscription) === true && current.size === 0) this.#subscribers.delete(topic);
    });
    if (!subscription.open) return subscription as Subscription<TEvents[K]>;
    const after = parseEventId(options.lastEventId);
    if (after !== undefined) for (const message of this.#since(topic, after)) subscription.replay(message);
    let set = this.#subscribers.get(topic);
    if (set === undefined) this.#subscribers.set(topic, (set = new Set()));
    set.add(subscription);
    subscription.markReady();
    return subscription as Subscription<TEvents[K]>;
  }

  subscribers(topic: keyof TEvents & string): number {
    return this.#subscribers.get(topic)?.size ?? 0;
  }

  close(): Promise<void> {
    for (const set of [...this.#subscribers.values()]) for (const subscriber of [...set]) void subscriber.return();
    this.#subscribers.clear();
    this.#windows.clear();
    return Promise.resolve();
  }

  #keep(topic: string, message: PubSubMessage<unknown>, now: number): void {
    const { replaySize } = this.#config;
    if (replaySize === 0) return;
    let window = this.#windows.get(topic);
    if (window === undefined) {
      window = [];
      if (this.#windows.size >= this.#maxTopics) this.#windows.delete(this.#windows.keys().next().value!);
    } else {
      this.#windows.delete(topic);
    }
    this.#windows.set(topic, window);
    const [ms, seq] = parseEventId(message.id)!;
    window.push({ message, ms, seq });
    let drop = Math.max(0, window.length - replaySize);
    const oldest = this.#oldestKept(now);
    while (drop < window.length && window[drop]!.ms < oldest) drop++;
    if (drop > 0) window.splice(0, drop);
  }

  /** The kept events of `topic` after `after`, oldest first, none older than `maxAge`. */
  #since(topic: string, after: readonly [number, number]): Array<PubSubMessage<unknown>> {
    const window = this.#windows.get(topic);
    if (window === undefined) return [];
    const oldest = this.#oldestKept(Date.now());
    const out: Array<PubSubMessage<unknown>> = [];
    for (const kept of window) if (kept.ms >= oldest && isAfter([kept.ms, kept.seq], after)) out.push(kept.message);
    return out;
  }

  #oldestKept(now: number): number {
    return this.#config.maxAge === 0 ? -Infinity : now - this.#config.maxAge;
  }
}
