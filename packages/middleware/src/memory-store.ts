import type { IdempotencyRecord, IdempotencyStore, MemoryStoreConfig, RateLimitHit, RateLimitStore } from './types.js';

/** Most keys a memory store keeps when `maxKeys` is not given. */
export const DEFAULT_MEMORY_STORE_MAX_KEYS = 100_000;

/** Whether this process is a node:cluster worker. getBuiltinModule gives the module object itself, which the types describe as a namespace. */
function isClusterWorker(): boolean {
  return (process.getBuiltinModule('node:cluster') as unknown as { isWorker: boolean }).isWorker;
}

/** Expired windows dropped per call at most, so one request never pays for a huge backlog. */
const SWEEP_BATCH = 1000;

interface Window {
  count: number;
  resetAt: number;
}

interface HeldRecord {
  record: IdempotencyRecord;
  expiresAt: number;
}

/**
 * The default rate-limit and idempotency store: fixed windows and idempotency keys in Maps, in this
 * process only.
 *
 * Memory stays bounded: the Map is kept in least-recently-used order (every hit moves its key to
 * the end), so keys nobody uses any more sit at the front, where expired windows are dropped as
 * requests come in, a batch at a time; past `maxKeys` the least recently used key is dropped, so a
 * flood of new keys cannot push out the windows of clients that keep coming. It refuses to be made in
 * a cluster worker (`fw start --workers`), where each worker would count alone: use `RedisStore`.
 * Idempotency keys are a second Map, bounded by `maxKeys` too: expired keys are dropped from the
 * front as keys come in, and past the cap the oldest key goes (a retry of it runs again).
 * @example
 * app.use(rateLimit({ store: new MemoryStore({ maxKeys: 50_000 }) }));
 */
export class MemoryStore implements RateLimitStore, IdempotencyStore {
  private readonly windows = new Map<string, Window>();
  /** Idempotency keys in the order they were last written (begun or finished). */
  private readonly records = new Map<string, HeldRecord>();
  private readonly maxKeys: number;
  /**
   * resetAt of the entry at the front of the Map when it was last looked at: the sweep runs once
   * that has passed. Keys behind it may expire earlier (they were used later, but their windows
   * may have started earlier); they are dropped when the sweep reaches them, within a window.
   */
  private frontResetAt = Number.POSITIVE_INFINITY;
  /** The key at the end of the Map, which a hit need not move. */
  private newest: string | undefined = undefined;

  constructor(config: MemoryStoreConfig = {}) {
    // Each worker of a cluster (`fw start --workers`) would keep its own counts: the limit would be
    // multiplied by the number of workers, without a word.
    if (isClusterWorker()) {
      throw new Error(
        'MemoryStore keeps its counts in one process, and this is one of several cluster workers (fw start --workers): ' +
          'each would allow maxRequests, so the limit would be multiplied by the number of workers. ' +
          'Use a store every worker and instance shares: rateLimit({ store: new RedisStore({ client }) }) with an ioredis client.',
      );
    }
    const maxKeys = config.maxKeys ?? DEFAULT_MEMORY_STORE_MAX_KEYS;
    if (typeof maxKeys !== 'number' || !Number.isInteger(maxKeys) || maxKeys < 1) {
      throw new TypeError(`MemoryStore: maxKeys must be a whole number >= 1, got ${String(maxKeys)}`);
    }
    this.maxKeys = maxKeys;
  }

  /** How many keys are held right now. */
  get size(): number {
    return this.windows.size;
  }

  /** Counts one hit for `key`; starts a new window when there is none or it has ended. */
  increment(key: string, windowMs: number): RateLimitHit {
    const now = Date.now();
    if (now >= this.frontResetAt) this.sweep(now);
    const windows = this.windows;
    const current = windows.get(key);
    if (current !== undefined) {
      // Re-insert (O(1)) so the Map stays in least-recently-used order.
      if (key !== this.newest) {
        windows.delete(key);
        windows.set(key, current);
        this.newest = key;
      }
      if (current.resetAt > now) {
        current.count++;
      } else {
        current.count = 1;
        current.resetAt = now + windowMs;
      }
      return { count: current.count, resetAt: current.resetAt };
    }
    if (windows.size >= this.maxKeys) this.dropLeastRecentlyUsed();
    const fresh: Window = { count: 1, resetAt: now + windowMs };
    if (windows.size === 0) this.frontResetAt = fresh.resetAt;
    windows.set(key, fresh);
    this.newest = key;
    return { count: 1, resetAt: fresh.resetAt };
  }

  /** Takes back one hit of the current window of `key`. */
  decrement(key: string): void {
    const current = this.windows.get(key);
    if (current !== undefined && current.count > 0 && current.resetAt > Date.now()) current.count--;
  }

  /** Forgets `key`. */
  reset(key: string): void {
    this.windows.delete(key);
    if (key === this.newest) this.newest = undefined;
  }

  /** Records `key` as running unless it holds something; returns what it holds (see `IdempotencyStore`). */
  begin(key: string, fingerprint: string, lockMs: number): IdempotencyRecord | undefined {
    const now = Date.now();
    this.sweepRecords(now);
    const held = this.records.get(key);
    if (held !== undefined && held.expiresAt > now) return held.record;
    this.hold(key, { state: 'running', fingerprint }, now + lockMs);
    return undefined;
  }

  /** Stores the finished response of `key` for `ttlMs`. */
  finish(key: string, record: IdempotencyRecord & { state: 'done' }, ttlMs: number): void {
    this.hold(key, record, Date.now() + ttlMs);
  }

  /** Forgets idempotency key `key`. */
  abandon(key: string): void {
    this.records.delete(key);
  }

  /** How many idempotency keys are held right now. */
  get idempotencyKeys(): number {
    return this.records.size;
  }

  private hold(key: string, record: IdempotencyRecord, expiresAt: number): void {
    const records = this.records;
    // Re-inserted at the end: the Map stays in the order of expiry, nearly (lock and ttl differ).
    records.delete(key);
    if (records.size >= this.maxKeys) {
      const oldest = records.keys().next();
      if (oldest.done !== true) records.delete(oldest.value);
    }
    records.set(key, { record, expiresAt });
  }

  private sweepRecords(now: number): void {
    let dropped = 0;
    for (const [key, held] of this.records) {
      if (held.expiresAt > now || dropped === SWEEP_BATCH) break;
      this.records.delete(key);
      dropped++;
    }
  }

  /** Forgets every key. */
  clear(): void {
    this.records.clear();
    this.windows.clear();
    this.frontResetAt = Number.POSITIVE_INFINITY;
    this.newest = undefined;
  }

  private sweep(now: number): void {
    let dropped = 0;
    let front = Number.POSITIVE_INFINITY;
    for (const [key, window] of this.windows) {
      if (window.resetAt > now || dropped === SWEEP_BATCH) {
        front = window.resetAt;
        break;
      }
      this.windows.delete(key);
      if (key === this.newest) this.newest = undefined;
      dropped++;
    }
    this.frontResetAt = front;
  }

  private dropLeastRecentlyUsed(): void {
    const first = this.windows.keys().next();
    if (first.done === true) return;
    this.windows.delete(first.value);
    if (first.value === this.newest) this.newest = undefined;
  }
}
