import { Application } from './application.js';
import { OPERATION_BRAND, type Operation } from './operation.js';
import { Router } from './router.js';
import type { AnyMiddleware } from './types.js';

const ok: AnyMiddleware = (ctx) => ctx.text('first');
const other: AnyMiddleware = (ctx) => ctx.text('second');

/** The error `fn` throws (failing the test when it throws nothing). */
function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a throw');
}

/** An operation with a REST binding, as `defineOperation` makes one. */
function operation(name: string, method: 'GET' | 'POST', path: string): Operation {
  return {
    [OPERATION_BRAND]: true,
    name,
    input: { kind: 'object', name: undefined, fields: [], source: {} },
    output: { kind: 'scalar', scalar: 'string' },
    rest: { method, path },
    middleware: [],
    schemas: { input: undefined, output: undefined },
    execute: () => Promise.resolve('ran'),
  };
}

const HERE = /duplicate-routes\.test\.ts:\d+:\d+/g;

describe('Registering the same method and path twice', () => {
  it('throws, naming where the first and the second registration were made', () => {
    const router = new Router();
    router.get('/users/:id', ok);
    const err = thrown(() => router.get('/users/:id', other));
    expect(err.message).toMatch(/^GET \/users\/:id is already registered \(first at .+, now at .+\)$/);
    const places = err.message.match(HERE) ?? [];
    expect(places).toHaveLength(2);
    expect(places[0]).not.toBe(places[1]);
  });

  it('treats paths that differ only in param names, or in a trailing slash, as the same route', () => {
    const router = new Router();
    router.get('/a/:id', ok);
    expect(() => router.get('/a/:name', other)).toThrow('GET /a/:name is already registered as GET /a/:id (first at');
    router.get('/b', ok);
    expect(() => router.get('/b/', other)).toThrow('is already registered');
  });

  it('lets different methods, different shapes and a static segment beside a param register', () => {
    const router = new Router();
    router.get('/a/:id', ok);
    router.post('/a/:id', ok);
    router.get('/a/:id/b', ok);
    router.get('/a/me', ok);
    router.get('/a', ok);
    // A HEAD route beside the GET one replaces the automatic HEAD answer: not a clash.
    router.head('/a/:id', ok);
    expect(router.getRoutes()).toHaveLength(6);
  });

  it('makes `all` clash with every method, whichever came first', () => {
    const router = new Router();
    router.post('/x', ok);
    expect(() => router.all('/x', other)).toThrow('POST /x is already registered');
    router.all('/y', ok);
    for (const register of [router.get, router.put, router.delete, router.options, router.head]) {
      expect(() => register.call(router, '/y', other)).toThrow('/y is already registered');
    }
    expect(() => router.route({ method: ['PATCH'], path: '/y', handler: other })).toThrow('PATCH /y is already registered');
  });

  it('keeps the first route in place after a refused registration', async () => {
    const app = new Application();
    app.get('/one', ok);
    expect(() => app.get('/one', other)).toThrow('GET /one is already registered');
    expect((await app.inject('/one')).body).toBe('first');
    expect(app.getRoutes()).toHaveLength(1);
  });

  it('refuses a route record that names the same method twice', () => {
    const router = new Router();
    expect(() => router.route({ method: ['GET', 'GET'], path: '/twice', handler: ok })).toThrow('GET /twice is already registered');
    expect(router.getRoutes()).toHaveLength(0);
  });

  it('checks each application (or unmounted router) on its own', () => {
    const a = new Router();
    const b = new Router();
    a.get('/same', ok);
    b.get('/same', ok);
    const app = new Application();
    app.get('/same', ok);
    expect(new Application().get('/same', ok).getRoutes()).toHaveLength(1);
  });
});

describe('Registering the same route through mounted routers', () => {
  it('throws from use(prefix, router) when a mounted route is already registered, and mounts nothing', () => {
    const app = new Application();
    app.get('/api/users', ok);
    const users = new Router();
    users.post('/users', ok);
    users.get('/users', other);
    expect(() => app.use('/api', users)).toThrow(/^GET \/api\/users is already registered \(first at .+, now at .+\)$/);
    expect(app.getRoutes().map((r) => `${r.method} ${r.path}`)).toEqual(['GET /api/users']);
  });

  it('throws when a route added to an already mounted router clashes with one of its new parent', () => {
    const child = new Router({ prefix: '/child' });
    const app = new Application();
    app.get('/v1/child/:id', ok);
    app.use('/v1', child);
    expect(() => child.get('/:name', other)).toThrow('GET /v1/child/:name is already registered as GET /v1/child/:id');
    expect(child.getRoutes()).toHaveLength(0);
  });

  it('checks a router mounted two levels down against the application', () => {
    const inner = new Router();
    const middle = new Router();
    middle.use('/inner', inner);
    const app = new Application();
    app.use('/outer', middle);
    app.delete('/outer/inner/item', ok);
    expect(() => inner.delete('/item', other)).toThrow('DELETE /outer/inner/item is already registered');
  });

  it('detects a clash inside group()', () => {
    const app = new Application();
    app.get('/admin/stats', ok);
    expect(() =>
      app.group('/admin', (admin) => {
        admin.get('/stats', other);
      }),
    ).toThrow('GET /admin/stats is already registered');
  });

  it('serves one router under two prefixes, and refuses it twice under the same one', () => {
    const shared = new Router();
    shared.get('/ping', ok);
    const app = new Application();
    app.use('/v1', shared);
    app.use('/v2', shared);
    expect(() => app.use('/v1', shared)).toThrow('GET /v1/ping is already registered');
    expect(() => shared.get('/ping/', other)).toThrow('GET /v1/ping/ is already registered as GET /v1/ping');
  });
});

describe('Registering an operation whose REST route is taken', () => {
  it('throws, naming the operation, and registers nothing of it', () => {
    const app = new Application();
    app.post('/books', ok);
    const seen: string[] = [];
    const err = thrown(() => app.operation(operation('createBook', 'POST', '/books')));
    expect(err.message).toMatch(/^POST \/books is already registered \(first at .+, now at .+ by operation "createBook"\)$/);
    // Registered nowhere: no plugin saw it and its name stays free.
    app.register({ name: 'probe', setup: (host) => host.onOperation((op) => seen.push(op.name)) });
    expect(seen).toEqual([]);
    expect(() => app.operation(operation('createBook', 'POST', '/books/new'))).not.toThrow();
  });

  it('throws when a route takes the path of an operation registered before it', () => {
    const app = new Application();
    app.operation(operation('getBook', 'GET', '/books/:id'));
    expect(() => app.get('/books/:bookId', ok)).toThrow(/^GET \/books\/:bookId is already registered as GET \/books\/:id by operation "getBook" \(first at/);
  });
});
