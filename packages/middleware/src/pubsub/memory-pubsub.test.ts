import { HTTPError, isTracked, tracked } from '@fw/core';
import { createPubSub, PubSubOverflowError, type PubSubMessage, type Subscription } from '../index.js';

/** Reads `count` events (fails the test instead of hanging when they do not come). */
async function take<T>(subscription: Subscription<T>, count: number): Promise<Array<PubSubMessage<T>>> {
  const out: Array<PubSubMessage<T>> = [];
  const timeout = setTimeout(() => void subscription.return(), 2000);
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

describe('createPubSub() in memory', () => {
  it('delivers every published event to every subscriber of the topic, in order, with increasing ids', async () => {
    const bus = createPubSub<{ orders: { n: number }; other: string }>();
    const a = bus.subscribe('orders');
    const b = bus.subscribe('orders');
    const other = bus.subscribe('other');
    const ids = [await bus.publish('orders', { n: 1 }), await bus.publish('orders', { n: 2 }), await bus.publish('orders', { n: 3 })];
    expect((await take(a, 3)).map((m) => m.data.n)).toEqual([1, 2, 3]);
    const fromB = await take(b, 3);
    expect(fromB.map((m) => m.id)).toEqual(ids);
    expect(ids.every((id) => /^\d+-\d+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(3);
    expect(other.queued).toBe(0);
    await bus.close();
  });

  it('gives ids a streaming handler yields with tracked() as they are', async () => {
    const bus = createPubSub<{ t: { n: number } }>();
    const subscription = bus.subscribe('t');
    const id = await bus.publish('t', { n: 1 });
    const [message] = await take(subscription, 1);
    const event = tracked(message!.id, message!.data);
    expect(isTracked(event)).toBe(true);
    expect(event.id).toBe(id);
    await bus.close();
  });

  it('ends the iteration when the signal aborts, and removes the subscriber at once', async () => {
    const bus = createPubSub();
    const controller = new AbortController();
    const subscription = bus.subscribe('t', { signal: controller.signal });
    expect(bus.subscribers('t')).toBe(1);
    const pending = subscription.next();
    controller.abort();
    await expect(pending).resolves.toEqual({ done: true, value: undefined });
    expect(bus.subscribers('t')).toBe(0);
    await bus.publish('t', 'after');
    await expect(subscription.next()).resolves.toEqual({ done: true, value: undefined });
  });

  it('leaves no listener behind: on the signal, and on the topic after a for-await loop breaks', async () => {
    const bus = createPubSub();
    const controller = new AbortController();
    const added = jest.spyOn(controller.signal, 'addEventListener');
    const removed = jest.spyOn(controller.signal, 'removeEventListener');
    const subscription = bus.subscribe('t', { signal: controller.signal });
    void bus.publish('t', 1);
    for await (const message of subscription) {
      expect(message.data).toBe(1);
      break;
    }
    expect(bus.subscribers('t')).toBe(0);
    expect(added).toHaveBeenCalledTimes(1);
    expect(removed).toHaveBeenCalledWith('abort', added.mock.calls[0]![1]);
  });

  it('never subscribes with a signal that has already aborted', async () => {
    const bus = createPubSub();
    const subscription = bus.subscribe('t', { signal: AbortSignal.abort() });
    expect(bus.subscribers('t')).toBe(0);
    await expect(subscription.next()).resolves.toEqual({ done: true, value: undefined });
    await expect(subscription.ready).resolves.toBeUndefined();
  });

  it('replays what a subscriber missed after lastEventId, then goes on live', async () => {
    const bus = createPubSub<{ t: number }>();
    const ids: string[] = [];
    for (let n = 1; n <= 5; n++) ids.push(await bus.publish('t', n));
    const resumed = bus.subscribe('t', { lastEventId: ids[1] });
    await bus.publish('t', 6);
    expect((await take(resumed, 4)).map((m) => m.data)).toEqual([3, 4, 5, 6]);
    await resumed.return();
  });

  it('replays nothing for an id that is not an event id, and everything kept for an id older than the window', async () => {
    const bus = createPubSub<{ t: number }>({ replay: { size: 2 } });
    for (let n = 1; n <= 4; n++) await bus.publish('t', n);
    const madeUp = bus.subscribe('t', { lastEventId: 'not-an-id' });
    expect(madeUp.queued).toBe(0);
    const old = bus.subscribe('t', { lastEventId: '0-0' });
    expect((await take(old, 2)).map((m) => m.data)).toEqual([3, 4]);
    await bus.close();
  });

  it('keeps at most replay.size events per topic and none older than replay.maxAge', async () => {
    let now = 1_000_000;
    const clock = jest.spyOn(Date, 'now').mockImplementation(() => now);
    try {
      const bus = createPubSub<{ t: number }>({ replay: { size: 3, maxAge: 1000 } });
      for (let n = 1; n <= 5; n++) await bus.publish('t', n);
      expect(bus.subscribe('t', { lastEventId: '0-0' }).queued).toBe(3);
      now += 600;
      await bus.publish('t', 6);
      now += 600; // 1, 2 … 5 are now 1200 ms old; 6 is 600 ms old
      const late = bus.subscribe('t', { lastEventId: '0-0' });
      expect((await take(late, 1)).map((m) => m.data)).toEqual([6]);
      expect(late.queued).toBe(0);
      await bus.close();
    } finally {
      clock.mockRestore();
    }
  });

  it('keeps the replay windows of at most maxTopics topics, dropping the least recently published', async () => {
    const bus = createPubSub<Record<string, number>>({ maxTopics: 2 });
    await bus.publish('a', 1);
    await bus.publish('b', 1);
    await bus.publish('a', 2);
    await bus.publish('c', 1); // b goes
    expect(bus.subscribe('a', { lastEventId: '0-0' }).queued).toBe(2);
    expect(bus.subscribe('b', { lastEventId: '0-0' }).queued).toBe(0);
    expect(bus.subscribe('c', { lastEventId: '0-0' }).queued).toBe(1);
    await bus.close();
  });

  it('bounds the queue of a subscriber that does not read: past bufferSize it is ended with a 503 after the queued events', async () => {
    const bus = createPubSub<{ t: number }>({ bufferSize: 3 });
    const slow = bus.subscribe('t');
    for (let n = 1; n <= 10; n++) await bus.publish('t', n);
    expect(slow.queued).toBe(3);
    expect(bus.subscribers('t')).toBe(0);
    expect((await take(slow, 3)).map((m) => m.data)).toEqual([1, 2, 3]);
    const error = await slow.next().then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(PubSubOverflowError);
    expect(error).toBeInstanceOf(HTTPError);
    expect((error as HTTPError).statusCode).toBe(503);
    expect((error as Error).message).toMatch(/fell 3 events behind/);
    await expect(slow.next()).resolves.toEqual({ done: true, value: undefined });
  });

  it("keeps the newest bufferSize events with overflow: 'drop-oldest'", async () => {
    const bus = createPubSub<{ t: number }>();
    const slow = bus.subscribe('t', { bufferSize: 2, overflow: 'drop-oldest' });
    for (let n = 1; n <= 5; n++) await bus.publish('t', n);
    expect(bus.subscribers('t')).toBe(1);
    expect((await take(slow, 2)).map((m) => m.data)).toEqual([4, 5]);
    await slow.return();
  });

  it('does not count replayed events against bufferSize', async () => {
    const bus = createPubSub<{ t: number }>({ bufferSize: 2 });
    for (let n = 1; n <= 4; n++) await bus.publish('t', n);
    const resumed = bus.subscribe('t', { lastEventId: '0-0' });
    await bus.publish('t', 5);
    await bus.publish('t', 6);
    expect((await take(resumed, 6)).map((m) => m.data)).toEqual([1, 2, 3, 4, 5, 6]);
    await resumed.return();
  });

  it('ends every subscription on close()', async () => {
    const bus = createPubSub();
    const a = bus.subscribe('a');
    const b = bus.subscribe('b');
    const pending = a.next();
    await bus.close();
    await expect(pending).resolves.toEqual({ done: true, value: undefined });
    await expect(b.next()).resolves.toEqual({ done: true, value: undefined });
    expect(bus.subscribers('a') + bus.subscribers('b')).toBe(0);
  });

  it('refuses bad options when they are given', () => {
    expect(() => createPubSub({ bufferSize: 0 })).toThrow('createPubSub: bufferSize must be an integer >= 1, got 0');
    expect(() => createPubSub({ replay: { size: -1 } })).toThrow('replay.size must be an integer >= 0');
    expect(() => createPubSub({ overflow: 'block' as 'error' })).toThrow("overflow must be 'error' or 'drop-oldest'");
    expect(() => createPubSub({ maxTopics: 0 })).toThrow('maxTopics must be an integer >= 1');
    expect(() => createPubSub().subscribe('')).toThrow('subscribe: the topic must be a non-empty string');
  });
});
