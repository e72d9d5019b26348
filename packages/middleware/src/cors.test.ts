import { Application, HTTPError, type Context } from '@fw/core';
import { originPolicyOf } from '@fw/core/plugin';
import { send, start } from '../test/http.js';
import { cors } from './index.js';
import type { CorsConfig } from './index.js';

/** Starts an app with cors(config) in front of a few routes, runs `fn`, closes the app. */
async function withCors(config: CorsConfig | undefined, fn: (url: string, hits: { count: number }) => Promise<void>): Promise<void> {
  const app = new Application({ onLog: () => undefined });
  const hits = { count: 0 };
  app.use(cors(config));
  app.get('/items', (ctx) => {
    hits.count++;
    ctx.json({ ok: true });
  });
  app.post('/items', (ctx) => {
    hits.count++;
    ctx.json({ created: true }, 201);
  });
  app.options('/items', (ctx) => {
    hits.count++;
    ctx.text('options route');
  });
  app.get('/boom', () => {
    throw new HTTPError(500, 'boom');
  });
  const url = await start(app);
  try {
    await fn(url, hits);
  } finally {
    await app.close();
  }
}

const preflight = (origin: string | undefined, method = 'POST'): { method: string; headers: Record<string, string> } => ({
  method: 'OPTIONS',
  headers: { ...(origin === undefined ? {} : { origin }), 'access-control-request-method': method, 'access-control-request-headers': 'content-type' },
});

describe('cors() defaults', () => {
  it('allows any origin with "*" and no Vary, credentials or exposed headers', async () => {
    await withCors(undefined, async (url) => {
      const res = await send(`${url}/items`, { headers: { origin: 'https://a.example' } });
      expect(res.status).toBe(200);
      expect(res.json()).toEqual({ ok: true });
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.headers.vary).toBeUndefined();
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
      expect(res.headers['access-control-expose-headers']).toBeUndefined();
      // Preflight-only headers are not sent on actual responses.
      expect(res.headers['access-control-allow-methods']).toBeUndefined();
      expect(res.headers['access-control-max-age']).toBeUndefined();
    });
  });

  it('sends "*" to requests without an Origin header too', async () => {
    await withCors(undefined, async (url) => {
      const res = await send(`${url}/items`);
      expect(res.headers['access-control-allow-origin']).toBe('*');
    });
  });

  it('answers a preflight with 204, the default methods, allowed headers and max age, without reaching the route', async () => {
    await withCors(undefined, async (url, hits) => {
      const res = await send(`${url}/items`, preflight('https://a.example'));
      expect(res.status).toBe(204);
      expect(res.body).toBe('');
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.headers['access-control-allow-methods']).toBe('GET, POST, PUT, PATCH, DELETE, OPTIONS');
      expect(res.headers['access-control-allow-headers']).toBe('Content-Type, Authorization');
      expect(res.headers['access-control-max-age']).toBe('86400');
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
      expect(hits.count).toBe(0);
    });
  });

  it('answers a preflight for a path that has no route at all', async () => {
    await withCors(undefined, async (url) => {
      const res = await send(`${url}/nowhere`, preflight('https://a.example', 'DELETE'));
      expect(res.status).toBe(204);
      expect(res.headers['access-control-allow-methods']).toContain('DELETE');
    });
  });

  it('passes an OPTIONS request without Access-Control-Request-Method on to the route', async () => {
    await withCors(undefined, async (url, hits) => {
      const res = await send(`${url}/items`, { method: 'OPTIONS', headers: { origin: 'https://a.example' } });
      expect(res.status).toBe(200);
      expect(res.body).toBe('options route');
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(hits.count).toBe(1);
    });
  });

  it('keeps the CORS headers on error responses and on the 404', async () => {
    await withCors(undefined, async (url) => {
      const boom = await send(`${url}/boom`, { headers: { origin: 'https://a.example' } });
      expect(boom.status).toBe(500);
      expect(boom.json()).toEqual({ error: true, message: 'boom', code: 500 });
      expect(boom.headers['access-control-allow-origin']).toBe('*');
      const missing = await send(`${url}/missing`, { headers: { origin: 'https://a.example' } });
      expect(missing.status).toBe(404);
      expect(missing.headers['access-control-allow-origin']).toBe('*');
    });
  });
});

describe('cors() origin', () => {
  it('sends a fixed origin string as it is, with Vary: Origin', async () => {
    await withCors({ origin: 'https://app.example' }, async (url) => {
      const res = await send(`${url}/items`, { headers: { origin: 'https://app.example' } });
      expect(res.headers['access-control-allow-origin']).toBe('https://app.example');
      expect(res.headers.vary).toBe('Origin');
    });
  });

  it('echoes an origin from the list and adds Vary: Origin', async () => {
    await withCors({ origin: ['https://a.example', 'https://b.example'] }, async (url) => {
      const res = await send(`${url}/items`, { headers: { origin: 'https://b.example' } });
      expect(res.headers['access-control-allow-origin']).toBe('https://b.example');
      expect(res.headers.vary).toBe('Origin');
    });
  });

  it('sends no Allow-Origin for an origin not in the list, but still Vary: Origin, and the route still runs', async () => {
    await withCors({ origin: ['https://a.example'] }, async (url, hits) => {
      const res = await send(`${url}/items`, { headers: { origin: 'https://evil.example' } });
      expect(res.status).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
      expect(res.headers.vary).toBe('Origin');
      expect(hits.count).toBe(1);
    });
  });

  it('answers a preflight from a disallowed origin with 204 and no CORS grants', async () => {
    await withCors({ origin: ['https://a.example'] }, async (url, hits) => {
      const res = await send(`${url}/items`, preflight('https://evil.example'));
      expect(res.status).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
      expect(res.headers['access-control-allow-methods']).toBeUndefined();
      expect(res.headers.vary).toBe('Origin');
      expect(hits.count).toBe(0);
    });
  });

  it('asks a predicate and echoes the origins it accepts', async () => {
    const seen: string[] = [];
    const origin = (o: string): boolean => {
      seen.push(o);
      return o.endsWith('.trusted.example');
    };
    await withCors({ origin }, async (url) => {
      const ok = await send(`${url}/items`, { headers: { origin: 'https://x.trusted.example' } });
      expect(ok.headers['access-control-allow-origin']).toBe('https://x.trusted.example');
      expect(ok.headers.vary).toBe('Origin');
      const no = await send(`${url}/items`, { headers: { origin: 'https://x.other.example' } });
      expect(no.headers['access-control-allow-origin']).toBeUndefined();
      const pre = await send(`${url}/items`, preflight('https://y.trusted.example', 'PUT'));
      expect(pre.status).toBe(204);
      expect(pre.headers['access-control-allow-origin']).toBe('https://y.trusted.example');
    });
    expect(seen).toEqual(['https://x.trusted.example', 'https://x.other.example', 'https://y.trusted.example']);
  });

  it('sends no Allow-Origin with a list when the request has no Origin header', async () => {
    await withCors({ origin: ['https://a.example'] }, async (url) => {
      const res = await send(`${url}/items`);
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
      expect(res.headers.vary).toBe('Origin');
    });
  });

  it('adds Origin to a Vary header set earlier instead of replacing it', async () => {
    const app = new Application();
    app.use((ctx: Context, next) => {
      ctx.setHeader('vary', 'Accept-Encoding');
      return next();
    });
    app.use(cors({ origin: ['https://a.example'] }));
    app.get('/x', (ctx) => ctx.text('x'));
    const url = await start(app);
    try {
      const res = await send(`${url}/x`, { headers: { origin: 'https://a.example' } });
      expect(res.headers.vary).toBe('Accept-Encoding, Origin');
    } finally {
      await app.close();
    }
  });
});

describe('cors() other fields', () => {
  it('announces custom methods, allowed headers and max age on preflight', async () => {
    const config: CorsConfig = { methods: ['GET', 'DELETE'], allowedHeaders: ['X-Api-Key', 'Content-Type'], maxAge: 600 };
    await withCors(config, async (url) => {
      const res = await send(`${url}/items`, preflight('https://a.example', 'DELETE'));
      expect(res.status).toBe(204);
      expect(res.headers['access-control-allow-methods']).toBe('GET, DELETE');
      expect(res.headers['access-control-allow-headers']).toBe('X-Api-Key, Content-Type');
      expect(res.headers['access-control-max-age']).toBe('600');
    });
  });

  it('sends a max age of 0 when asked to (no preflight caching)', async () => {
    await withCors({ maxAge: 0 }, async (url) => {
      const res = await send(`${url}/items`, preflight('https://a.example'));
      expect(res.headers['access-control-max-age']).toBe('0');
    });
  });

  it('lists exposed headers on actual responses but not on preflight', async () => {
    await withCors({ exposedHeaders: ['X-Request-Id', 'X-RateLimit-Remaining'] }, async (url) => {
      const res = await send(`${url}/items`, { headers: { origin: 'https://a.example' } });
      expect(res.headers['access-control-expose-headers']).toBe('X-Request-Id, X-RateLimit-Remaining');
      const pre = await send(`${url}/items`, preflight('https://a.example'));
      expect(pre.headers['access-control-expose-headers']).toBeUndefined();
    });
  });

  it('sends Allow-Credentials on actual and preflight responses with an explicit origin', async () => {
    await withCors({ origin: ['https://a.example'], credentials: true }, async (url) => {
      const res = await send(`${url}/items`, { method: 'POST', headers: { origin: 'https://a.example' } });
      expect(res.status).toBe(201);
      expect(res.headers['access-control-allow-origin']).toBe('https://a.example');
      expect(res.headers['access-control-allow-credentials']).toBe('true');
      const pre = await send(`${url}/items`, preflight('https://a.example'));
      expect(pre.headers['access-control-allow-credentials']).toBe('true');
      const other = await send(`${url}/items`, { headers: { origin: 'https://evil.example' } });
      expect(other.headers['access-control-allow-credentials']).toBeUndefined();
    });
  });

  it('throws when credentials are enabled with the wildcard origin, saying to give an explicit origin', () => {
    expect(() => cors({ credentials: true })).toThrow(/credentials: true cannot be combined with origin "\*".*Give an explicit origin/);
    expect(() => cors({ origin: '*', credentials: true })).toThrow(TypeError);
  });

  it('rejects invalid configuration when cors() is called', () => {
    expect(() => cors({ origin: 'https://a.example/' })).toThrow(/must not end with "\/"/);
    expect(() => cors({ origin: [] })).toThrow(/empty/);
    expect(() => cors({ origin: 42 as unknown as string })).toThrow(/origin must be/);
    expect(() => cors({ maxAge: -1 })).toThrow(/maxAge/);
    expect(() => cors({ maxAge: 1.5 })).toThrow(/maxAge/);
    expect(() => cors({ methods: ['FETCH' as 'GET'] })).toThrow(/unknown method "FETCH"/);
    expect(() => cors({ allowedHeaders: ['bad header'] })).toThrow(/invalid header name/);
  });

  it('lets a gRPC call context through untouched', async () => {
    const setHeader = jest.fn();
    const next = jest.fn(() => Promise.resolve());
    const grpcCtx = { protocol: 'grpc', method: '/pkg.Svc/Get', path: '/pkg.Svc/Get', headers: { origin: 'https://a.example' }, setHeader };
    await cors({ origin: ['https://a.example'] })(grpcCtx as unknown as Context, next);
    expect(next).toHaveBeenCalledTimes(1);
    expect(setHeader).not.toHaveBeenCalled();
  });

  describe('origin policy for WebSocket upgrades (what host.checkOrigin asks)', () => {
    /** Whether cors(config) admits a page of `origin`, with or without its cookies. */
    const admits = (config: CorsConfig, origin: string, credentialed: boolean): boolean => originPolicyOf(cors(config))!(origin, { credentialed });

    it('admits the listed origins only, whatever form the list takes', () => {
      for (const origin of ['https://app.example', ['https://app.example', 'https://b.example'], (o: string) => o === 'https://app.example'] as const) {
        expect(admits({ origin }, 'https://app.example', false)).toBe(true);
        expect(admits({ origin }, 'https://evil.example', false)).toBe(false);
      }
    });

    it('admits a credentialed upgrade only with credentials: true, as a fetch with credentials can read only then', () => {
      expect(admits({ origin: 'https://app.example', credentials: true }, 'https://app.example', true)).toBe(true);
      expect(admits({ origin: 'https://app.example', credentials: true }, 'https://evil.example', true)).toBe(false);
      expect(admits({ origin: 'https://app.example' }, 'https://app.example', true)).toBe(false);
      // `*` cannot take credentials: any origin, without cookies.
      expect(admits({}, 'https://evil.example', false)).toBe(true);
      expect(admits({}, 'https://evil.example', true)).toBe(false);
    });
  });
});
