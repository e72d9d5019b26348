import { LruCache } from './lru.js';

describe('LruCache', () => {
  it('evicts the least recently used entry past maxEntries', () => {
    const cache = new LruCache<string, number>(2, 100);
    cache.set('a', 1, 1);
    cache.set('b', 2, 1);
    expect(cache.get('a')).toBe(1);
    cache.set('c', 3, 1);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(1);
    expect(cache.get('c')).toBe(3);
    expect(cache.size).toBe(2);
  });

  it('evicts oldest entries until the summed size fits', () => {
    const cache = new LruCache<string, string>(100, 10);
    cache.set('a', 'x', 4);
    cache.set('b', 'y', 4);
    cache.set('c', 'z', 4);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.totalSize).toBe(8);
  });

  it('does not store an entry larger than the whole cache', () => {
    const cache = new LruCache<string, string>(100, 10);
    cache.set('a', 'x', 4);
    cache.set('huge', 'y', 11);
    expect(cache.get('huge')).toBeUndefined();
    expect(cache.get('a')).toBe('x');
  });

  it('replaces an existing key and keeps the size right', () => {
    const cache = new LruCache<string, string>(100, 10);
    cache.set('a', 'x', 4);
    cache.set('a', 'y', 6);
    expect(cache.get('a')).toBe('y');
    expect(cache.totalSize).toBe(6);
    expect(cache.size).toBe(1);
  });

  it('stays bounded under many distinct keys', () => {
    const cache = new LruCache<number, number>(50, 1_000_000);
    for (let i = 0; i < 10_000; i++) cache.set(i, i, 10);
    expect(cache.size).toBe(50);
    expect(cache.totalSize).toBe(500);
    expect(cache.get(9_999)).toBe(9_999);
  });

  it('keeps the recency order right when the newest entry is read again and again', () => {
    const cache = new LruCache<string, number>(2, 100);
    cache.set('a', 1, 1);
    cache.set('b', 2, 1);
    expect(cache.get('b')).toBe(2);
    expect(cache.get('b')).toBe(2);
    expect(cache.get('a')).toBe(1);
    cache.set('c', 3, 1);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(1);
    expect(cache.get('a')).toBe(1);
    cache.set('d', 4, 1);
    expect(cache.get('c')).toBeUndefined();
    expect(cache.get('a')).toBe(1);
  });

  it('forgets the newest entry once evicted or cleared', () => {
    const cache = new LruCache<string, number>(1, 100);
    cache.set('a', 1, 1);
    expect(cache.get('a')).toBe(1);
    cache.set('b', 2, 1);
    expect(cache.get('a')).toBeUndefined();
    cache.clear();
    expect(cache.get('b')).toBeUndefined();
    cache.set('b', 3, 1);
    expect(cache.get('b')).toBe(3);
  });
});

describe('LruCache onEvict', () => {
  it('is called with each entry dropped to make room, not with replaced or cleared ones', () => {
    const evicted: string[] = [];
    const cache = new LruCache<string, string>(2, 100, (value) => evicted.push(value));
    cache.set('a', 'A', 1);
    cache.set('b', 'B', 1);
    cache.set('a', 'A2', 1);
    cache.set('c', 'C', 1);
    expect(evicted).toEqual(['B']);
    cache.clear();
    expect(evicted).toEqual(['B']);
  });
});
