import { Redis, type RedisOptions } from 'ioredis';
import { Application } from '@fw/core';
import { send, start, type TestResponse } from '../test/http.js';
import { freePort, startRedis, type RedisServer } from '../../../tooling/testing/redis.js';
import { DEFAULT_REDIS_PREFIX, DEFAULT_REDIS_TIMEOUT, rateLimit, RedisStore, RedisStoreError } from './index.js';
import type { RateLimitConfig } from './index.js';

// A real redis-server per test file; when it is not installed these tests fail (never skip).
let redis: RedisServer;
const clients: Redis[] = [];

function client(port = redis.port, options: RedisOptions = {}): Redis {
  const c = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 1, disconnectTimeout: 100, ...options });
  c.on('error', () => undefined);
  clients.push(c);
  return c;
}

beforeAll(async () => {
  redis = await startRedis();
});

afterAll(async () => {
  // quit() closes live connections cleanly; clients of a dead Redis only need to stop retrying
  // (their connector destroys a stale socket after disconnectTimeout, hence the short wait).
  await Promise.all(clients.map((c) => (c.status === 'ready' ? c.quit().then(() => undefined) : Promise.resolve(c.disconnect()))));
  await new Promise((resolve) => setTimeout(resolve, 150));
  await redis?.stop();
});

async function appWith(config: RateLimitConfig): Promise<{ url: string; app: Application }> {
  const app = new Application({ onLog: () => undefined });
  app.use(rateLimit(config));
  app.get('/ok', (ctx) => ctx.json({ ok: true }));
  app.get('/bad', (ctx) => ctx.json({ error: true }, 400));
  return { url: await start(app), app };
}

/**
 * The store's time-out for a live Redis here: these tests check what it stores, not how fast a
 * loaded machine answers (the default 500 ms was missed at a load average of 20).
 */
const LIVE_TIMEOUT = 10_000;

describe('RedisStore', () => {
  it('counts hits per key under the default prefix, with the window as the key TTL', async () => {
    const c = client();
    const store = new RedisStore({ client: c, timeout: LIVE_TIMEOUT });
    const before = Date.now();
    const first = await store.increment('count-test', 5000);
    const second = await store.increment('count-test', 5000);
    const span = Date.now() - before;
    expect(first.count).toBe(1);
    expect(second.count).toBe(2);
    expect(first.resetAt).toBeGreaterThanOrEqual(before + 4900);
    expect(first.resetAt).toBeLessThanOrEqual(Date.now() + 5000);
    // One window: the two readings of its end differ by no more than the time the two calls took.
    expect(Math.abs(second.resetAt - first.resetAt)).toBeLessThanOrEqual(span + 1);
    expect(DEFAULT_REDIS_PREFIX).toBe('fw:rl:');
    expect(await c.get('fw:rl:count-test')).toBe('2');
    const ttl = await c.pttl('fw:rl:count-test');
    expect(ttl).toBeGreaterThan(4000);
    expect(ttl).toBeLessThanOrEqual(5000);
  });

  it('uses a custom prefix', async () => {
    const c = client();
    await new RedisStore({ client: c, prefix: 'api:limits:', timeout: LIVE_TIMEOUT }).increment('prefixed', 5000);
    expect(await c.get('api:limits:prefixed')).toBe('1');
    expect(await c.exists('fw:rl:prefixed')).toBe(0);
  });

  it('starts a new window once the key has expired', async () => {
    const store = new RedisStore({ client: client(), timeout: LIVE_TIMEOUT });
    await store.increment('expiry', 150);
    await store.increment('expiry', 150);
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect((await store.increment('expiry', 150)).count).toBe(1);
  });

  it('takes a hit back with decrement, never below zero and without creating keys', async () => {
    const c = client();
    const store = new RedisStore({ client: c, timeout: LIVE_TIMEOUT });
    await store.increment('dec', 5000);
    await store.increment('dec', 5000);
    await store.decrement('dec');
    expect(await c.get('fw:rl:dec')).toBe('1');
    await store.decrement('dec');
    await store.decrement('dec');
    expect(await c.get('fw:rl:dec')).toBe('0');
    expect(await c.pttl('fw:rl:dec')).toBeGreaterThan(0);
    await store.decrement('never-counted');
    expect(await c.exists('fw:rl:never-counted')).toBe(0);
  });

  it('forgets a key with reset', async () => {
    const c = client();
    const store = new RedisStore({ client: c, timeout: LIVE_TIMEOUT });
    await store.increment('gone', 5000);
    await store.reset('gone');
    expect(await c.exists('fw:rl:gone')).toBe(0);
  });

  it('uses one EVALSHA round trip per hit once the script is cached, and reloads it after SCRIPT FLUSH', async () => {
    const c = client();
    const store = new RedisStore({ client: c, timeout: LIVE_TIMEOUT });
    await c.script('FLUSH');
    // First hit: EVALSHA answers NOSCRIPT, EVAL loads the script.
    expect((await store.increment('trips', 5000)).count).toBe(1);
    await c.config('RESETSTAT');
    for (let i = 0; i < 10; i++) await store.increment('trips', 5000);
    const stats = (await c.info('commandstats')).split('\r\n');
    const calls = (name: string): number => Number(/calls=(\d+)/.exec(stats.find((line) => line.startsWith(`cmdstat_${name}:`)) ?? '')?.[1] ?? 0);
    expect(calls('evalsha')).toBe(10);
    expect(calls('eval')).toBe(0);
    expect(calls('incr')).toBe(10);
    expect(calls('pexpire')).toBe(0);
  });

  it('counts atomically under concurrent hits from several clients', async () => {
    const stores = [new RedisStore({ client: client(), timeout: LIVE_TIMEOUT }), new RedisStore({ client: client(), timeout: LIVE_TIMEOUT }), new RedisStore({ client: client(), timeout: LIVE_TIMEOUT })];
    const hits = await Promise.all(Array.from({ length: 60 }, (_, i) => stores[i % 3]!.increment('race', 5000)));
    expect(hits.map((h) => h.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
  });

  it('rejects invalid options', () => {
    expect(() => new RedisStore({} as { client: Redis })).toThrow(/ioredis client/);
    expect(() => new RedisStore({ client: client(), timeout: 0 })).toThrow(/timeout/);
    expect(() => new RedisStore({ client: client(), prefix: 5 as unknown as string })).toThrow(/prefix/);
    expect(DEFAULT_REDIS_TIMEOUT).toBe(500);
  });
});

describe('rateLimit() with the Redis store', () => {
  it('shares one limit of 5 between two app instances on one Redis', async () => {
    const prefix = `shared-${Date.now()}:`;
    const one = await appWith({ maxRequests: 5, store: new RedisStore({ client: client(), prefix, timeout: LIVE_TIMEOUT }) });
    const two = await appWith({ maxRequests: 5, store: new RedisStore({ client: client(), prefix, timeout: LIVE_TIMEOUT }) });
    try {
      const responses: TestResponse[] = [];
      for (let i = 0; i < 7; i++) responses.push(await send(`${i % 2 === 0 ? one.url : two.url}/ok`));
      expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 429, 429]);
      expect(responses.slice(0, 5).map((r) => r.headers['x-ratelimit-remaining'])).toEqual(['4', '3', '2', '1', '0']);
      const limited = responses[5]!;
      expect(limited.json()).toEqual({ error: true, message: 'Too many requests, please try again later', code: 429 });
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
      expect(limited.headers['x-ratelimit-limit']).toBe('5');
      // Both instances report the same window end (within a second of each other).
      const resets = responses.map((r) => Date.parse(r.headers['x-ratelimit-reset'] as string));
      expect(Math.max(...resets) - Math.min(...resets)).toBeLessThan(1000);
    } finally {
      await Promise.all([one.app.close(), two.app.close()]);
    }
  });

  it('takes back skipped responses in Redis too', async () => {
    const prefix = `skip-${Date.now()}:`;
    const { url, app } = await appWith({ maxRequests: 2, skipFailedRequests: true, store: new RedisStore({ client: client(), prefix, timeout: LIVE_TIMEOUT }) });
    try {
      for (let i = 0; i < 3; i++) expect((await send(`${url}/bad`)).status).toBe(400);
      // decrement runs after the response; give it a moment to land.
      await new Promise((resolve) => setTimeout(resolve, 50));
      const ok = await send(`${url}/ok`);
      expect(ok.status).toBe(200);
      expect(ok.headers['x-ratelimit-remaining']).toBe('1');
    } finally {
      await app.close();
    }
  });
});

describe('rateLimit() when Redis is unreachable', () => {
  it('answers without hanging and without rate-limit headers (fail open), reporting once', async () => {
    const deadPort = await freePort();
    const errors: unknown[] = [];
    const store = new RedisStore({ client: client(deadPort), timeout: 200 });
    const { url, app } = await appWith({ maxRequests: 1, store, onStoreError: (err) => errors.push(err) });
    try {
      const started = Date.now();
      for (let i = 0; i < 3; i++) {
        const res = await send(`${url}/ok`);
        expect(res.status).toBe(200);
        expect(res.headers['x-ratelimit-limit']).toBeUndefined();
      }
      // Each within the store's 200 ms time-out, not ioredis's own 10 s connect time-out: the bound
      // tells the two apart with room for a loaded machine.
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toBeInstanceOf(RedisStoreError);
    } finally {
      await app.close();
    }
  });

  it('answers 503 with failClosed', async () => {
    const deadPort = await freePort();
    const store = new RedisStore({ client: client(deadPort, { enableOfflineQueue: false }), timeout: 200 });
    const { url, app } = await appWith({ store, failClosed: true, onStoreError: () => undefined });
    try {
      const res = await send(`${url}/ok`);
      expect(res.status).toBe(503);
      expect(res.json()).toEqual({ error: true, message: 'Service Unavailable', code: 503 });
    } finally {
      await app.close();
    }
  });

  it('keeps answering when Redis goes away mid-run', async () => {
    const own = await startRedis();
    const c = client(own.port, { enableOfflineQueue: false });
    await new Promise((resolve) => c.once('ready', resolve));
    const errors: unknown[] = [];
    const { url, app } = await appWith({ maxRequests: 100, store: new RedisStore({ client: c, timeout: 2000 }), onStoreError: (err) => errors.push(err) });
    try {
      expect((await send(`${url}/ok`)).headers['x-ratelimit-remaining']).toBe('99');
      await own.stop();
      const started = Date.now();
      const during = await send(`${url}/ok`);
      expect(during.status).toBe(200);
      expect(during.headers['x-ratelimit-remaining']).toBeUndefined();
      // Within the store's 2 s time-out (Redis is down: the call fails at once), not ioredis's own 10 s
      // connect time-out (room for a loaded machine).
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(errors).toHaveLength(1);
    } finally {
      await app.close();
    }
  });
});
