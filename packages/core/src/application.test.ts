import { hostOf } from '../test/host.js';
import { Application, type ApplicationConfig, type Plugin } from './application.js';
import type { Context } from './context.js';
import { HTTPError } from './http-error.js';
import type { AnyMiddleware } from './types.js';
import { MULTIPART_DEFAULTS } from './multipart.js';

/** An application whose logged errors are collected instead of printed. */
function createApp(config: ApplicationConfig = {}): { app: Application; logged: Array<{ message: string; error: unknown }> } {
  const logged: Array<{ message: string; error: unknown }> = [];
  const app = new Application({ onLog: (message, error) => logged.push({ message, error }), ...config });
  return { app, logged };
}

const INTERNAL = { error: true, message: 'Internal Server Error', code: 500 };

describe('Application-level middleware', () => {
  it('runs for unmatched requests too and sees the 404 after next', async () => {
    const { app } = createApp();
    const seen: Array<[string, number]> = [];
    app.use(async (ctx, next) => {
      await next();
      seen.push([ctx.path, ctx.statusCode]);
      ctx.setHeader('x-seen', 'yes');
    });
    app.get('/exists', (ctx) => ctx.text('ok'));
    const res = await app.inject('/nowhere');
    expect(res.statusCode).toBe(404);
    expect(res.headers['x-seen']).toBe('yes');
    expect(res.json()).toEqual({ error: true, message: 'Not Found', code: 404 });
    await app.inject('/exists');
    expect(seen).toEqual([['/nowhere', 404], ['/exists', 200]]);
  });

  it('sees 404 after next when the matched handler or a claimed path answers nothing', async () => {
    const { app } = createApp();
    const seen: number[] = [];
    app.use(async (ctx, next) => {
      await next();
      seen.push(ctx.statusCode);
    });
    app.get('/silent', () => undefined);
    hostOf(app).claimPath('/claimed', () => undefined);
    app.notFound(() => undefined);
    for (const url of ['/silent', '/claimed', '/unmatched']) {
      const res = await app.inject(url);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: true, message: 'Not Found', code: 404 });
    }
    expect(seen).toEqual([404, 404, 404]);
  });

  it('can turn a 404 into another answer after next', async () => {
    const { app } = createApp();
    app.use(async (ctx, next) => {
      await next();
      if (ctx.statusCode === 404) ctx.json({ fallback: ctx.path }, 200);
    });
    const res = await app.inject('/spa/route');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ fallback: '/spa/route' });
  });

  it('can answer any path without a route, as a CORS preflight does', async () => {
    const { app } = createApp();
    app.use(async (ctx, next) => {
      if (ctx.method === 'OPTIONS') {
        ctx.setHeader('access-control-allow-origin', '*').status(204);
        return;
      }
      await next();
    });
    const res = await app.inject({ method: 'OPTIONS', url: '/any/path/at/all' });
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
  });

  it('runs before route middleware and sees the matched route and params only after next', async () => {
    const { app } = createApp();
    const seen: unknown[] = [];
    app.use(async (ctx, next) => {
      seen.push(ctx.route, ctx.params);
      await next();
      seen.push(ctx.route?.path, ctx.params);
    });
    app.get('/items/:id', (ctx) => ctx.text('x'));
    await app.inject('/items/5');
    expect(seen).toEqual([undefined, {}, '/items/:id', { id: '5' }]);
  });
});

describe('Koa compose semantics in an application', () => {
  it("resolves each middleware's `await next()` to what the route's handler returned", async () => {
    const { app } = createApp();
    const seen: unknown[] = [];
    app.use(async (_ctx, next) => {
      seen.push(['global', (await next()) as unknown]);
    });
    app.get(
      '/value',
      async (_ctx, next) => {
        seen.push(['route', (await next()) as unknown]);
        return 'from route middleware';
      },
      async (ctx) => {
        ctx.text('ok');
        return 'from handler';
      },
    );
    expect((await app.inject('/value')).statusCode).toBe(200);
    expect(seen).toEqual([
      ['route', 'from handler'],
      ['global', 'from route middleware'],
    ]);
  });

  it('answers 500 and logs the position when middleware forgot to await next() (outside production)', async () => {
    const { app, logged } = createApp();
    app.use(function forgetful(_ctx, next) {
      void next();
    });
    app.get('/slow', async (ctx) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      ctx.text('late');
    });
    const res = await app.inject('/slow');
    expect(res.statusCode).toBe(500);
    expect(String(logged[0]?.error)).toMatch(/Middleware at position 0 \(forgetful\) resolved before downstream: it settled before the next\(\) it called/);
  });
});

describe('Not found', () => {
  it('answers 404 with { error, message, code } for an unmatched path', async () => {
    const { app } = createApp();
    app.get('/only-get', (ctx) => ctx.text('x'));
    const res = await app.inject({ method: 'GET', url: '/missing' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.json()).toEqual({ error: true, message: 'Not Found', code: 404 });
  });

  it('answers 405 with Allow for a known path and another method, even with a custom notFound', async () => {
    const { app } = createApp();
    app.get('/only-get', (ctx) => ctx.text('x'));
    app.notFound((ctx) => ctx.json({ missing: ctx.path }, 404));
    const res = await app.inject({ method: 'POST', url: '/only-get' });
    expect(res.statusCode).toBe(405);
    expect(res.headers['allow']).toBe('GET, HEAD');
    expect(res.json()).toEqual({ error: true, message: 'Method Not Allowed', code: 405 });
  });

  it('uses a custom notFound handler', async () => {
    const { app } = createApp();
    app.notFound((ctx) => ctx.json({ missing: ctx.path }, 404));
    const res = await app.inject('/gone');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ missing: '/gone' });
    expect(() => app.notFound('x' as unknown as AnyMiddleware)).toThrow('notFound expects a function');
  });

  describe('a matched route whose handler answers nothing', () => {
    const nodeEnv = process.env.NODE_ENV;
    afterEach(() => {
      if (nodeEnv === undefined) delete process.env.NODE_ENV;
      else process.env.NODE_ENV = nodeEnv;
    });

    it('answers the standard 404 and warns once, naming the route, outside production', async () => {
      process.env.NODE_ENV = 'development';
      const { app, logged } = createApp();
      app.get('/books/:id', () => undefined);
      app.post('/books', async () => {
        await Promise.resolve();
      });
      const first = await app.inject('/books/b1');
      expect(first.statusCode).toBe(404);
      expect(first.json()).toEqual({ error: true, message: 'Not Found', code: 404 });
      await app.inject('/books/b2');
      await app.inject({ method: 'POST', url: '/books' });
      expect(logged.map((entry) => entry.message)).toEqual([
        expect.stringMatching(/^GET \/books\/:id matched, but its handler sent nothing, so it answered 404 Not Found: answer with ctx\.json\(\)/),
        expect.stringMatching(/^POST \/books matched, but its handler sent nothing/),
      ]);
      expect(logged.every((entry) => entry.error === undefined)).toBe(true);
    });

    it('also warns behind global middleware, but not when the middleware answers after next()', async () => {
      process.env.NODE_ENV = 'test';
      const { app, logged } = createApp();
      app.use(async (ctx, next) => {
        await next();
        if (ctx.path === '/wrapped') ctx.json({ wrapped: true });
      });
      app.get('/silent', () => undefined);
      app.get('/wrapped', () => undefined);
      expect((await app.inject('/silent')).statusCode).toBe(404);
      expect((await app.inject('/wrapped')).json()).toEqual({ wrapped: true });
      expect(logged.map((entry) => entry.message)).toEqual([expect.stringMatching(/^GET \/silent matched/)]);
    });

    it('says nothing for a path no route has, a 404 the handler chose, or in production', async () => {
      process.env.NODE_ENV = 'development';
      const { app, logged } = createApp();
      app.get('/chosen', (ctx) => ctx.json({ error: true }, 404));
      app.get('/status', (ctx) => void ctx.status(404));
      await app.inject('/nowhere');
      expect((await app.inject('/chosen')).statusCode).toBe(404);
      expect((await app.inject('/status')).statusCode).toBe(404);
      expect(logged).toEqual([]);

      process.env.NODE_ENV = 'production';
      const production = createApp();
      production.app.get('/silent', () => undefined);
      expect((await production.app.inject('/silent')).statusCode).toBe(404);
      expect(production.logged).toEqual([]);
    });
  });

  it('falls back to the default 404 when the custom handler answers nothing', async () => {
    const { app } = createApp();
    app.notFound(() => undefined);
    const res = await app.inject('/gone');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: true, message: 'Not Found', code: 404 });
  });
});

describe('Error handling', () => {
  it('answers an HTTPError with its status and the standard body', async () => {
    const { app, logged } = createApp();
    app.post('/orders', () => {
      throw new HTTPError(422, 'Invalid order', { field: 'qty' });
    });
    const res = await app.inject({ method: 'POST', url: '/orders' });
    expect(res.statusCode).toBe(422);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.json()).toEqual({ error: true, message: 'Invalid order', code: 422, details: { field: 'qty' } });
    expect(logged).toEqual([]);
  });

  it('sends the headers given to HTTPError', async () => {
    const { app } = createApp();
    app.get('/private', () => {
      throw new HTTPError(401, 'Login required', undefined, { headers: { 'WWW-Authenticate': 'Bearer realm="api"' } });
    });
    const res = await app.inject('/private');
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="api"');
  });

  it('answers a plain Error with 500 and no message or stack in the body, and logs it', async () => {
    const { app, logged } = createApp();
    const secret = new Error('password=hunter2 at db.internal');
    app.get('/boom', () => {
      throw secret;
    });
    const res = await app.inject('/boom');
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual(INTERNAL);
    expect(res.body).not.toContain('hunter2');
    expect(res.body).not.toContain('at ');
    expect(logged).toEqual([{ message: 'Error on GET /boom', error: secret }]);
  });

  it('answers thrown non-Errors and rejected promises with 500', async () => {
    const { app } = createApp();
    app.get('/string', () => {
      throw 'x';
    });
    app.get('/null', () => {
      throw null;
    });
    app.get('/undefined', () => {
      throw undefined;
    });
    app.get('/reject', () => Promise.reject(new Error('async')));
    app.get('/late', async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      throw new TypeError('late');
    });
    for (const url of ['/string', '/null', '/undefined', '/reject', '/late']) {
      const res = await app.inject(url);
      expect([url, res.statusCode]).toEqual([url, 500]);
      expect(res.json()).toEqual(INTERNAL);
    }
  });

  it('replaces a half-built response with the error body', async () => {
    const { app } = createApp();
    app.get('/half', (ctx) => {
      ctx.setHeader('x-kept', 'yes');
      ctx.text('partial', 200);
      throw new HTTPError(409, 'Conflict after all');
    });
    const res = await app.inject('/half');
    expect(res.statusCode).toBe(409);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['x-kept']).toBe('yes');
    expect(res.json()).toEqual({ error: true, message: 'Conflict after all', code: 409 });
  });

  it('lets error middleware catch what is thrown below it and answer', async () => {
    const { app } = createApp();
    app.use(async (ctx, next) => {
      try {
        await next();
      } catch (err) {
        const status = err instanceof HTTPError ? err.statusCode : 500;
        ctx.json({ error: true, message: (err as Error).message, code: status, details: { caughtBy: 'middleware' } }, status);
      }
    });
    app.get('/e', () => {
      throw new HTTPError(403, 'No');
    });
    const res = await app.inject('/e');
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ error: true, message: 'No', code: 403, details: { caughtBy: 'middleware' } });
  });

  it('answers an error thrown after `await next()` by middleware', async () => {
    const { app } = createApp();
    app.use(async (_ctx, next) => {
      await next();
      throw new HTTPError(502, 'Upstream broke');
    });
    app.get('/x', (ctx) => ctx.json({ fine: true }));
    const res = await app.inject('/x');
    expect(res.statusCode).toBe(502);
    expect(res.json()).toEqual({ error: true, message: 'Upstream broke', code: 502 });
  });

  it('answers an error thrown by global middleware for an unmatched path', async () => {
    const { app } = createApp();
    app.use(() => {
      throw new HTTPError(401, 'Who are you');
    });
    expect((await app.inject('/nowhere')).statusCode).toBe(401);
  });

  it('passes an HTTPError with the original as cause to a custom onError handler', async () => {
    const { app, logged } = createApp();
    const received: HTTPError[] = [];
    app.onError((err, ctx) => {
      received.push(err);
      ctx.json({ oops: err.message, status: err.statusCode }, err.statusCode);
    });
    const original = new Error('raw');
    app.get('/plain', () => {
      throw original;
    });
    app.get('/http', () => {
      throw new HTTPError(418, 'teapot');
    });
    const plain = await app.inject('/plain');
    expect(plain.statusCode).toBe(500);
    expect(plain.json()).toEqual({ oops: 'Internal Server Error', status: 500 });
    expect(received[0]!.cause).toBe(original);
    expect((await app.inject('/http')).json()).toEqual({ oops: 'teapot', status: 418 });
    expect(logged.map((l) => l.error)).toEqual([original]);
  });

  it('supports an async onError handler and sends the error’s headers with its answer', async () => {
    const { app } = createApp();
    app.onError(async (err, ctx) => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      ctx.text(`custom ${err.statusCode}`, err.statusCode);
    });
    app.get('/limited', () => {
      throw new HTTPError(429, 'Slow down', undefined, { headers: { 'Retry-After': '7' } });
    });
    const res = await app.inject('/limited');
    expect(res.statusCode).toBe(429);
    expect(res.headers['retry-after']).toBe('7');
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.body).toBe('custom 429');
  });

  it('falls back to the default body when onError answers nothing', async () => {
    const { app } = createApp();
    app.onError(() => undefined);
    app.get('/x', () => {
      throw new HTTPError(409, 'Taken');
    });
    const res = await app.inject('/x');
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ error: true, message: 'Taken', code: 409 });
  });

  it('answers the default 500 when onError itself throws or rejects, and keeps serving', async () => {
    for (const failing of [
      (): never => {
        throw new Error('handler bug');
      },
      async (): Promise<never> => {
        throw new Error('async handler bug');
      },
      (): never => {
        throw 'string from handler';
      },
    ]) {
      const { app, logged } = createApp();
      app.onError(failing);
      app.get('/x', () => {
        throw new HTTPError(404, 'Missing');
      });
      app.get('/ok', (ctx) => ctx.text('still up'));
      const res = await app.inject('/x');
      expect(res.statusCode).toBe(500);
      expect(res.json()).toEqual(INTERNAL);
      expect(logged.map((l) => l.message)).toEqual(['The error handler threw']);
      expect((await app.inject('/ok')).body).toBe('still up');
    }
  });

  it('rejects a non-function error handler', () => {
    const { app } = createApp();
    expect(() => app.onError(null as unknown as () => void)).toThrow('onError expects a function');
  });
});

describe('Application.inject', () => {
  it('sends method, headers and a JSON body, and returns status, headers, body and json()', async () => {
    const { app } = createApp();
    app.post('/echo', (ctx) =>
      ctx.setHeader('x-reply', 'r').json({ method: ctx.method, auth: ctx.headers['authorization'], type: ctx.headers['content-type'], body: ctx.body }, 201),
    );
    const res = await app.inject({ method: 'post', url: '/echo', headers: { Authorization: 'Bearer t' }, body: { n: 1 } });
    expect(res.statusCode).toBe(201);
    expect(res.headers['x-reply']).toBe('r');
    expect(res.json()).toEqual({ method: 'POST', auth: 'Bearer t', type: 'application/json', body: { n: 1 } });
    expect(typeof res.body).toBe('string');
    expect(res.rawBody).toEqual(Buffer.from(res.body));
  });

  it('sends a string or Buffer body as it is, with the given content type', async () => {
    const { app } = createApp();
    app.post('/raw', (ctx) => ctx.json({ body: ctx.body, length: ctx.headers['content-length'] }));
    const text = await app.inject({ method: 'POST', url: '/raw', body: 'héllo' });
    expect(text.json()).toEqual({ body: 'héllo', length: '6' });
    const form = await app.inject({ method: 'POST', url: '/raw', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: Buffer.from('a=1') });
    expect(form.json()).toEqual({ body: { a: '1' }, length: '3' });
  });

  it('accepts a URL string and defaults to GET', async () => {
    const { app } = createApp();
    app.get('/g', (ctx) => ctx.text(ctx.method));
    expect((await app.inject('/g')).body).toBe('GET');
  });

  it('uses remoteAddress as the socket address', async () => {
    const { app } = createApp();
    app.get('/ip', (ctx) => ctx.text(ctx.ip));
    expect((await app.inject({ url: '/ip', remoteAddress: '203.0.113.9' })).body).toBe('203.0.113.9');
    expect((await app.inject('/ip')).body).toBe('127.0.0.1');
  });

  it('answers HEAD for a GET route with the GET headers and no body', async () => {
    const { app } = createApp();
    app.get('/doc', (ctx) => ctx.json({ big: 'document' }));
    const get = await app.inject('/doc');
    const head = await app.inject({ method: 'HEAD', url: '/doc' });
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe('');
    expect(head.headers['content-length']).toBe(get.headers['content-length']);
    expect(head.headers['content-type']).toBe(get.headers['content-type']);
    app.get('/raw', (ctx) => ctx.res.end('raw body'));
    expect((await app.inject({ method: 'HEAD', url: '/raw' })).body).toBe('');
    const missing = await app.inject({ method: 'HEAD', url: '/missing' });
    expect(missing.statusCode).toBe(404);
    expect(missing.body).toBe('');
  });

  it('answers 414 for a URL longer than maxUrlLength', async () => {
    const { app } = createApp({ maxUrlLength: 32 });
    app.get('/x', (ctx) => ctx.text('x'));
    expect((await app.inject(`/x?${'a'.repeat(29)}`)).statusCode).toBe(200);
    const res = await app.inject(`/x?${'a'.repeat(30)}`);
    expect(res.statusCode).toBe(414);
    expect(res.json()).toEqual({ error: true, message: 'Request URL is longer than 32 characters', code: 414 });
  });
});

describe('Protocol plugin hooks', () => {
  it('registers a plugin once, passing it the plugin host, and finds it by name', () => {
    const { app } = createApp();
    const setup = jest.fn();
    const plugin: Plugin = { name: 'demo', setup };
    app.register(plugin);
    expect(setup).toHaveBeenCalledTimes(1);
    const host = setup.mock.calls[0][0] as Record<string, unknown>;
    expect(host).not.toBe(app);
    expect(typeof host['claimPath']).toBe('function');
    expect(app.getPlugin('demo')).toBe(plugin);
    expect(app.getPlugin('other')).toBeUndefined();
    expect(() => app.register({ name: 'demo', setup })).toThrow('A plugin named "demo" is already registered');
  });

  it('answers a claimed path with its handler after global middleware, bypassing routes', async () => {
    const { app } = createApp();
    const order: string[] = [];
    app.use(async (ctx, next) => {
      order.push(`global:${ctx.protocol}`);
      await next();
    });
    app.post('/graphql', (ctx) => ctx.text('route'));
    hostOf(app).claimPath('/graphql', (ctx) => ctx.json({ claimed: ctx.protocol, body: ctx.body ?? null }), { protocol: 'graphql' });
    const res = await app.inject({ method: 'POST', url: '/graphql?x=1', body: { query: '{a}' } });
    expect(res.json()).toEqual({ claimed: 'graphql', body: null });
    expect(order).toEqual(['global:graphql']);
    expect(() => hostOf(app).claimPath('/graphql', () => undefined)).toThrow('Path "/graphql" is already claimed');
    const other = await app.inject('/elsewhere');
    expect(other.statusCode).toBe(404);
    expect(order).toEqual(['global:graphql', 'global:http']);
  });

  it('runs wrappers outside all global middleware, in registration order', async () => {
    const { app } = createApp();
    const order: string[] = [];
    const around = (name: string): AnyMiddleware => async (_ctx, next) => {
      order.push(`${name}>`);
      await next();
      order.push(`<${name}`);
    };
    app.use(around('global'));
    hostOf(app).wrap(around('wrap1'));
    hostOf(app).wrap(around('wrap2'));
    app.get('/x', (ctx) => ctx.text('x'));
    await app.inject('/x');
    expect(order).toEqual(['wrap1>', 'wrap2>', 'global>', '<global', '<wrap2', '<wrap1']);
    expect(hostOf(app).wrappers()).toHaveLength(2);
    expect(hostOf(app).middleware()).toHaveLength(1);
  });

  it('exposes the context settings it was configured with', () => {
    const { app } = createApp({ bodyLimit: 10, maxQueryKeys: 5, maxJsonDepth: 8, trustProxy: 1 });
    expect(hostOf(app).contextSettings).toEqual({ bodyLimit: 10, maxKeys: 5, maxJsonDepth: 8, trustProxy: 1, multipart: MULTIPART_DEFAULTS, decompressBody: true });
    expect(hostOf(createApp().app).contextSettings.maxJsonDepth).toBe(64);
  });
});

describe('Application configuration', () => {
  it('rejects limits that are not positive numbers', () => {
    expect(() => new Application({ bodyLimit: 0 })).toThrow('bodyLimit must be a positive number, got 0');
    expect(() => new Application({ maxUrlLength: -1 })).toThrow('maxUrlLength');
    expect(() => new Application({ timeouts: { headers: Number.NaN } })).toThrow('timeouts.headers');
    expect(() => new Application({ closeTimeout: '5' as unknown as number })).toThrow('closeTimeout');
  });

  it('rejects a maxJsonDepth that is not a positive integer', () => {
    for (const maxJsonDepth of [0, -3, 2.5, Number.NaN]) {
      expect(() => new Application({ maxJsonDepth })).toThrow(`maxJsonDepth must be a positive integer, got ${String(maxJsonDepth)}`);
    }
  });

  it('answers 503 with Connection: close to requests that arrive while closing', async () => {
    const { app } = createApp();
    app.get('/x', (ctx) => ctx.text('x'));
    let release!: () => void;
    hostOf(app).onClose(() => new Promise<void>((resolve) => (release = resolve)));
    const closing = app.close();
    const res = await app.inject('/x');
    expect(res.statusCode).toBe(503);
    expect(res.headers['connection']).toBe('close');
    expect(res.json()).toEqual({ error: true, message: 'Server is shutting down', code: 503 });
    release();
    await closing;
  });

  it('runs onClose hooks then onClosed hooks, logs a failing hook and still resolves', async () => {
    const { app, logged } = createApp();
    const order: string[] = [];
    const failure = new Error('flush failed');
    hostOf(app).onClose(() => {
      order.push('close');
    });
    hostOf(app).onClosed(() => {
      order.push('closed');
      throw failure;
    });
    await app.close();
    expect(order).toEqual(['close', 'closed']);
    expect(logged).toEqual([{ message: 'Error while closing', error: failure }]);
  });
});

describe('Context with the application', () => {
  it('passes the same context object through wrappers, middleware and handler', async () => {
    const { app } = createApp();
    const seen = new Set<Context>();
    hostOf(app).wrap(async (ctx: Context, next: () => Promise<void>) => {
      seen.add(ctx);
      await next();
    });
    app.use(async (ctx, next) => {
      seen.add(ctx);
      await next();
    });
    app.get('/x', (ctx) => {
      seen.add(ctx);
      ctx.text('x');
    });
    await app.inject('/x');
    expect(seen.size).toBe(1);
  });
});
