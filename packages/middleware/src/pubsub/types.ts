/** One event as a subscriber receives it: the id the pub/sub gave it (use it with `tracked()`) and the published value. */
export interface PubSubMessage<T> {
  /** `<milliseconds>-<sequence>`, increasing per topic; give it back as `lastEventId` to resume after it. */
  readonly id: string;
  /** What was published (on Redis: its JSON round trip). */
  readonly data: T;
}

/** What a subscriber does when its queue is full because it reads slower than events arrive. */
export type PubSubOverflow = 'error' | 'drop-oldest';

/** Options of `subscribe()`. */
export interface SubscribeOptions {
  /** Ends the subscription (the iterator returns `done`) and unsubscribes when it aborts: pass `ctx.signal`. */
  signal?: AbortSignal | undefined;
  /** Replays the events of the topic's replay window published after this id, then goes on live. */
  lastEventId?: string | undefined;
  /** Most events queued for this subscriber while it does not read. @default the pub/sub's `bufferSize` */
  bufferSize?: number | undefined;
  /** Past `bufferSize`: `'error'` ends the subscription with a `PubSubOverflowError` once the queued events are read; `'drop-oldest'` drops the oldest queued event. @default the pub/sub's `overflow` */
  overflow?: PubSubOverflow | undefined;
}

/**
 * A live subscription: an async iterator of the topic's events. It ends when the signal aborts or
 * `return()` is called (a `for await` loop left by `break`, `return` or a throw calls it); either
 * way the subscriber is removed at once.
 */
export interface Subscription<T> extends AsyncIterableIterator<PubSubMessage<T>> {
  /** Resolves once events published from now on reach this subscriber (and the replay, if asked, is queued). Never rejects. */
  readonly ready: Promise<void>;
  /** Events queued and not read yet. */
  readonly queued: number;
  /** Ends the subscription and unsubscribes (what `break` in a `for await` loop calls). */
  return(): Promise<IteratorResult<PubSubMessage<T>, undefined>>;
}

/** Publish/subscribe by topic, with a replay window per topic. `TEvents` maps each topic to its event type. */
export interface PubSub<TEvents extends object = Record<string, unknown>> {
  /** Publishes `data` to every subscriber of `topic` (on Redis: of every instance) and keeps it in the replay window. Resolves with its id. */
  publish<K extends keyof TEvents & string>(topic: K, data: TEvents[K]): Promise<string>;
  /** Subscribes to `topic`; see `SubscribeOptions`. */
  subscribe<K extends keyof TEvents & string>(topic: K, options?: SubscribeOptions): Subscription<TEvents[K]>;
  /** How many subscribers of this instance listen to `topic` now. */
  subscribers(topic: keyof TEvents & string): number;
  /** Ends every subscription of this instance and releases what it holds (the Redis pub/sub its subscriber connection). */
  close(): Promise<void>;
}

/** How much of each topic's past is kept for subscribers that resume with `lastEventId`. */
export interface ReplayConfig {
  /** Most events kept per topic; `0` turns replay off. @default 100 */
  size?: number;
  /** Longest time an event is kept, in ms; `0` keeps events until `size` pushes them out. @default 300000 (5 minutes) */
  maxAge?: number;
}

/** Options shared by the memory and the Redis pub/sub. */
export interface PubSubConfig {
  /** The replay window of every topic. @default { size: 100, maxAge: 300000 } */
  replay?: ReplayConfig;
  /** Most events queued per subscriber that does not read. @default 1024 */
  bufferSize?: number;
  /** What a full subscriber queue does. @default 'error' */
  overflow?: PubSubOverflow;
}

/** Options of the in-memory pub/sub. */
export interface MemoryPubSubConfig extends PubSubConfig {
  /** Most topics whose replay window is kept (least recently published dropped first). @default 1000 */
  maxTopics?: number;
}

/** A Redis connection that can be subscribed to channels (ioredis: what `duplicate()` returns). */
export interface RedisSubscriberLike {
  subscribe(...channels: string[]): Promise<unknown>;
  unsubscribe(...channels: string[]): Promise<unknown>;
  on(event: 'message', listener: (channel: string, message: string) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'ready', listener: () => void): unknown;
  quit(): Promise<unknown>;
}

/** The part of an ioredis 5 client the Redis pub/sub uses. */
export interface RedisPubSubClientLike {
  /** EVALSHA: runs a cached script. */
  evalsha(sha: string, numKeys: number, ...args: Array<string | number>): Promise<unknown>;
  /** EVAL: runs (and caches) a script. */
  eval(script: string, numKeys: number, ...args: Array<string | number>): Promise<unknown>;
  /** XRANGE key start end COUNT n. */
  xrange(key: string, start: string, end: string, countToken: 'COUNT', count: number): Promise<Array<[id: string, fields: string[]]>>;
  /** A new connection with the same options, used for SUBSCRIBE. */
  duplicate(): RedisSubscriberLike;
}

/** Options of the Redis pub/sub. */
export interface RedisPubSubConfig extends PubSubConfig {
  /** An ioredis 5 client: publishes and reads the replay window; its `duplicate()` subscribes. */
  redis: RedisPubSubClientLike;
  /** Prefix of the stream keys (replay windows) and channels. @default 'fw:ps:' */
  prefix?: string;
  /** Told when the subscriber connection fails (ioredis reconnects and subscribes again by itself). @default one line on stderr */
  onError?: (error: unknown) => void;
}
