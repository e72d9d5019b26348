import { Application, type ApplicationConfig } from './application.js';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { Context } from './context.js';
import { HTTPError } from './http-error.js';
import type { PluginHost } from './plugin-host.js';
import { withMeta } from './route-meta.js';
import { MULTIPART_DEFAULTS } from './multipart.js';
import { send } from '../test/http-client.js';

/** Registers a plugin that hands its host out, with the app's log collected. */
function hostOf(config: ApplicationConfig = {}): { app: Application; host: PluginHost; logged: Array<[string, unknown]> } {
  const logged: Array<[string, unknown]> = [];
  const app = new Application({ onLog: (message, error) => logged.push([message, error]), ...config });
  let host: PluginHost | undefined;
  app.register({ name: 'probe', setup: (h) => (host = h) });
  return { app, host: host!, logged };
}

/** Collects `[path, status]` for every response the host reports. */
function record(host: PluginHost): Array<[string, number]> {
  const seen: Array<[string, number]> = [];
  host.onResponse((ctx, status) => seen.push([ctx.path, status]));
  return seen;
}

describe('the plugin host', () => {
  it('claims a path for a protocol, after the global middleware', async () => {
    const { app, host } = hostOf();
    const order: string[] = [];
    app.use((ctx, next) => (order.push(`global:${ctx.protocol}`), next()));
    host.claimPath('/rpc', (ctx) => ctx.json({ protocol: ctx.protocol }), { protocol: 'custom' });
    expect((await app.inject('/rpc')).json()).toEqual({ protocol: 'custom' });
    expect(order).toEqual(['global:custom']);
    expect(() => host.claimPath('/rpc', () => undefined)).toThrow('Path "/rpc" is already claimed');
  });

  it("runs a claimed path's guard around the global middleware, for that path only", async () => {
    const { app, host } = hostOf();
    const order: string[] = [];
    host.wrap((ctx: Context, next: () => Promise<void>) => (order.push(`wrapper:${ctx.path}`), next()));
    app.use((ctx, next) => {
      order.push(`global:${ctx.path}`);
      if (ctx.headers['x-refuse'] !== undefined) throw new HTTPError(429, 'Slow down');
      return next();
    });
    const guard = async (ctx: Context, next: () => Promise<void>): Promise<void> => {
      order.push(`guard:${ctx.protocol}`);
      try {
        await next();
      } catch (err) {
        ctx.json({ guarded: (err as Error).message }, 429);
      }
    };
    host.claimPath('/rpc', (ctx) => ctx.json({ ok: true }), { protocol: 'custom', guard });
    app.get('/rest', (ctx) => ctx.json({ ok: true }));
    const refused = await app.inject({ url: '/rpc', headers: { 'x-refuse': '1' } });
    expect([refused.statusCode, refused.json()]).toEqual([429, { guarded: 'Slow down' }]);
    expect(order).toEqual(['wrapper:/rpc', 'guard:custom', 'global:/rpc']);
    order.length = 0;
    const rest = await app.inject({ url: '/rest', headers: { 'x-refuse': '1' } });
    expect(rest.statusCode).toBe(429);
    expect(rest.json()).toMatchObject({ error: true, message: 'Slow down' });
    expect(order).toEqual(['wrapper:/rest', 'global:/rest']);
    expect(host.wrappers()).toHaveLength(1);
    expect(() => host.claimPath('/other', () => undefined, { guard: 'x' as unknown as () => void })).toThrow('claimPath expects its guard to be a middleware function');
  });

  it('reads the global middleware as it is at each call, and the wrappers in order', () => {
    const { app, host } = hostOf();
    const first = (): void => undefined;
    const second = (): void => undefined;
    app.use(first);
    expect(host.middleware()).toEqual([first]);
    app.use(second);
    expect(host.middleware()).toEqual([first, second]);
    const outer = (): void => undefined;
    host.wrap(outer);
    expect(host.wrappers()).toEqual([outer]);
    expect(host.middleware()).toEqual([first, second]);
  });

  it('lists the compiled routes, with the meta of global middleware', () => {
    const { app, host } = hostOf();
    app.use(withMeta((_ctx, next) => next(), { tags: ['all'] }));
    app.get('/books', (ctx) => ctx.json([]));
    const routes = host.routes();
    expect(routes.map((r) => [r.method, r.path, r.meta])).toEqual([['GET', '/books', { tags: ['all'] }]]);
    expect(host.routes()[0]).toBe(routes[0]);
  });

  it('logs through the app logger, escaped', () => {
    const { host, logged } = hostOf();
    const failure = new Error('boom');
    host.log('bad path /a\nb', failure);
    expect(logged).toEqual([['bad path /a\\nb', failure]]);
  });

  it('gives the context settings the app was configured with', () => {
    const { host } = hostOf({ bodyLimit: 10, trustProxy: 2 });
    expect(host.contextSettings).toEqual({ bodyLimit: 10, maxKeys: 1000, maxJsonDepth: 64, trustProxy: 2, multipart: MULTIPART_DEFAULTS, decompressBody: true });
  });

  it('runs listen, close and closed hooks around the server life', async () => {
    const { app, host } = hostOf();
    const order: string[] = [];
    host.onListen((info) => void order.push(`listen ${typeof info.port}`));
    host.onClose(() => void order.push('close'));
    host.onClosed(() => void order.push('closed'));
    await app.listen(0, '127.0.0.1');
    await app.close();
    expect(order).toEqual(['listen number', 'close', 'closed']);
  });

  it('refuses hooks that are not functions', () => {
    const { host } = hostOf();
    expect(() => host.onResponse(null as unknown as () => void)).toThrow('onResponse expects a function');
    expect(() => host.wrap('x' as unknown as () => void)).toThrow('wrap expects a middleware function');
  });
});

describe('onResponse', () => {
  it('reports the status a custom onError answered, not the 500 the error would have been', async () => {
    const { app, host } = hostOf();
    const seen = record(host);
    app.get('/fail', () => {
      throw new Error('database down');
    });
    app.onError((_error, ctx) => ctx.json({ unavailable: true }, 503));
    const { port } = await app.listen(0, '127.0.0.1');
    try {
      const res = await send(port, { path: '/fail' });
      expect(res.status).toBe(503);
      expect(seen).toEqual([['/fail', 503]]);
    } finally {
      await app.close();
    }
  });

  it('reports the status of an asynchronous onError once it has answered', async () => {
    const { app, host } = hostOf();
    const seen = record(host);
    app.get('/fail', () => {
      throw new HTTPError(400, 'bad');
    });
    app.onError(async (error, ctx) => {
      await new Promise((resolve) => setImmediate(resolve));
      ctx.json({ status: error.statusCode }, 422);
    });
    expect((await app.inject('/fail')).statusCode).toBe(422);
    expect(seen).toEqual([['/fail', 422]]);
  });

  it('reports 404 for an unknown path, 405 for a known one with another method, 204 for OPTIONS', async () => {
    const { app, host } = hostOf();
    const seen = record(host);
    app.get('/books', (ctx) => ctx.json([]));
    await app.inject('/nowhere');
    await app.inject({ method: 'DELETE', url: '/books' });
    await app.inject({ method: 'OPTIONS', url: '/books' });
    await app.inject('/books');
    expect(seen).toEqual([
      ['/nowhere', 404],
      ['/books', 405],
      ['/books', 204],
      ['/books', 200],
    ]);
  });

  it('reports the status of a custom notFound and of the 414 and 503 answers', async () => {
    const { app, host } = hostOf({ maxUrlLength: 16 });
    const seen = record(host);
    app.notFound((ctx) => ctx.text('gone', 410));
    await app.inject('/missing');
    await app.inject(`/${'x'.repeat(20)}`);
    let release!: () => void;
    host.onClose(() => new Promise<void>((resolve) => (release = resolve)));
    const closing = app.close();
    await app.inject('/late');
    release();
    await closing;
    expect(seen).toEqual([
      ['/missing', 410],
      [`/${'x'.repeat(20)}`, 414],
      ['/late', 503],
    ]);
  });

  it('fires once per request even when the error handler throws, and survives a throwing hook', async () => {
    const { app, host, logged } = hostOf();
    const seen = record(host);
    host.onResponse(() => {
      throw new Error('hook failed');
    });
    app.get('/fail', () => {
      throw new Error('first');
    });
    app.onError(() => {
      throw new Error('second');
    });
    expect((await app.inject('/fail')).statusCode).toBe(500);
    expect(seen).toEqual([['/fail', 500]]);
    expect(logged.map(([message]) => message)).toEqual(['Error on GET /fail', 'The error handler threw', 'An onResponse hook threw']);
  });

  it("tells the hooks of a context a plugin made itself (host.answered), a throwing hook logged and the others run", () => {
    const { host, logged } = hostOf();
    host.onResponse(() => {
      throw new Error('hook failed');
    });
    const seen = record(host);
    const req = new IncomingMessage(new Socket());
    req.url = '/socket?x=1';
    req.method = 'GET';
    const ctx = new Context(req, new ServerResponse(req), host.contextSettings);
    host.answered(ctx, 101);
    host.answered(ctx, 401);
    expect(seen).toEqual([
      ['/socket', 101],
      ['/socket', 401],
    ]);
    expect(logged.map(([message]) => message)).toEqual(['An onResponse hook threw', 'An onResponse hook threw']);
  });

  it('passes the context the chain ran with', async () => {
    const { app, host } = hostOf();
    const contexts: Context[] = [];
    host.onResponse((ctx) => contexts.push(ctx));
    let handled: Context | undefined;
    app.get('/x', (ctx) => {
      handled = ctx;
      ctx.text('x');
    });
    await app.inject('/x');
    expect(contexts).toEqual([handled]);
  });
});

describe('ctx.statusCode after the chain', () => {
  it('is the status that is sent: 404 for nobody, a custom notFound, the OPTIONS 204, a streamed status', async () => {
    const app = new Application();
    const seen: Record<string, number> = {};
    app.use(async (ctx, next) => {
      await next();
      seen[`${ctx.method} ${ctx.path}`] = ctx.statusCode;
    });
    app.get('/books', (ctx) => ctx.json([]));
    app.get('/stream', (ctx) => {
      ctx.res.statusCode = 206;
      ctx.res.write('part');
      ctx.res.end();
    });
    app.get('/silent', () => undefined);
    await app.inject('/nowhere');
    await app.inject({ method: 'OPTIONS', url: '/books' });
    await app.inject('/stream');
    await app.inject('/silent');
    app.notFound((ctx) => ctx.text('gone', 410));
    await app.inject('/gone');
    expect(seen).toEqual({ 'GET /nowhere': 404, 'OPTIONS /books': 204, 'GET /stream': 206, 'GET /silent': 404, 'GET /gone': 410 });
  });
});

describe('host.middleware() and host.wrappers()', () => {
  it('return the same frozen list until use() or wrap() changes it', async () => {
    const { Application } = await import('./index.js');
    const app = new Application();
    let host: PluginHost | undefined;
    app.register({ name: 'probe', setup: (h) => void (host = h) });
    const mw = async (_ctx: unknown, next: () => Promise<void>) => next();
    app.use(mw);
    const first = host!.middleware();
    expect(host!.middleware()).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    app.use(mw);
    expect(host!.middleware()).not.toBe(first);
    expect(host!.middleware()).toHaveLength(2);
    const wrappers = host!.wrappers();
    expect(host!.wrappers()).toBe(wrappers);
    host!.wrap(mw);
    expect(host!.wrappers()).not.toBe(wrappers);
  });
});

describe('onRequest', () => {
  it('is told of each request the chain will run, before any middleware, with the context the chain gets', async () => {
    const { app, host } = hostOf({ maxUrlLength: 16 });
    const order: string[] = [];
    const contexts: Context[] = [];
    host.onRequest((ctx) => {
      order.push(`start ${ctx.method} ${ctx.path}`);
      contexts.push(ctx);
    });
    host.wrap(async (_ctx: Context, next: () => Promise<void>) => {
      order.push('wrapper');
      await next();
    });
    let handled: Context | undefined;
    app.get('/x', (ctx) => {
      order.push('handler');
      handled = ctx;
      ctx.text('x');
    });
    await app.inject('/x');
    // Answered before the chain runs: no request to tell of.
    await app.inject(`/${'x'.repeat(20)}`);
    expect(order).toEqual(['start GET /x', 'wrapper', 'handler']);
    expect(contexts).toEqual([handled]);
  });

  it('survives a throwing hook: the request is answered and the error logged', async () => {
    const { app, host, logged } = hostOf();
    host.onRequest(() => {
      throw new Error('hook failed');
    });
    app.get('/x', (ctx) => ctx.text('x'));
    expect((await app.inject('/x')).body).toBe('x');
    expect(logged.map(([message]) => message)).toEqual(['An onRequest hook threw']);
  });

  it('refuses a hook that is not a function', () => {
    const { host } = hostOf();
    expect(() => host.onRequest('nope' as never)).toThrow('onRequest expects a function');
  });
});

describe('wrap(middleware, { http: false })', () => {
  it('wraps the calls of the other protocols (host.wrappers()) but never runs for HTTP requests', async () => {
    const { app, host } = hostOf();
    const seen: string[] = [];
    const all = async (ctx: Context, next: () => Promise<void>) => {
      seen.push(`all ${ctx.path}`);
      await next();
    };
    const calls = async (ctx: Context, next: () => Promise<void>) => {
      seen.push(`calls ${ctx.path}`);
      await next();
    };
    host.wrap(all);
    host.wrap(calls, { http: false });
    app.get('/x', (ctx) => ctx.text('x'));
    await app.inject('/x');
    expect(seen).toEqual(['all /x']);
    // What a protocol plugin composes around its calls: every wrapper, in the order they were added.
    expect(host.wrappers()).toEqual([all, calls]);
    expect(host.wrappers()).toBe(host.wrappers());
  });

  it('refuses options other than { http: boolean }', () => {
    const { host } = hostOf();
    const mw = async (_ctx: unknown, next: () => Promise<void>) => next();
    expect(() => host.wrap(mw, { http: 'no' } as never)).toThrow('wrap expects its options to be { http: boolean }');
    expect(() => host.wrap(mw, { htp: false } as never)).toThrow('wrap expects its options to be { http: boolean }');
  });
});
