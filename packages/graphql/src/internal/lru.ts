/**
 * A least-recently-used map bounded twice: by entry count and by a summed size (the caller
 * says what one entry weighs). A Map keeps insertion order, so the first key is the oldest.
 */
export class LruCache<K, V> {
  private readonly entries = new Map<K, { value: V; size: number }>();
  private total = 0;
  /** The most recently used key: a repeated hit on it needs no re-insertion. */
  private newest: K | undefined;
  private hasNewest = false;

  /** `onEvict` is called with each entry dropped to make room (not with those replaced, cleared or refused). */
  constructor(
    private readonly maxEntries: number,
    private readonly maxSize: number,
    private readonly onEvict?: (value: V) => void,
  ) {}

  /** The number of entries held. */
  get size(): number {
    return this.entries.size;
  }

  /** The summed size of the entries held. */
  get totalSize(): number {
    return this.total;
  }

  /** The value for `key`, marking it most recently used. */
  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (this.hasNewest && this.newest === key) return entry.value;
    this.newest = key;
    this.hasNewest = true;
    // Re-inserting moves the key to the end: the most recently used.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Stores `value` under `key`; entries larger than the whole cache are not stored. */
  set(key: K, value: V, size: number): void {
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.entries.delete(key);
      this.total -= old.size;
    }
    if (size > this.maxSize) {
      if (this.hasNewest && this.newest === key) this.hasNewest = false;
      return;
    }
    this.entries.set(key, { value, size });
    this.total += size;
    this.newest = key;
    this.hasNewest = true;
    while (this.entries.size > this.maxEntries || this.total > this.maxSize) {
      const oldest = this.entries.keys().next();
      if (oldest.done === true) break;
      const evicted = this.entries.get(oldest.value)!;
      this.total -= evicted.size;
      this.entries.delete(oldest.value);
      if (this.newest === oldest.value) this.hasNewest = false;
      this.onEvict?.(evicted.value);
    }
  }

  /** Drops every entry. */
  clear(): void {
    this.entries.clear();
    this.total = 0;
    this.hasNewest = false;
    this.newest = undefined;
  }
}
