import { Redis } from 'ioredis';
import { Application, type Context } from '@fw/core';
import { send, start } from '../test/http.js';
import { startRedis, type RedisServer } from '../../../tooling/testing/redis.js';
import { idempotency, rateLimit, RedisStore } from './index.js';

// A real redis-server for this file, shared by two app instances as two processes would share it.
let redis: RedisServer;
const clients: Redis[] = [];

function client(): Redis {
  const c = new Redis(redis.port, '127.0.0.1', { maxRetriesPerRequest: 1, disconnectTimeout: 100 });
  c.on('error', () => undefined);
  clients.push(c);
  return c;
}

beforeAll(async () => {
  redis = await startRedis();
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.quit().then(() => undefined)));
  await redis?.stop();
});

/** What both instances count: runs of the handler, whichever instance ran it. */
interface Shared {
  runs: string[];
  /** Resolves the handler runs that wait (`?hold=1`). */
  release: () => void;
}

/** One app instance with its own Redis client and store on the shared server; the store also rate-limits. */
async function instance(name: string, prefix: string, shared: Shared): Promise<{ url: string; app: Application }> {
  const app = new Application({ onLog: () => undefined });
  const store = new RedisStore({ client: client(), prefix, timeout: 10_000 });
  app.use(rateLimit({ store, maxRequests: 1000 }));
  app.use(idempotency({ store }));
  app.post('/payments', async (ctx: Context) => {
    shared.runs.push(name);
    if ((ctx.query as Record<string, string>).hold === '1') await new Promise<void>((resolve) => (shared.release = resolve));
    ctx.json({ paidBy: name, amount: (ctx.body as { amount: number }).amount }, 201);
  });
  return { url: await start(app), app };
}

const pay = (url: string, key: string, body: string, query = '') =>
  send(`${url}/payments${query}`, { method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': key }, body });

describe('idempotency() with the Redis store, across two instances', () => {
  it("replays on instance B the response instance A gave, and refuses the key with another body on B", async () => {
    const prefix = `idem-replay-${Date.now()}:`;
    const shared: Shared = { runs: [], release: () => undefined };
    const a = await instance('A', prefix, shared);
    const b = await instance('B', prefix, shared);
    try {
      const first = await pay(a.url, 'pay-1', '{"amount":5}');
      expect(first.status).toBe(201);
      const retry = await pay(b.url, 'pay-1', '{"amount":5}');
      expect(retry.status).toBe(201);
      expect(retry.json()).toEqual({ paidBy: 'A', amount: 5 });
      expect(retry.headers['idempotent-replayed']).toBe('true');
      // The rate-limit counters of the same store are per response, not replayed.
      expect(retry.headers['x-ratelimit-remaining']).toBe('998');
      expect((await pay(b.url, 'pay-1', '{"amount":6}')).status).toBe(422);
      expect(shared.runs).toEqual(['A']);
      // Stored under the store's prefix, beside the counters, with the ttl as its expiry.
      const keys = await clients[0]!.keys(`${prefix}idem:*`);
      expect(keys).toHaveLength(1);
      const ttl = await clients[0]!.pttl(keys[0]!);
      expect(ttl).toBeGreaterThan(86_000_000);
    } finally {
      await Promise.all([a.app.close(), b.app.close()]);
    }
  });

  it('runs one of two concurrent same-key requests on A and B and answers the other 409', async () => {
    const prefix = `idem-race-${Date.now()}:`;
    const shared: Shared = { runs: [], release: () => undefined };
    const a = await instance('A', prefix, shared);
    const b = await instance('B', prefix, shared);
    try {
      const onA = pay(a.url, 'race', '{"amount":7}', '?hold=1');
      const onB = pay(b.url, 'race', '{"amount":7}', '?hold=1');
      // One of them holds the lock and waits; the other is refused meanwhile.
      const refused = await Promise.race([onA, onB]);
      expect(refused.status).toBe(409);
      expect(refused.headers['retry-after']).toBe('1');
      expect(shared.runs).toHaveLength(1);
      shared.release();
      const statuses = (await Promise.all([onA, onB])).map((r) => r.status).sort();
      expect(statuses).toEqual([201, 409]);
      // Afterwards either instance replays the one run.
      const replay = await pay(shared.runs[0] === 'A' ? b.url : a.url, 'race', '{"amount":7}');
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.json()).toEqual({ paidBy: shared.runs[0], amount: 7 });
      expect(shared.runs).toHaveLength(1);
    } finally {
      await Promise.all([a.app.close(), b.app.close()]);
    }
  });

  it('locks with one SET NX PX GET and stores with one SET PX', async () => {
    const c = client();
    const store = new RedisStore({ client: c, prefix: `idem-cmd-${Date.now()}:`, timeout: 10_000 });
    await c.config('RESETSTAT');
    expect(await store.begin('k', 'f1', 5000)).toBeUndefined();
    expect(await store.begin('k', 'f2', 5000)).toEqual({ state: 'running', fingerprint: 'f1' });
    await store.finish('k', { state: 'done', fingerprint: 'f1', response: { status: 201, headers: {}, body: '' } }, 5000);
    expect(await store.begin('k', 'f1', 5000)).toEqual({ state: 'done', fingerprint: 'f1', response: { status: 201, headers: {}, body: '' } });
    await store.abandon('k');
    expect(await store.begin('k', 'f3', 5000)).toBeUndefined();
    const stats = await c.info('commandstats');
    expect(/cmdstat_set:calls=(\d+)/.exec(stats)?.[1]).toBe('5');
    expect(stats).not.toMatch(/cmdstat_eval/);
  });
});
