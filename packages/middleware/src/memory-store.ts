import type { MemoryStoreConfig, RateLimitHit, RateLimitStore } from './types.js';

/** Most keys a memory store keeps when `maxKeys` is not given. */
export const DEFAULT_MEMORY_STORE_MAX_KEYS = 100_000;

/** Expired windows dropped per call at most, so one request never pays for a huge backlog. */
const SWEEP_BATCH = 1000;

interface Window {
  count: number;
  resetAt: number;
}

/**
 * The default rate-limit store: fixed windows in a Map, in this process only.
 *
 * Memory stays bounded: the Map is kept in window-start order (a key whose window restarts moves
 * to the end), so expired windows sit at the front and are dropped as requests come in, a batch
 * at a time; `maxKeys` caps the size even if every window is still live.
 * @example
 * app.use(rateLimit({ store: new MemoryStore({ maxKeys: 50_000 }) }));
 */
export class MemoryStore implements RateLimitStore {
  private readonly windows = new Map<string, Window>();
  private readonly maxKeys: number;
  /** resetAt of the entry at the front of the Map (or earlier); nothing can expire before it. */
  private frontResetAt = Number.POSITIVE_INFINITY;

  constructor(config: MemoryStoreConfig = {}) {
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
    if (current !== undefined && current.resetAt > now) {
      current.count++;
      return { count: current.count, resetAt: current.resetAt };
    }
    if (current !== undefined) {
      // Re-insert so the Map stays ordered by window start.
      windows.delete(key);
    } else if (windows.size >= this.maxKeys) {
      this.dropOldest();
    }
    const fresh: Window = { count: 1, resetAt: now + windowMs };
    if (windows.size === 0) this.frontResetAt = fresh.resetAt;
    windows.set(key, fresh);
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
  }

  /** Forgets every key. */
  clear(): void {
    this.windows.clear();
    this.frontResetAt = Number.POSITIVE_INFINITY;
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
      dropped++;
    }
    this.frontResetAt = front;
  }

  private dropOldest(): void {
    const oldest = this.windows.keys().next();
    if (oldest.done !== true) this.windows.delete(oldest.value);
  }
}
