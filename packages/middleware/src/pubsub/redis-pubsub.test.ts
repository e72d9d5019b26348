import { Redis } from 'ioredis';
import { freePort, startRedis, type RedisServer } from '../../../../tooling/testing/redis.js';
import { createPubSub, DEFAULT_PUBSUB_PREFIX, RedisPubSub, type PubSub, type PubSubMessage, type Subscription } from '../index.js';

// A real redis-server per test file; when it is not installed these tests fail (never skip).
let redis: RedisServer;
const clients: Redis[] = [];
const buses: PubSub<Record<string, unknown>>[] = [];

function client(): Redis {
  const c = new Redis(redis.port, '127.0.0.1', { maxRetriesPerRequest: 1 });
  c.on('error', () => undefined);
  clients.push(c);
  return c;
}

/** A pub/sub with its own connections, as another instance of the service would have. */
function instance(config: Omit<Parameters<typeof createPubSub>[0] & object, 'redis'> = {}): PubSub<Record<string, unknown>> {
  const bus = createPubSub({ ...config, redis: client(), onError: () => undefined });
  buses.push(bus);
  return bus;
}

async function take<T>(subscription: Subscription<T>, count: number): Promise<Array<PubSubMessage<T>>> {
  const out: Array<PubSubMessage<T>> = [];
  const timeout = setTimeout(() => void subscription.return(), 3000);
  try {
    while (out.length < count) {
      const next = await subscription.next();
      if (next.done === true) break;
      out.push(next.value);
    }
  } finally {
    clearTimeout(timeout);
  }
  return out;
}

async function channelSubscribers(channel: string): Promise<number> {
  const reply = (await client().pubsub('NUMSUB', channel)) as [string, number];
  return Number(reply[1]);
}

async function eventually(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 2000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met within 2 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

beforeAll(async () => {
  redis = await startRedis();
});

afterAll(async () => {
  await Promise.all(buses.map((bus) => bus.close()));
  await Promise.all(clients.map((c) => c.quit().catch(() => undefined)));
  await redis?.stop();
});

describe('createPubSub({ redis })', () => {
  it('is the Redis pub/sub', () => {
    expect(instance()).toBeInstanceOf(RedisPubSub);
    expect(() => createPubSub({ redis: {} as never })).toThrow('createPubSub: redis must be an ioredis client');
  });

  it("delivers each instance's events to the other instance's subscribers, in order, with Redis stream ids", async () => {
    const one = instance();
    const two = instance();
    const onOne = one.subscribe('orders');
    const onTwo = two.subscribe('orders');
    await Promise.all([onOne.ready, onTwo.ready]);
    const ids = [await one.publish('orders', { n: 1 }), await two.publish('orders', { n: 2 }), await one.publish('orders', { n: 3 })];
    expect(ids.every((id) => /^\d+-\d+$/.test(id))).toBe(true);
    const expected = ids.map((id, i) => ({ id, data: { n: i + 1 } }));
    expect(await take(onOne, 3)).toEqual(expected);
    expect(await take(onTwo, 3)).toEqual(expected);
    await onOne.return();
    await onTwo.return();
  });

  it("replays from Redis what a subscriber missed after lastEventId, another instance's events included, then goes on live", async () => {
    const one = instance();
    const two = instance();
    const ids: string[] = [];
    for (let n = 1; n <= 4; n++) ids.push(await one.publish('resume', n));
    const resumed = two.subscribe('resume', { lastEventId: ids[1] });
    await resumed.ready;
    await one.publish('resume', 5);
    expect((await take(resumed, 3)).map((m) => m.data)).toEqual([3, 4, 5]);
    await resumed.return();
  });

  it('keeps the replay window of a topic in a stream trimmed to replay.size, under the prefix', async () => {
    const bus = instance({ replay: { size: 3 } });
    for (let n = 1; n <= 10; n++) await bus.publish('trimmed', n);
    expect(await client().xlen(`${DEFAULT_PUBSUB_PREFIX}trimmed`)).toBe(3);
    const resumed = bus.subscribe('trimmed', { lastEventId: '0-0' });
    expect((await take(resumed, 3)).map((m) => m.data)).toEqual([8, 9, 10]);
    await resumed.return();
  });

  it('expires the replay window of a quiet topic after replay.maxAge', async () => {
    const bus = instance({ replay: { maxAge: 1000 } });
    await bus.publish('quiet', 1);
    const ttl = await client().pttl(`${DEFAULT_PUBSUB_PREFIX}quiet`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(1000);
  });

  it('unsubscribes the channel when the last subscriber of the topic leaves (signal or return)', async () => {
    const bus = instance();
    const channel = `${DEFAULT_PUBSUB_PREFIX}leaving`;
    const controller = new AbortController();
    const a = bus.subscribe('leaving', { signal: controller.signal });
    const b = bus.subscribe('leaving');
    await Promise.all([a.ready, b.ready]);
    expect(await channelSubscribers(channel)).toBe(1); // one connection per instance, whatever the number of subscribers
    controller.abort();
    expect(bus.subscribers('leaving')).toBe(1);
    await b.return();
    expect(bus.subscribers('leaving')).toBe(0);
    await eventually(async () => (await channelSubscribers(channel)) === 0);
  });

  it('ends its subscriptions and closes its subscriber connection on close(), leaving the client it was given open', async () => {
    const given = client();
    const bus = createPubSub({ redis: given, onError: () => undefined });
    const subscription = bus.subscribe('closing');
    await subscription.ready;
    expect(await channelSubscribers(`${DEFAULT_PUBSUB_PREFIX}closing`)).toBe(1);
    await bus.close();
    await expect(subscription.next()).resolves.toEqual({ done: true, value: undefined });
    await eventually(async () => (await channelSubscribers(`${DEFAULT_PUBSUB_PREFIX}closing`)) === 0);
    expect(given.status).toBe('ready');
    expect(() => bus.subscribe('closing')).toThrow('subscribe: this pub/sub is closed');
  });

  it('refuses an event that is not JSON', async () => {
    await expect(instance().publish('t', undefined)).rejects.toThrow('publish: an event of "t" must be JSON');
  });
});

describe('createPubSub({ redis }) across a reconnection', () => {
  it('delivers what was published while its subscriber connection was reconnecting, once', async () => {
    const one = instance();
    const two = instance();
    const subscription = two.subscribe('gap');
    await subscription.ready;
    await one.publish('gap', 1);
    expect((await take(subscription, 1)).map((m) => m.data)).toEqual([1]);
    // Cut every subscriber connection; ioredis reconnects within ~50 ms, and the next event is published in between.
    await client().client('KILL', 'TYPE', 'pubsub');
    await one.publish('gap', 2);
    await one.publish('gap', 3);
    expect((await take(subscription, 2)).map((m) => m.data)).toEqual([2, 3]);
    await one.publish('gap', 4);
    expect((await take(subscription, 1)).map((m) => m.data)).toEqual([4]);
    expect(subscription.queued).toBe(0);
    await subscription.return();
  });
});

describe('createPubSub({ redis }) when Redis cannot be reached', () => {
  it('fails the subscription with the reason instead of waiting, and keeps no subscriber', async () => {
    const unreachable = new Redis(await freePort(), '127.0.0.1', { enableOfflineQueue: false, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    unreachable.on('error', () => undefined);
    const bus = createPubSub({ redis: unreachable, onError: () => undefined });
    const subscription = bus.subscribe('down');
    await expect(subscription.next()).rejects.toThrow(/enableOfflineQueue|Connection is closed|ECONNREFUSED/);
    expect(bus.subscribers('down')).toBe(0);
    await expect(bus.publish('down', 1)).rejects.toThrow();
    await bus.close();
    unreachable.disconnect();
  });
});
