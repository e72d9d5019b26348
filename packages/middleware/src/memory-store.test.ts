import { DEFAULT_MEMORY_STORE_MAX_KEYS, MemoryStore } from './index.js';

describe('MemoryStore', () => {
  let now = 1_700_000_000_000;
  let clock: jest.SpyInstance<number, []>;
  beforeEach(() => {
    now = 1_700_000_000_000;
    clock = jest.spyOn(Date, 'now').mockImplementation(() => now);
  });
  afterEach(() => clock.mockRestore());

  it('counts hits per key in a fixed window that starts with the first hit', () => {
    const store = new MemoryStore();
    expect(store.increment('a', 1000)).toEqual({ count: 1, resetAt: now + 1000 });
    now += 400;
    expect(store.increment('a', 1000)).toEqual({ count: 2, resetAt: now - 400 + 1000 });
    expect(store.increment('b', 1000)).toEqual({ count: 1, resetAt: now + 1000 });
  });

  it('starts a fresh window once the old one has ended', () => {
    const store = new MemoryStore();
    store.increment('a', 1000);
    store.increment('a', 1000);
    now += 1000;
    expect(store.increment('a', 1000)).toEqual({ count: 1, resetAt: now + 1000 });
  });

  it('takes a hit back with decrement, never below zero and never in an ended window', () => {
    const store = new MemoryStore();
    store.increment('a', 1000);
    store.increment('a', 1000);
    store.decrement('a');
    expect(store.increment('a', 1000).count).toBe(2);
    store.decrement('a');
    store.decrement('a');
    store.decrement('a');
    expect(store.increment('a', 1000).count).toBe(1);
    store.decrement('missing');
    expect(store.size).toBe(1);
  });

  it('forgets a key with reset and every key with clear', () => {
    const store = new MemoryStore();
    store.increment('a', 1000);
    store.increment('b', 1000);
    store.reset('a');
    expect(store.increment('a', 1000).count).toBe(1);
    store.clear();
    expect(store.size).toBe(0);
  });

  it('does not keep 200k distinct keys whose windows have expired', () => {
    const store = new MemoryStore();
    const windowMs = 1000;
    // 200k distinct clients, 10k per window, 20 windows in a row.
    for (let batch = 0; batch < 20; batch++) {
      for (let i = 0; i < 10_000; i++) store.increment(`client-${batch}-${i}`, windowMs);
      now += windowMs;
    }
    // Only the last window's keys can still be live; the rest were dropped as requests came in.
    expect(store.size).toBeLessThanOrEqual(10_000 + 1000);
    // Once the traffic after the last window has swept, only the new key is left.
    for (let i = 0; i < 20; i++) store.increment(`late-${i}`, windowMs);
    expect(store.size).toBe(20);
  });

  it('caps the number of keys at maxKeys even when every window is live, dropping the least recently used', () => {
    const store = new MemoryStore({ maxKeys: 1000 });
    for (let i = 0; i < 5000; i++) store.increment(`k${i}`, 60_000);
    expect(store.size).toBe(1000);
    // The newest keys keep their counts; the oldest were dropped and start over.
    expect(store.increment('k4999', 60_000).count).toBe(2);
    expect(store.increment('k0', 60_000).count).toBe(1);
    expect(DEFAULT_MEMORY_STORE_MAX_KEYS).toBe(100_000);
  });

  it('evicts the least recently used key when full, not the key with the oldest window', () => {
    const store = new MemoryStore({ maxKeys: 3 });
    store.increment('busy', 60_000);
    store.increment('b', 60_000);
    store.increment('c', 60_000);
    // busy has the oldest window but was used last.
    store.increment('busy', 60_000);
    store.increment('d', 60_000);
    expect(store.size).toBe(3);
    expect(store.increment('busy', 60_000).count).toBe(3);
    expect(store.increment('c', 60_000).count).toBe(2);
    // b was the least recently used and was dropped.
    expect(store.increment('b', 60_000).count).toBe(1);
  });

  it('keeps counting a busy client while 150,000 fresh keys flood the default store', () => {
    const store = new MemoryStore();
    let busy = store.increment('busy', 60_000).count;
    for (let i = 0; i < 150_000; i++) {
      store.increment(`flood-${i}`, 60_000);
      if (i % 100 === 99) busy = store.increment('busy', 60_000).count;
    }
    expect(store.size).toBe(DEFAULT_MEMORY_STORE_MAX_KEYS);
    expect(busy).toBe(1 + 1500);
    expect(store.increment('busy', 60_000).count).toBe(1502);
    // The earliest flood keys were the least recently used: gone.
    expect(store.increment('flood-0', 60_000).count).toBe(1);
  });

  it('keeps a key whose window restarted behind keys with earlier windows', () => {
    const store = new MemoryStore();
    store.increment('a', 1000);
    now += 500;
    store.increment('b', 1000);
    now += 600;
    // a's window ended and restarts; b's is still live.
    expect(store.increment('a', 1000).count).toBe(1);
    now += 500;
    // b has now expired and is swept; a is still live and keeps its count.
    store.increment('c', 1000);
    expect(store.size).toBe(2);
    expect(store.increment('a', 1000).count).toBe(2);
  });

  it('rejects a maxKeys that is not a whole number >= 1', () => {
    expect(() => new MemoryStore({ maxKeys: 0 })).toThrow(/maxKeys/);
    expect(() => new MemoryStore({ maxKeys: 1.5 })).toThrow(/maxKeys/);
  });
});
