import { Application } from './application.js';
import { ContextVariables, createContextKey, type RequestContext } from './request-context.js';
import type { Middleware } from './types.js';
import { send } from '../test/http-client.js';

describe('createContextKey', () => {
  it('makes a key whose default is what get returns until the request sets a value', async () => {
    const TENANT = createContextKey<string>('tenant', { default: 'public' });
    const app = new Application();
    app.use((ctx, next) => {
      const tenant = ctx.headers['x-tenant'];
      if (typeof tenant === 'string') ctx.set(TENANT, tenant);
      return next();
    });
    app.get('/', (ctx) => ctx.json({ tenant: ctx.get(TENANT) }));
    expect((await app.inject('/')).json()).toEqual({ tenant: 'public' });
    expect((await app.inject({ url: '/', headers: { 'x-tenant': 'acme' } })).json()).toEqual({ tenant: 'acme' });
  });

  it('makes a key without a default read as undefined until set', async () => {
    const COUNT = createContextKey<number>('count');
    expect(COUNT.defaultValue).toBeUndefined();
    const app = new Application();
    app.get('/', (ctx) => {
      const before = ctx.get(COUNT);
      ctx.set(COUNT, 3);
      ctx.json({ before: before ?? null, after: ctx.get(COUNT) });
    });
    expect((await app.inject('/')).json()).toEqual({ before: null, after: 3 });
  });

  it('keeps a value set to undefined instead of falling back to the default', async () => {
    const MODE = createContextKey<string | undefined>('mode', { default: 'fast' });
    const app = new Application();
    app.get('/', (ctx) => {
      ctx.set(MODE, undefined);
      ctx.json({ mode: ctx.get(MODE) ?? 'unset' });
    });
    expect((await app.inject('/')).json()).toEqual({ mode: 'unset' });
  });

  it('keeps keys apart even when they share a name', async () => {
    const first = createContextKey<string>('same', { default: 'a' });
    const second = createContextKey<string>('same', { default: 'b' });
    const app = new Application();
    app.get('/', (ctx) => {
      ctx.set(first, 'set');
      ctx.json({ first: ctx.get(first), second: ctx.get(second) });
    });
    expect((await app.inject('/')).json()).toEqual({ first: 'set', second: 'b' });
  });

  it('isolates the values of concurrent requests from each other', async () => {
    const ID = createContextKey<string>('request id', { default: 'none' });
    const app = new Application();
    app.use(async (ctx, next) => {
      ctx.set(ID, String(ctx.headers['x-id']));
      // Let the other requests run in between, so shared storage would show.
      await new Promise((resolve) => setImmediate(resolve));
      await next();
    });
    app.get('/', (ctx) => ctx.json({ id: ctx.get(ID) }));
    app.get('/untouched', (ctx) => ctx.json({ id: ctx.get(ID) }));
    const { port } = await app.listen(0, '127.0.0.1');
    try {
      const ids = ['1', '2', '3', '4', '5', '6'];
      const answers = await Promise.all(ids.map((id) => send(port, { path: '/', headers: { 'x-id': id } })));
      expect(answers.map((res) => JSON.parse(res.text).id)).toEqual(ids);
    } finally {
      await app.close();
    }
  });

  it('refuses an empty name', () => {
    expect(() => createContextKey('')).toThrow('createContextKey needs a non-empty name');
  });
});

describe('ContextVariables', () => {
  it('keeps every key apart, however many a request sets, each with its last value and the others at their defaults', () => {
    const keys = Array.from({ length: 6 }, (_, i) => createContextKey<number>(`k${i}`, { default: -i }));
    // Every order of setting: the first keys live in slots of their own, the rest in a map.
    for (const order of [[0, 1, 2, 3, 4, 5], [5, 4, 3, 2, 1, 0], [2, 0, 4, 1, 5, 3]]) {
      const variables = new ContextVariables();
      const set = new Map<number, number>();
      for (const [step, i] of order.entries()) {
        variables.set(keys[i]!, step * 10);
        set.set(i, step * 10);
        // Setting one again replaces its value and moves nothing.
        variables.set(keys[order[0]!]!, 99);
        set.set(order[0]!, 99);
        for (const [j, key] of keys.entries()) expect(variables.get(key)).toBe(set.has(j) ? set.get(j) : -j);
      }
    }
  });

  it('keeps a value set to undefined in a slot and in the map', () => {
    const keys = Array.from({ length: 3 }, (_, i) => createContextKey<number | undefined>(`u${i}`, { default: 7 }));
    const variables = new ContextVariables();
    for (const key of keys) variables.set(key, undefined);
    for (const key of keys) expect(variables.get(key)).toBeUndefined();
  });
});

describe('RequestContext middleware', () => {
  it('runs protocol-neutral middleware with app.use and in routes', async () => {
    const seen: string[] = [];
    const neutral: Middleware<RequestContext> = async (ctx, next) => {
      seen.push(`${ctx.protocol} ${ctx.method} ${ctx.path}`);
      ctx.setHeader('x-neutral', 'yes');
      await next();
      seen.push(`status ${ctx.statusCode}`);
    };
    const app = new Application();
    app.use(neutral);
    app.get('/a', neutral, (ctx) => ctx.text('a'));
    const res = await app.inject('/a');
    expect(res.headers['x-neutral']).toBe('yes');
    expect(seen).toEqual(['http GET /a', 'http GET /a', 'status 200', 'status 200']);
  });
});

describe('the operation keys', () => {
  it('are undefined until a package names the operation, and then read back', async () => {
    const { Application, OPERATION_NAME, OPERATION_TYPE } = await import('./index.js');
    const app = new Application();
    app.use(async (ctx, next) => {
      expect(ctx.get(OPERATION_NAME)).toBeUndefined();
      ctx.set(OPERATION_NAME, 'getBook');
      ctx.set(OPERATION_TYPE, 'query');
      await next();
    });
    app.get('/', (ctx) => ctx.json({ name: ctx.get(OPERATION_NAME), type: ctx.get(OPERATION_TYPE) }));
    const res = await app.inject('/');
    expect(JSON.parse(res.body)).toEqual({ name: 'getBook', type: 'query' });
  });
});

describe('isHttpContext()', () => {
  it('tells the HTTP context from another protocol context', async () => {
    const { Application, isHttpContext } = await import('./index.js');
    const app = new Application();
    let seen: boolean | undefined;
    app.use(async (ctx, next) => {
      seen = isHttpContext(ctx);
      await next();
    });
    await app.inject('/');
    expect(seen).toBe(true);
    const variables = new ContextVariables();
    const grpcLike: RequestContext = {
      protocol: 'grpc', method: 'POST', path: '/a.B/C', headers: {}, ip: '', state: {}, statusCode: 200, signal: new AbortController().signal,
      setHeader: () => undefined,
      get: (key) => variables.get(key),
      set: (key, value) => variables.set(key, value),
    };
    expect(isHttpContext(grpcLike)).toBe(false);
  });
});
