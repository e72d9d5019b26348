import { Application, HTTPError, type Context } from '@fw/core';
import {
  DEFAULT_IDEMPOTENCY_METHODS,
  DEFAULT_IDEMPOTENCY_TTL,
  idempotency,
  MemoryStore,
  type IdempotencyConfig,
} from './index.js';

/** Resolves after `ms`. */
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface Harness {
  app: Application;
  runs: () => number;
  release: () => void;
}

/**
 * An app with `POST /orders` behind idempotency(config): each run counts, answers 201 with a fresh
 * id, a Location and a cookie; `?fail=500|409` fails instead; `?hold=1` waits for `release()`.
 */
function harness(config: IdempotencyConfig = {}): Harness {
  const app = new Application({ onLog: () => undefined });
  let count = 0;
  let waiting: Array<() => void> = [];
  app.use(idempotency(config));
  const handler = async (ctx: Context): Promise<void> => {
    count++;
    const query = ctx.query as Record<string, string | undefined>;
    if (query.hold === '1') await new Promise<void>((resolve) => waiting.push(resolve));
    if (query.fail === '500') throw new Error('database down');
    if (query.fail === '409') throw new HTTPError(409, 'Out of stock');
    ctx.setHeader('Location', `/orders/${count}`);
    ctx.setHeader('Set-Cookie', `seen=${count}`);
    ctx.json({ id: count, body: ctx.body }, 201);
  };
  app.post('/orders', handler);
  app.patch('/orders', handler);
  app.put('/orders', handler);
  app.post('/other', handler);
  return {
    app,
    runs: () => count,
    release: () => {
      const all = waiting;
      waiting = [];
      for (const resolve of all) resolve();
    },
  };
}

const post = (app: Application, key: string | undefined, body: unknown = { sku: 'a' }, url = '/orders', method = 'POST') =>
  app.inject({ method, url, body, headers: key === undefined ? {} : { 'idempotency-key': key } });

describe('idempotency()', () => {
  it('runs the first request and replays its response to a retry, marked Idempotent-Replayed', async () => {
    const { app, runs } = harness();
    const first = await post(app, 'k-1');
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const retry = await post(app, 'k-1');
    expect(runs()).toBe(1);
    expect(retry.statusCode).toBe(201);
    expect(retry.body).toBe(first.body);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.headers.location).toBe('/orders/1');
    expect(retry.headers['content-type']).toBe('application/json; charset=utf-8');
    // Cookies belong to each response, not to the stored one.
    expect(retry.headers['set-cookie']).toBeUndefined();
    // Another key runs again.
    expect((await post(app, 'k-2')).json()).toMatchObject({ id: 2 });
    await app.close();
  });

  it('accepts the key as the draft writes it, an sf-string in quotes, as the same key', async () => {
    const { app, runs } = harness();
    await post(app, '"abc-123"');
    const retry = await post(app, 'abc-123');
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(runs()).toBe(1);
    await app.close();
  });

  it('answers 422 to the same key with a different request body', async () => {
    const { app, runs } = harness();
    await post(app, 'k', { sku: 'a' });
    const other = await post(app, 'k', { sku: 'b' });
    expect(other.statusCode).toBe(422);
    expect(other.json()).toEqual({ error: true, message: 'This Idempotency-Key was already used with a different request', code: 422 });
    expect(runs()).toBe(1);
    await app.close();
  });

  it('answers 409 with Retry-After while the first request with the key still runs, then replays', async () => {
    const { app, runs, release } = harness();
    const first = post(app, 'slow', { sku: 'a' }, '/orders?hold=1');
    while (runs() === 0) await sleep(5);
    const during = await post(app, 'slow', { sku: 'a' }, '/orders?hold=1');
    expect(during.statusCode).toBe(409);
    expect(during.headers['retry-after']).toBe('1');
    release();
    expect((await first).statusCode).toBe(201);
    const after = await post(app, 'slow', { sku: 'a' }, '/orders?hold=1');
    expect(after.headers['idempotent-replayed']).toBe('true');
    expect(runs()).toBe(1);
    await app.close();
  });

  it('forgets a key after its ttl: the request runs again', async () => {
    const { app, runs } = harness({ ttl: 40 });
    await post(app, 'short');
    expect((await post(app, 'short')).headers['idempotent-replayed']).toBe('true');
    await sleep(80);
    const later = await post(app, 'short');
    expect(later.headers['idempotent-replayed']).toBeUndefined();
    expect(runs()).toBe(2);
    expect(DEFAULT_IDEMPOTENCY_TTL).toBe(86_400_000);
    await app.close();
  });

  it('does not store a 5xx: the retry runs again', async () => {
    const { app, runs } = harness();
    expect((await post(app, 'flaky', { sku: 'a' }, '/orders?fail=500')).statusCode).toBe(500);
    expect((await post(app, 'flaky', { sku: 'a' }, '/orders?fail=500')).statusCode).toBe(500);
    expect(runs()).toBe(2);
    await app.close();
  });

  it('stores a 4xx, as Stripe does, and replays it', async () => {
    const { app, runs } = harness();
    const first = await post(app, 'refused', { sku: 'a' }, '/orders?fail=409');
    expect(first.statusCode).toBe(409);
    const retry = await post(app, 'refused', { sku: 'a' }, '/orders?fail=409');
    expect(retry.statusCode).toBe(409);
    expect(retry.json()).toEqual({ error: true, message: 'Out of stock', code: 409 });
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(runs()).toBe(1);
    await app.close();
  });

  it('answers 400 to a request without the key when required, and lets other methods through', async () => {
    const { app, runs } = harness({ required: true });
    const missing = await post(app, undefined);
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ message: 'POST /orders needs an Idempotency-Key header' });
    // PUT is idempotent already: not in the default methods.
    expect(DEFAULT_IDEMPOTENCY_METHODS).toEqual(['POST', 'PATCH']);
    expect((await post(app, undefined, { sku: 'a' }, '/orders', 'PUT')).statusCode).toBe(201);
    expect(runs()).toBe(1);
    await app.close();
  });

  it('runs every request without a key when not required, and refuses a malformed key', async () => {
    const { app, runs } = harness();
    await post(app, undefined);
    await post(app, undefined);
    expect(runs()).toBe(2);
    expect((await post(app, 'x'.repeat(256))).statusCode).toBe(400);
    expect((await post(app, '')).statusCode).toBe(400);
    await app.close();
  });

  it('scopes keys by method and path by default, and by keyGenerator when given', async () => {
    const byPath = harness();
    await post(byPath.app, 'same');
    await post(byPath.app, 'same', { sku: 'a' }, '/other');
    await post(byPath.app, 'same', { sku: 'a' }, '/orders', 'PATCH');
    expect(byPath.runs()).toBe(3);
    await byPath.app.close();

    const byUser = harness({ keyGenerator: (ctx) => String(ctx.headers['x-user']) });
    const as = (user: string) => byUser.app.inject({ method: 'POST', url: '/orders', body: { sku: 'a' }, headers: { 'idempotency-key': 'k', 'x-user': user } });
    await as('alice');
    const bob = await as('bob');
    expect(bob.headers['idempotent-replayed']).toBeUndefined();
    expect((await as('alice')).headers['idempotent-replayed']).toBe('true');
    expect(byUser.runs()).toBe(2);
    await byUser.app.close();
  });

  it('uses a custom header and replay marker', async () => {
    const { app } = harness({ header: 'X-Request-Key', replayHeader: 'X-Replayed' });
    await app.inject({ method: 'POST', url: '/orders', body: {}, headers: { 'x-request-key': 'k' } });
    const retry = await app.inject({ method: 'POST', url: '/orders', body: {}, headers: { 'x-request-key': 'k' } });
    expect(retry.headers['x-replayed']).toBe('true');
    await app.close();
  });

  it('keeps the memory store bounded by maxKeys', async () => {
    const store = new MemoryStore({ maxKeys: 3 });
    const { app, runs } = harness({ store });
    for (let i = 0; i < 10; i++) await post(app, `k${i}`);
    expect(store.idempotencyKeys).toBe(3);
    // The oldest keys were dropped; the newest still replays.
    expect((await post(app, 'k9')).headers['idempotent-replayed']).toBe('true');
    expect(runs()).toBe(10);
    await app.close();
  });

  it('answers 503 when the store fails, rather than running the request unguarded', async () => {
    const failing = { begin: () => Promise.reject(new Error('down')), finish: () => undefined, abandon: () => undefined };
    const { app, runs } = harness({ store: failing });
    expect((await post(app, 'k')).statusCode).toBe(503);
    expect(runs()).toBe(0);
    await app.close();
  });

  it('refuses bad options', () => {
    expect(() => idempotency({ ttl: 0 })).toThrow(/ttl/);
    expect(() => idempotency({ header: 'bad header' })).toThrow(/header/);
    expect(() => idempotency({ store: {} as never })).toThrow(/store/);
  });
});
