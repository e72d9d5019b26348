import { Application, HTTPError, isHTTPError, type ApplicationConfig, type Context, type RequestContext } from '@fw/core';
import { isPerCall, metaOf } from '@fw/core/plugin';
import { send, start, type TestResponse } from '../test/http.js';
import { DEFAULT_RATE_LIMIT_MESSAGE, rateLimit } from './index.js';
import type { RateLimitConfig, RateLimitHit, RateLimitStore } from './index.js';
import { callContext } from '../test/contexts.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Starts an app with rateLimit(config) global in front of a few routes. */
async function withLimit(config: RateLimitConfig | undefined, fn: (url: string) => Promise<void>, appConfig: ApplicationConfig = {}): Promise<void> {
  const app = new Application({ onLog: () => undefined, ...appConfig });
  app.use(rateLimit(config));
  addRoutes(app);
  const url = await start(app);
  try {
    await fn(url);
  } finally {
    await app.close();
  }
}

function addRoutes(app: Application): void {
  app.get('/ok', (ctx) => ctx.json({ ok: true }));
  app.get('/bad', (ctx) => ctx.json({ error: true }, 400));
  app.get('/created', (ctx) => ctx.json({}, 201));
  app.get('/moved', (ctx) => ctx.status(301).text('moved'));
  app.get('/throws', () => {
    throw new HTTPError(422, 'nope');
  });
  app.get('/crash', () => {
    throw new Error('crash');
  });
  app.get('/ip', (ctx) => ctx.json({ ip: ctx.ip }));
}

const remaining = (res: TestResponse): number => Number(res.headers['x-ratelimit-remaining']);

async function sendMany(url: string, n: number, headers?: Record<string, string>): Promise<TestResponse[]> {
  const out: TestResponse[] = [];
  for (let i = 0; i < n; i++) out.push(await send(url, { headers }));
  return out;
}

describe('rateLimit() defaults', () => {
  it('allows 100 requests per 60 s window and sends X-RateLimit-Limit, -Remaining and an ISO 8601 -Reset', async () => {
    await withLimit(undefined, async (url) => {
      const before = Date.now();
      const res = await send(`${url}/ok`);
      expect(res.status).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBe('100');
      expect(res.headers['x-ratelimit-remaining']).toBe('99');
      const reset = res.headers['x-ratelimit-reset'] as string;
      expect(reset).toMatch(ISO);
      const resetAt = Date.parse(reset);
      expect(resetAt).toBeGreaterThanOrEqual(before + 60_000);
      expect(resetAt).toBeLessThanOrEqual(Date.now() + 60_000);
      expect(res.headers['retry-after']).toBeUndefined();
      expect(res.headers.ratelimit).toBeUndefined();
      expect(res.headers['ratelimit-policy']).toBeUndefined();
      const second = await send(`${url}/ok`);
      expect(second.headers['x-ratelimit-remaining']).toBe('98');
      // Same window: same reset time.
      expect(second.headers['x-ratelimit-reset']).toBe(reset);
    });
  });

  it('answers the 101st request of a window with 429, the default message and Retry-After', async () => {
    await withLimit(undefined, async (url) => {
      const responses = await sendMany(`${url}/ok`, 101);
      expect(responses.slice(0, 100).every((r) => r.status === 200)).toBe(true);
      expect(remaining(responses[99]!)).toBe(0);
      const limited = responses[100]!;
      expect(limited.status).toBe(429);
      expect(limited.json()).toEqual({ error: true, message: 'Too many requests, please try again later', code: 429 });
      expect(DEFAULT_RATE_LIMIT_MESSAGE).toBe('Too many requests, please try again later');
      expect(limited.headers['x-ratelimit-limit']).toBe('100');
      expect(limited.headers['x-ratelimit-remaining']).toBe('0');
      expect(limited.headers['x-ratelimit-reset']).toMatch(ISO);
      const retryAfter = Number(limited.headers['retry-after']);
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(60);
    });
  });

  it('keys by the socket address and ignores X-Forwarded-For unless the app trusts a proxy', async () => {
    await withLimit({ maxRequests: 2 }, async (url) => {
      await send(`${url}/ok`, { headers: { 'x-forwarded-for': '203.0.113.1' } });
      await send(`${url}/ok`, { headers: { 'x-forwarded-for': '203.0.113.2' } });
      const third = await send(`${url}/ok`, { headers: { 'x-forwarded-for': '203.0.113.3' } });
      expect(third.status).toBe(429);
    });
  });

  it('keys by the X-Forwarded-For client when the app has trustProxy set', async () => {
    await withLimit(
      { maxRequests: 2 },
      async (url) => {
        const a = await sendMany(`${url}/ok`, 3, { 'x-forwarded-for': '203.0.113.1' });
        expect(a.map((r) => r.status)).toEqual([200, 200, 429]);
        const b = await send(`${url}/ip`, { headers: { 'x-forwarded-for': '203.0.113.2' } });
        expect(b.status).toBe(200);
        expect(b.json()).toEqual({ ip: '203.0.113.2' });
        expect(remaining(b)).toBe(1);
      },
      { trustProxy: 1 },
    );
  });
});

describe('rateLimit() fields', () => {
  it('limits to maxRequests, counting Remaining down to 0', async () => {
    await withLimit({ maxRequests: 3 }, async (url) => {
      const responses = await sendMany(`${url}/ok`, 5);
      expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 429, 429]);
      expect(responses.map((r) => r.headers['x-ratelimit-remaining'])).toEqual(['2', '1', '0', '0', '0']);
      expect(responses.every((r) => r.headers['x-ratelimit-limit'] === '3')).toBe(true);
    });
  });

  it('starts a new window after windowMs', async () => {
    await withLimit({ maxRequests: 1, windowMs: 300 }, async (url) => {
      const first = await send(`${url}/ok`);
      expect(first.status).toBe(200);
      const limited = await send(`${url}/ok`);
      expect(limited.status).toBe(429);
      expect(limited.headers['retry-after']).toBe('1');
      const resetAt = Date.parse(first.headers['x-ratelimit-reset'] as string);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, resetAt - Date.now()) + 20));
      const again = await send(`${url}/ok`);
      expect(again.status).toBe(200);
      expect(remaining(again)).toBe(0);
      expect(Date.parse(again.headers['x-ratelimit-reset'] as string)).toBeGreaterThan(resetAt);
    });
  });

  it('uses keyGenerator for the key', async () => {
    const keyGenerator = (ctx: RequestContext): string => String(ctx.headers['x-api-key'] ?? 'anonymous');
    await withLimit({ maxRequests: 2, keyGenerator }, async (url) => {
      const a = await sendMany(`${url}/ok`, 3, { 'x-api-key': 'alpha' });
      expect(a.map((r) => r.status)).toEqual([200, 200, 429]);
      const b = await send(`${url}/ok`, { headers: { 'x-api-key': 'beta' } });
      expect(b.status).toBe(200);
      expect(remaining(b)).toBe(1);
    });
  });

  it('sends message in the 429 body', async () => {
    await withLimit({ maxRequests: 0, message: 'Slow down, please' }, async (url) => {
      const res = await send(`${url}/ok`);
      expect(res.status).toBe(429);
      expect(res.json()).toEqual({ error: true, message: 'Slow down, please', code: 429 });
    });
  });

  it('with skipSuccessfulRequests, does not count 2xx but counts 3xx, 4xx and thrown errors', async () => {
    await withLimit({ maxRequests: 3, skipSuccessfulRequests: true }, async (url) => {
      for (let i = 0; i < 5; i++) expect((await send(`${url}/ok`)).status).toBe(200);
      expect((await send(`${url}/created`)).status).toBe(201);
      expect(remaining(await send(`${url}/ok`))).toBe(2);
      expect(remaining(await send(`${url}/moved`))).toBe(2);
      expect(remaining(await send(`${url}/bad`))).toBe(1);
      expect((await send(`${url}/throws`)).status).toBe(422);
      // 3 counted (301, 400, thrown 422): the next request is over the limit.
      expect((await send(`${url}/ok`)).status).toBe(429);
    });
  });

  it('with skipFailedRequests, does not count 4xx, 5xx, thrown errors or unmatched 404s, but counts 2xx', async () => {
    await withLimit({ maxRequests: 2, skipFailedRequests: true }, async (url) => {
      expect((await send(`${url}/bad`)).status).toBe(400);
      expect((await send(`${url}/throws`)).status).toBe(422);
      expect((await send(`${url}/crash`)).status).toBe(500);
      expect((await send(`${url}/missing`)).status).toBe(404);
      const ok = await send(`${url}/ok`);
      expect(remaining(ok)).toBe(1);
      expect(remaining(await send(`${url}/ok`))).toBe(0);
      expect((await send(`${url}/ok`)).status).toBe(429);
      // A 429 is a failed response too: being limited does not dig the hole deeper.
      expect((await send(`${url}/ok`)).status).toBe(429);
    });
  });

  it('counts every response when both skip options are off', async () => {
    await withLimit({ maxRequests: 4 }, async (url) => {
      await send(`${url}/ok`);
      await send(`${url}/bad`);
      await send(`${url}/crash`);
      expect(remaining(await send(`${url}/missing`))).toBe(0);
    });
  });

  it('neither counts nor limits requests that skip() picks', async () => {
    await withLimit({ maxRequests: 1, skip: (ctx) => ctx.path === '/ip' }, async (url) => {
      for (let i = 0; i < 3; i++) {
        const res = await send(`${url}/ip`);
        expect(res.status).toBe(200);
        expect(res.headers['x-ratelimit-limit']).toBeUndefined();
      }
      expect((await send(`${url}/ok`)).status).toBe(200);
    });
  });

  it('sends the draft-7 RateLimit and RateLimit-Policy headers with standardHeaders: true', async () => {
    await withLimit({ maxRequests: 5, windowMs: 30_000, standardHeaders: true }, async (url) => {
      const res = await send(`${url}/ok`);
      expect(res.headers.ratelimit).toMatch(/^limit=5, remaining=4, reset=(30|29)$/);
      expect(res.headers['ratelimit-policy']).toBe('5;w=30');
      expect(res.headers['x-ratelimit-limit']).toBe('5');
    });
  });

  it("sends the draft-8 headers with standardHeaders: 'draft-8'", async () => {
    await withLimit({ maxRequests: 5, windowMs: 60_000, standardHeaders: 'draft-8' }, async (url) => {
      const res = await send(`${url}/ok`);
      expect(res.headers.ratelimit).toMatch(/^"5-in-60s";r=4;t=(60|59)$/);
      expect(res.headers['ratelimit-policy']).toBe('"5-in-60s";q=5;w=60');
    });
  });

  it('keeps the rate-limit headers on error responses from the handler', async () => {
    await withLimit({ maxRequests: 10 }, async (url) => {
      const res = await send(`${url}/throws`);
      expect(res.status).toBe(422);
      expect(res.json()).toEqual({ error: true, message: 'nope', code: 422 });
      expect(res.headers['x-ratelimit-remaining']).toBe('9');
    });
  });

  it('limits one route only when given per route, with its own counters', async () => {
    const app = new Application({ onLog: () => undefined });
    app.post('/login', rateLimit({ maxRequests: 2 }), (ctx) => ctx.json({ token: 't' }));
    app.get('/open', (ctx) => ctx.json({ ok: true }));
    const url = await start(app);
    try {
      const logins = [];
      for (let i = 0; i < 3; i++) logins.push(await send(`${url}/login`, { method: 'POST' }));
      expect(logins.map((r) => r.status)).toEqual([200, 200, 429]);
      const open = await sendMany(`${url}/open`, 4);
      expect(open.every((r) => r.status === 200 && r.headers['x-ratelimit-limit'] === undefined)).toBe(true);
    } finally {
      await app.close();
    }
  });

  it('rejects invalid configuration when rateLimit() is called', () => {
    expect(() => rateLimit({ windowMs: 0 })).toThrow(/windowMs/);
    expect(() => rateLimit({ windowMs: Number.NaN })).toThrow(/windowMs/);
    expect(() => rateLimit({ maxRequests: -1 })).toThrow(/maxRequests/);
    expect(() => rateLimit({ maxRequests: 2.5 })).toThrow(/maxRequests/);
    expect(() => rateLimit({ keyGenerator: 'ip' as unknown as () => string })).toThrow(/keyGenerator/);
    expect(() => rateLimit({ standardHeaders: 'draft-9' as 'draft-7' })).toThrow(/standardHeaders/);
    expect(() => rateLimit({ store: {} as RateLimitStore })).toThrow(/store must implement/);
  });

  it('fails the request when keyGenerator returns something other than a string', async () => {
    await withLimit({ keyGenerator: () => 42 as unknown as string }, async (url) => {
      const res = await send(`${url}/ok`);
      expect(res.status).toBe(500);
    });
  });
});

describe('rateLimit() behind an error middleware', () => {
  /** The spec's conventional error middleware, registered before (outside) rateLimit(). */
  function conventionalErrors(app: Application): void {
    app.use(async (ctx, next) => {
      try {
        await next();
      } catch (e) {
        const err = e as HTTPError;
        ctx.json({ error: true, message: err.message, code: err.statusCode }, err.statusCode);
      }
    });
  }

  it('keeps Retry-After and the X-RateLimit headers on the 429 the error middleware writes', async () => {
    const app = new Application({ onLog: () => undefined });
    conventionalErrors(app);
    app.use(rateLimit({ maxRequests: 1, standardHeaders: true }));
    addRoutes(app);
    const url = await start(app);
    try {
      expect((await send(`${url}/ok`)).status).toBe(200);
      const limited = await send(`${url}/ok`);
      expect(limited.status).toBe(429);
      expect(limited.json()).toEqual({ error: true, message: DEFAULT_RATE_LIMIT_MESSAGE, code: 429 });
      expect(limited.headers['x-ratelimit-limit']).toBe('1');
      expect(limited.headers['x-ratelimit-remaining']).toBe('0');
      expect(limited.headers['x-ratelimit-reset']).toMatch(ISO);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect(limited.headers.ratelimit).toMatch(/^limit=1, remaining=0, reset=\d+$/);
      expect(limited.headers['ratelimit-policy']).toBe('1;w=60');
    } finally {
      await app.close();
    }
  });

  it('sends each rate-limit header once on the 429 of the default error handler', async () => {
    await withLimit({ maxRequests: 0 }, async (url) => {
      const limited = await send(`${url}/ok`);
      expect(limited.status).toBe(429);
      expect(limited.headers['retry-after']).toMatch(/^\d+$/);
      expect(limited.headers['x-ratelimit-remaining']).toBe('0');
      expect(limited.headers['x-ratelimit-limit']).toBe('0');
    });
  });
});

describe('rateLimit() under a flood of new clients', () => {
  function context(ip: string) {
    return callContext({ protocol: 'http', method: 'GET', path: '/', ip, statusCode: 200, setHeader: () => undefined });
  }

  it('keeps a busy client limited while 100,000 fresh client addresses arrive', async () => {
    const limit = rateLimit({ maxRequests: 5 });
    const next = (): Promise<void> => Promise.resolve();
    const busy = async (): Promise<number> => limit(context('198.51.100.7'), next).then(() => 200, (err: unknown) => toStatus(err));
    for (let i = 0; i < 5; i++) expect(await busy()).toBe(200);
    const statuses = new Set<number>();
    for (let i = 0; i < 110_000; i++) {
      await limit(context(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`), next);
      if (i % 1000 === 999) statuses.add(await busy());
    }
    expect([...statuses]).toEqual([429]);
  });
});

function toStatus(err: unknown): number {
  return isHTTPError(err) ? err.statusCode : 500;
}

/** A store that fails while `down` is true. */
class FlakyStore implements RateLimitStore {
  down = true;
  private readonly counts = new Map<string, number>();
  increment(key: string, windowMs: number): Promise<RateLimitHit> {
    if (this.down) return Promise.reject(new Error('store unreachable'));
    const count = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, count);
    return Promise.resolve({ count, resetAt: Date.now() + windowMs });
  }
  decrement(): void {}
  reset(key: string): void {
    this.counts.delete(key);
  }
}

describe('rateLimit() when the store fails', () => {
  it('lets requests through without rate-limit headers and reports the failure once per outage', async () => {
    const store = new FlakyStore();
    const errors: unknown[] = [];
    await withLimit({ store, maxRequests: 5, onStoreError: (err) => errors.push(err) }, async (url) => {
      for (let i = 0; i < 3; i++) {
        const res = await send(`${url}/ok`);
        expect(res.status).toBe(200);
        expect(res.headers['x-ratelimit-limit']).toBeUndefined();
      }
      expect(errors).toHaveLength(1);
      expect((errors[0] as Error).message).toBe('store unreachable');
      store.down = false;
      expect(remaining(await send(`${url}/ok`))).toBe(4);
      store.down = true;
      await send(`${url}/ok`);
      await send(`${url}/ok`);
      // Reported again for the second outage, once.
      expect(errors).toHaveLength(2);
    });
  });

  it('logs with console.error by default', async () => {
    const error = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      await withLimit({ store: new FlakyStore() }, async (url) => {
        await send(`${url}/ok`);
        await send(`${url}/ok`);
      });
      const calls = error.mock.calls.filter((call) => String(call[0]).startsWith('rateLimit:'));
      expect(calls).toHaveLength(1);
      expect(String(calls[0]![0])).toContain('letting requests through');
    } finally {
      error.mockRestore();
    }
  });

  it('writes that report as one escaped entry with the store error, as the app logger does', async () => {
    const error = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const store = new FlakyStore();
    store.increment = () => Promise.reject(new Error('store unreachable\n[200] GET /forged'));
    try {
      await withLimit({ store }, async (url) => {
        await send(`${url}/ok`);
      });
      const calls = error.mock.calls.filter((call) => String(call[0]).startsWith('rateLimit:'));
      expect(calls).toHaveLength(1);
      expect(calls[0]).toHaveLength(1);
      expect(String(calls[0]![0])).toContain('Error: store unreachable\\n[200] GET /forged');
    } finally {
      error.mockRestore();
    }
  });

  it('answers 503 with the standard body when failClosed is set', async () => {
    await withLimit({ store: new FlakyStore(), failClosed: true, onStoreError: () => undefined }, async (url) => {
      const res = await send(`${url}/ok`);
      expect(res.status).toBe(503);
      expect(res.json()).toEqual({ error: true, message: 'Service Unavailable', code: 503 });
    });
  });
});

describe('rateLimit() on a non-HTTP context', () => {
  /** A context shaped like the gRPC package's: headers from metadata, setHeader adds metadata. */
  function grpcContext(ip: string, statusCode = 200) {
    return callContext({ path: '/shop.Orders/Create', headers: { 'x-user': 'u1' }, ip, statusCode });
  }

  it('sets its headers through setHeader and rejects with a 429 HTTPError carrying them', async () => {
    const limit = rateLimit({ maxRequests: 1 });
    const next = jest.fn(() => Promise.resolve());
    const first = grpcContext('10.0.0.1');
    await limit(first, next);
    expect(next).toHaveBeenCalledTimes(1);
    expect(first.sent['x-ratelimit-limit']).toBe('1');
    expect(first.sent['x-ratelimit-remaining']).toBe('0');
    expect(first.sent['x-ratelimit-reset']).toMatch(ISO);

    const second = grpcContext('10.0.0.1');
    const error: unknown = await limit(second, next).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(next).toHaveBeenCalledTimes(1);
    expect(isHTTPError(error)).toBe(true);
    const httpError = error as HTTPError;
    expect(httpError.statusCode).toBe(429);
    expect(httpError.message).toBe(DEFAULT_RATE_LIMIT_MESSAGE);
    expect(httpError.headers?.['Retry-After']).toMatch(/^\d+$/);
    expect(httpError.headers?.['X-RateLimit-Remaining']).toBe('0');
    // Also set on the call itself, so they reach the client whoever turns the error into a status.
    expect(second.sent['retry-after']).toBe(httpError.headers?.['Retry-After']);
    expect(second.sent['x-ratelimit-limit']).toBe('1');
    expect(second.sent['x-ratelimit-remaining']).toBe('0');
    expect(second.sent['x-ratelimit-reset']).toMatch(ISO);
  });

  it('reads the final status from ctx.statusCode after next for the skip options', async () => {
    const limit = rateLimit({ maxRequests: 1, skipFailedRequests: true });
    await limit(grpcContext('10.0.0.2', 404), () => Promise.resolve());
    await limit(grpcContext('10.0.0.2', 404), () => Promise.resolve());
    const ok = grpcContext('10.0.0.2');
    await limit(ok, () => Promise.resolve());
    expect(ok.sent['x-ratelimit-remaining']).toBe('0');
  });

  it('is typed to accept the core HTTP context too', () => {
    const app = new Application();
    const limit = rateLimit<Context>({ keyGenerator: (ctx) => ctx.req.headers.host ?? '' });
    app.use(limit);
    app.get('/', limit, rateLimit(), (ctx) => ctx.text('ok'));
    expect(app.getRoutes()[0]!.middleware).toHaveLength(2);
  });

  it('is marked per call, so a WebSocket counts each operation it carries, and keeps its route meta', () => {
    const limit = rateLimit({ maxRequests: 5 });
    expect(isPerCall(limit)).toBe(true);
    expect(metaOf(limit)).toEqual({ rateLimited: { windowMs: 60_000, maxRequests: 5 } });
  });
});
