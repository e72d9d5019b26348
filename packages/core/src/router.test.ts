import { Application } from './application.js';
import type { Context } from './context.js';
import { MATCH } from './internal/symbols.js';
import { ROUTE_META, ROUTE_SCHEMA, Router, joinPaths } from './router.js';
import { HTTP_METHODS, type AnyMiddleware, type Middleware, type RouteContext } from './types.js';

const ok: AnyMiddleware = (ctx) => ctx.json({ ok: true });

/** A middleware that records its name in `ctx.state.trail` and passes on. */
function mark(name: string): AnyMiddleware {
  return async (ctx, next) => {
    ((ctx.state['trail'] ??= []) as string[]).push(name);
    await next();
  };
}

/** A handler that answers with the trail the middleware left. */
const trail: AnyMiddleware = (ctx) => ctx.json({ trail: ctx.state['trail'] ?? [] });

async function trailOf(app: Application, url: string, method = 'GET'): Promise<string[]> {
  const res = await app.inject({ method, url });
  expect(res.statusCode).toBe(200);
  return res.json<{ trail: string[] }>().trail;
}

describe('Router registration', () => {
  it('returns the router from every register method', () => {
    const router = new Router();
    expect(router.get('/a', ok)).toBe(router);
    expect(router.post('/a', ok)).toBe(router);
    expect(router.put('/a', ok)).toBe(router);
    expect(router.patch('/a', ok)).toBe(router);
    expect(router.delete('/a', ok)).toBe(router);
    expect(router.options('/a', ok)).toBe(router);
    expect(router.head('/a', ok)).toBe(router);
    expect(router.all('/b', ok)).toBe(router);
    expect(router.route({ method: 'GET', path: '/c', handler: ok })).toBe(router);
    expect(router.group('/g', () => undefined)).toBe(router);
    expect(router.use(mark('m'))).toBe(router);
    expect(router.use('/sub', new Router())).toBe(router);
    expect(router.getRoutes().map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /a',
      'POST /a',
      'PUT /a',
      'PATCH /a',
      'DELETE /a',
      'OPTIONS /a',
      'HEAD /a',
      ...HTTP_METHODS.map((m) => `${m} /b`),
      'GET /c',
    ]);
  });

  it('registers `all` for every HTTP method', async () => {
    const app = new Application();
    app.all('/any', (ctx) => ctx.json({ method: ctx.method }));
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
      const res = await app.inject({ method, url: '/any' });
      expect(res.json()).toEqual({ method });
    }
    const head = await app.inject({ method: 'HEAD', url: '/any' });
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe('');
  });

  it('registers a route given as a record, for one method, several, or ALL', () => {
    const router = new Router();
    const mw = mark('mw');
    router.route({ method: 'POST', path: '/one', handler: ok, middleware: [mw], meta: { description: 'One', tags: ['t'] } });
    router.route({ method: ['PUT', 'PATCH'], path: '/two', handler: ok });
    router.route({ method: 'ALL', path: '/three', handler: ok });
    const routes = router.getRoutes();
    expect(routes[0]).toEqual({ method: 'POST', path: '/one', handler: ok, middleware: [mw], meta: { description: 'One', tags: ['t'] } });
    expect(routes.slice(1, 3).map((r) => r.method)).toEqual(['PUT', 'PATCH']);
    expect(routes.filter((r) => r.path === '/three')).toHaveLength(HTTP_METHODS.length);
  });

  it('rejects an unknown method, a missing handler and a non-function handler at registration', () => {
    const router = new Router();
    expect(() => router.route({ method: 'TRACE' as 'GET', path: '/x', handler: ok })).toThrow('Unknown HTTP method "TRACE"');
    expect(() => router.get('/x')).toThrow('Route "/x" needs at least one handler');
    expect(() => router.get('/x', mark('a'), 'oops' as unknown as AnyMiddleware)).toThrow('Handler 1 of route "/x" must be a function, got string');
    expect(() => router.get('/a/:', ok)).toThrow('has a ":" segment without a name');
    expect(() => router.get('/a/:id/b/:id', ok)).toThrow('repeats the param name "id"');
    expect(router.getRoutes()).toEqual([]);
    expect(() => router.use(42 as unknown as AnyMiddleware)).toThrow('use() expects a middleware function or a Router, got number');
    expect(() => router.use('/p', {} as Router)).toThrow('use(prefix, router) needs a Router');
    expect(() => router.group('/g', undefined as unknown as (r: Router) => void)).toThrow('group(prefix, fn) needs a function');
  });

  it('refuses to mount a router inside itself, directly or through a child', () => {
    const parent = new Router();
    const child = new Router();
    parent.use('/c', child);
    expect(() => parent.use('/self', parent)).toThrow('cannot be mounted inside itself');
    expect(() => child.use('/loop', parent)).toThrow('cannot be mounted inside itself');
  });

  it('types route params from the path literal and accepts handlers typed with Context generics', () => {
    const router = new Router();
    router.get('/users/:id/posts/:postId', (ctx) => {
      const id: string = ctx.params.id;
      const postId: string = ctx.params.postId;
      ctx.json({ id, postId });
    });
    const typed: Middleware<RouteContext<'/a/:x'>> = (ctx) => ctx.text(ctx.params.x);
    router.get('/a/:x', typed);
    const createUser = (ctx: Context<{ name: string }, { dryRun?: string }>): void => ctx.json({ name: ctx.body.name });
    const plain: Middleware = (_ctx, next) => next();
    router.post('/users', plain, createUser);
    router.use(async (ctx: Context<{ name: string }>, next) => {
      ctx.state['name'] = ctx.body?.name;
      await next();
    });
    // @ts-expect-error an untyped handler sees the body as unknown
    router.put('/users', (ctx) => ctx.body.name);
    // @ts-expect-error app-level middleware sees the body as unknown
    router.use((ctx) => ctx.body.name);
    expect(router.getRoutes()).toHaveLength(4);
  });
});

describe('Router prefixes, groups and mounting', () => {
  it('prepends the RouterConfig prefix and runs the RouterConfig middleware', async () => {
    const api = new Router({ prefix: '/api', middleware: [mark('config')] });
    api.get('/users', trail);
    expect(api.getRoutes()[0]!.path).toBe('/api/users');
    const app = new Application();
    app.use(api);
    expect(await trailOf(app, '/api/users')).toEqual(['config']);
    expect((await app.inject('/users')).statusCode).toBe(404);
  });

  it('nests groups and concatenates their prefixes', () => {
    const router = new Router({ prefix: '/api' });
    router.group('/v1', (v1) => {
      v1.get('/users', ok);
      v1.group('/admin', (admin) => {
        admin.get('/stats', ok);
        admin.group('/deep/', (deep) => deep.get('/', ok));
      });
    });
    router.group('/v2', (v2) => v2.get('users', ok));
    expect(router.getRoutes().map((r) => r.path)).toEqual(['/api/v1/users', '/api/v1/admin/stats', '/api/v1/admin/deep', '/api/v2/users']);
  });

  it('applies `use` inside a group to that group’s routes only', async () => {
    const app = new Application();
    app.get('/outside-before', trail);
    app.group('/g', (g) => {
      g.get('/in', trail);
      g.use(mark('group'));
      g.group('/inner', (inner) => {
        inner.use(mark('inner'));
        inner.get('/deep', trail);
      });
    });
    app.group('/other', (o) => o.get('/x', trail));
    app.get('/outside-after', trail);
    expect(await trailOf(app, '/g/in')).toEqual(['group']);
    expect(await trailOf(app, '/g/inner/deep')).toEqual(['group', 'inner']);
    expect(await trailOf(app, '/other/x')).toEqual([]);
    expect(await trailOf(app, '/outside-before')).toEqual([]);
    expect(await trailOf(app, '/outside-after')).toEqual([]);
  });

  it('mounts a router under a prefix with `use(prefix, router)`, nested mounts included', async () => {
    const comments = new Router({ prefix: '/comments' });
    comments.get('/:commentId', (ctx) => ctx.json(ctx.params));
    const posts = new Router();
    posts.get('/', (ctx) => ctx.json({ posts: [] }));
    posts.use('/:postId', comments);
    const app = new Application();
    app.use('/api/posts', posts);
    expect(app.getRoutes().map((r) => r.path)).toEqual(['/api/posts', '/api/posts/:postId/comments/:commentId']);
    expect((await app.inject('/api/posts')).json()).toEqual({ posts: [] });
    expect((await app.inject('/api/posts/7/comments/9')).json()).toEqual({ postId: '7', commentId: '9' });
  });

  it('sees routes added to a router after it was mounted', async () => {
    const child = new Router();
    const app = new Application();
    app.use('/child', child);
    expect((await app.inject('/child/late')).statusCode).toBe(404);
    child.get('/late', ok);
    expect((await app.inject('/child/late')).statusCode).toBe(200);
  });

  it('serves the same router mounted under two prefixes', async () => {
    const shared = new Router();
    shared.get('/ping', (ctx) => ctx.text(ctx.path));
    const app = new Application();
    app.use('/v1', shared);
    app.use('/v2', shared);
    expect((await app.inject('/v1/ping')).body).toBe('/v1/ping');
    expect((await app.inject('/v2/ping')).body).toBe('/v2/ping');
  });

  it('joins prefixes and paths with exactly one slash', () => {
    expect(joinPaths('/api', '/users')).toBe('/api/users');
    expect(joinPaths('/api/', 'users')).toBe('/api/users');
    expect(joinPaths('api', '/')).toBe('/api');
    expect(joinPaths('', '')).toBe('/');
    expect(joinPaths('/', '/')).toBe('/');
    expect(joinPaths('', '/x')).toBe('/x');
  });
});

describe('Router middleware order', () => {
  it('applies a `use` registered after a route to that route', async () => {
    const router = new Router();
    router.get('/early', trail);
    router.use(mark('late'));
    const app = new Application();
    app.get('/app-early', trail);
    app.use(mark('global'));
    app.use('/r', router);
    expect(await trailOf(app, '/r/early')).toEqual(['global', 'late']);
    expect(await trailOf(app, '/app-early')).toEqual(['global']);
  });

  it('runs middleware in the order of the `use` calls: global, then outer routers, then the route’s own', async () => {
    const inner = new Router({ middleware: [mark('inner-config')] });
    inner.get('/x', mark('route-1'), mark('route-2'), trail);
    inner.use(mark('inner-use'));
    const outer = new Router();
    outer.use(mark('outer-1'));
    outer.use('/inner', inner);
    outer.use(mark('outer-2'));
    const app = new Application();
    app.use(mark('global-1'));
    app.use('/outer', outer);
    app.use(mark('global-2'));
    expect(await trailOf(app, '/outer/inner/x')).toEqual([
      'global-1',
      'global-2',
      'outer-1',
      'outer-2',
      'inner-config',
      'inner-use',
      'route-1',
      'route-2',
    ]);
  });

  it('runs work after `await next()` in reverse order, after the handler', async () => {
    const app = new Application();
    const order: string[] = [];
    const around = (name: string): AnyMiddleware => async (_ctx, next) => {
      order.push(`${name}>`);
      await next();
      order.push(`<${name}`);
    };
    app.use(around('global'));
    app.get('/x', around('route'), (ctx) => {
      order.push('handler');
      ctx.text('x');
    });
    await app.inject('/x');
    expect(order).toEqual(['global>', 'route>', 'handler', '<route', '<global']);
  });
});

describe('Router.findRoute', () => {
  const router = new Router({ prefix: '/api' });
  const getUser: AnyMiddleware = (ctx) => ctx.json(ctx.params);
  const headUser: AnyMiddleware = (ctx) => ctx.status(200);
  router.get('/users/:id', getUser);
  router.get('/files/:name', getUser);
  router.head('/heads/:id', headUser);
  router.get('/heads/:id', getUser);

  it('returns the route and its params on a match', () => {
    const found = router.findRoute('GET', '/api/users/42');
    expect(found).toBeTruthy();
    expect(found!.route).toMatchObject({ method: 'GET', path: '/api/users/:id', handler: getUser });
    expect(found!.params).toEqual({ id: '42' });
  });

  it('accepts the method in any case', () => {
    expect(router.findRoute('get', '/api/users/1')?.params).toEqual({ id: '1' });
    expect(router.findRoute('gEt', '/api/users/%31')?.params).toEqual({ id: '1' });
    expect(router.findRoute('head', '/api/users/1')?.route.handler).toBe(getUser);
    expect(router.findRoute('post', '/api/users/1')).toBeNull();
  });

  it('returns a falsy value when nothing matches', () => {
    expect(router.findRoute('GET', '/api/nothing')).toBeFalsy();
    expect(router.findRoute('POST', '/api/users/1')).toBeFalsy();
    expect(router.findRoute('GET', '/users/1')).toBeFalsy();
  });

  it('falls back to the GET route for HEAD, unless a HEAD route exists', () => {
    expect(router.findRoute('HEAD', '/api/users/1')?.route.handler).toBe(getUser);
    expect(router.findRoute('HEAD', '/api/heads/1')?.route.handler).toBe(headUser);
  });

  it('percent-decodes params', () => {
    expect(router.findRoute('GET', '/api/files/a%20b%2Fc%C3%A9')?.params).toEqual({ name: 'a b/cé' });
    expect(router.findRoute('GET', '/api/files/100%25')?.params).toEqual({ name: '100%' });
  });

  it('throws a 400 HTTPError for a param with invalid percent-encoding', () => {
    expect(() => router.findRoute('GET', '/api/files/%E0%A4%A')).toThrow(expect.objectContaining({ statusCode: 400 }));
  });

  it('decodes encoded unreserved characters before matching, static segments and params alike', () => {
    const r = new Router();
    const admin: AnyMiddleware = (ctx) => ctx.text('admin');
    const section: AnyMiddleware = (ctx) => ctx.text('section');
    r.get('/admin/users', admin);
    r.get('/:section/users', section);
    r.get('/%7Euser', admin);
    expect(r.findRoute('GET', '/%61dmin/users')?.route.handler).toBe(admin);
    expect(r.findRoute('GET', '/%61%64%6d%69%6E/%75sers')?.route.handler).toBe(admin);
    expect(r.findRoute('GET', '/~user')?.route.handler).toBe(admin);
    expect(r.findRoute('GET', '/%7euser')?.route.handler).toBe(admin);
    expect(r.getRoutes().map((route) => route.path)).toEqual(['/admin/users', '/:section/users', '/~user']);
    // Reserved characters stay encoded: one segment, decoded only as a param value.
    expect(r.findRoute('GET', '/ad%2Fmin/users')).toEqual({ route: expect.objectContaining({ handler: section }), params: { section: 'ad/min' } });
    expect(r.findRoute('GET', '/%2561dmin/users')?.params).toEqual({ section: '%61dmin' });
  });

  it('gives the caller params of its own, for static and dynamic routes alike', () => {
    const r = new Router();
    r.get('/static', ok);
    r.get('/items/:id', ok);
    const first = r.findRoute('GET', '/static')!;
    first.params['extra'] = 'mine';
    expect(r.findRoute('GET', '/static')!.params).toEqual({});
    const dynamic = r.findRoute('GET', '/items/1')!;
    dynamic.params['id'] = 'changed';
    expect(r.findRoute('GET', '/items/1')!.params).toEqual({ id: '1' });
    expect(Object.getPrototypeOf(first.params)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(dynamic.params)).toBe(Object.prototype);
  });

  it('leaves decoding unreserved escapes to findRoute and the request context: the internal match takes the path as decoded', () => {
    const r = new Router();
    const admin: AnyMiddleware = (ctx) => ctx.text('admin');
    r.get('/admin/:id', admin);
    expect(r.findRoute('GET', '/%61dmin/%31')).toEqual({ route: expect.objectContaining({ handler: admin }), params: { id: '1' } });
    // `ctx.path` is decoded already; matching it decodes only param values, once.
    expect(r[MATCH]('GET', '/%61dmin/1')).toBeNull();
    expect(r[MATCH]('GET', '/admin/%2561')?.params).toEqual({ id: '%61' });
  });
});

describe('Router.getRoutes', () => {
  it('reports method, full path, handler, own middleware, schema and meta', () => {
    const bodySchema = { kind: 'body' };
    const querySchema = { kind: 'query' };
    const paramsSchema = { kind: 'params' };
    const validateBody = Object.assign(mark('validate'), { [ROUTE_SCHEMA]: { body: bodySchema } });
    const validateQuery = Object.assign(mark('validate-query'), { [ROUTE_SCHEMA]: { query: querySchema } });
    const auth = Object.assign(mark('auth'), { [ROUTE_META]: { auth: true } });
    const router = new Router({ prefix: '/api' });
    router.use(validateQuery);
    router.post('/items/:id', auth, validateBody, ok);
    router.route({ method: 'PUT', path: '/items/:id', handler: ok, schema: { params: paramsSchema }, meta: { description: 'Replace', tags: ['items'] }, middleware: [auth] });
    router.get('/plain', ok);

    const [post, put, plain] = router.getRoutes();
    expect(post).toEqual({
      method: 'POST',
      path: '/api/items/:id',
      handler: ok,
      middleware: [auth, validateBody],
      schema: { query: querySchema, body: bodySchema },
      meta: { auth: true },
    });
    expect(put).toEqual({
      method: 'PUT',
      path: '/api/items/:id',
      handler: ok,
      middleware: [auth],
      schema: { query: querySchema, params: paramsSchema },
      meta: { auth: true, description: 'Replace', tags: ['items'] },
    });
    expect(plain).toEqual({ method: 'GET', path: '/api/plain', handler: ok, middleware: [], schema: { query: querySchema } });
  });

  it('lets the schema and meta given to route() win over the middleware’s', () => {
    const router = new Router();
    const mw = Object.assign(mark('v'), { [ROUTE_SCHEMA]: { body: 'from-mw', query: 'q' }, [ROUTE_META]: { auth: true, description: 'mw' } });
    router.route({ method: 'POST', path: '/x', handler: ok, middleware: [mw], schema: { body: 'explicit' }, meta: { description: 'explicit' } });
    const [route] = router.getRoutes();
    expect(route!.schema).toEqual({ body: 'explicit', query: 'q' });
    expect(route!.meta).toEqual({ auth: true, description: 'explicit' });
  });

  it('reports meta of application-wide middleware on every route', () => {
    const app = new Application();
    app.get('/a', ok);
    app.use(Object.assign(mark('auth'), { [ROUTE_META]: { auth: true } }));
    app.group('/g', (g) => g.get('/b', ok));
    expect(app.getRoutes().map((r) => r.meta)).toEqual([{ auth: true }, { auth: true }]);
  });

  it('returns a copy that callers cannot use to change the table', () => {
    const router = new Router();
    router.get('/a', ok);
    router.getRoutes().pop();
    expect(router.getRoutes()).toHaveLength(1);
  });
});

describe('Route matching through the application', () => {
  it('prefers /users/me over /users/:id whatever the registration order', async () => {
    for (const staticFirst of [true, false]) {
      const app = new Application();
      const me: AnyMiddleware = (ctx) => ctx.json({ me: true });
      const byId: AnyMiddleware = (ctx) => ctx.json({ id: ctx.params['id'] });
      if (staticFirst) app.get('/users/me', me).get('/users/:id', byId);
      else app.get('/users/:id', byId).get('/users/me', me);
      expect((await app.inject('/users/me')).json()).toEqual({ me: true });
      expect((await app.inject('/users/42')).json()).toEqual({ id: '42' });
    }
  });

  it('sends /a/b/c to /a/:x/c when it was registered before /a/b/:y', async () => {
    const app = new Application();
    app.get('/a/:x/c', (ctx) => ctx.json({ route: 'first', params: ctx.params }));
    app.get('/a/b/:y', (ctx) => ctx.json({ route: 'second', params: ctx.params }));
    expect((await app.inject('/a/b/c')).json()).toEqual({ route: 'first', params: { x: 'b' } });
    expect((await app.inject('/a/b/d')).json()).toEqual({ route: 'second', params: { y: 'd' } });
  });

  it('puts percent-decoded params into ctx.params', async () => {
    const app = new Application();
    app.get('/files/:name', (ctx) => ctx.json(ctx.params));
    expect((await app.inject('/files/hello%20w%C3%B6rld')).json()).toEqual({ name: 'hello wörld' });
  });

  it('answers 400 for invalid percent-encoding in the path, matched or not', async () => {
    const app = new Application();
    app.get('/files/:name', (ctx) => ctx.json(ctx.params));
    for (const url of ['/files/%E0%A4%A', '/files/%zz', '/nowhere/%']) {
      const res = await app.inject(url);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: true, message: 'Invalid percent-encoding in path', code: 400 });
    }
  });

  it('routes a path with encoded unreserved characters to the same route, its params decoded once', async () => {
    const app = new Application();
    app.get('/~user/:v', (ctx) => ctx.json({ path: ctx.path, params: ctx.params }));
    expect((await app.inject('/%7Euser/%2561%62')).json()).toEqual({ path: '/~user/%2561b', params: { v: '%61b' } });
    expect((await app.inject('/%7euser/a%2Fb')).json()).toEqual({ path: '/~user/a%2Fb', params: { v: 'a/b' } });
  });

  it('matches static routes that contain non-ASCII characters', async () => {
    const app = new Application();
    app.get('/café', (ctx) => ctx.text('coffee'));
    expect((await app.inject('/caf%C3%A9')).body).toBe('coffee');
  });

  it('ignores one trailing slash, on the route and on the request', async () => {
    const app = new Application();
    app.get('/users', (ctx) => ctx.text('list'));
    app.get('/users/:id/', (ctx) => ctx.text(`user ${ctx.params.id}`));
    expect((await app.inject('/users/')).body).toBe('list');
    expect((await app.inject('/users/7')).body).toBe('user 7');
    expect((await app.inject('/users/7/?x=1')).body).toBe('user 7');
    expect((await app.inject('/users//')).statusCode).toBe(404);
  });

  it('matches paths case-sensitively', async () => {
    const app = new Application();
    app.get('/Users', (ctx) => ctx.text('upper'));
    expect((await app.inject('/Users')).statusCode).toBe(200);
    expect((await app.inject('/users')).statusCode).toBe(404);
  });

  it('has no optional segments', async () => {
    const app = new Application();
    app.get('/posts/:id', ok);
    expect((await app.inject('/posts')).statusCode).toBe(404);
    expect((await app.inject('/posts/')).statusCode).toBe(404);
  });

  it('lets a handler replace ctx.params and add to them on a static route', async () => {
    const app = new Application();
    app.get('/static', (ctx: Context) => {
      (ctx.params as Record<string, string>)['extra'] = 'yes';
      ctx.json(ctx.params);
    });
    expect((await app.inject('/static')).json()).toEqual({ extra: 'yes' });
  });

  it('sets ctx.route to the matched record and leaves it undefined for unmatched requests', async () => {
    const app = new Application();
    const seen: Array<string | undefined> = [];
    app.use(async (ctx, next) => {
      await next();
      seen.push(ctx.route?.path);
    });
    app.get('/items/:id', ok);
    await app.inject('/items/1');
    await app.inject('/missing');
    expect(seen).toEqual(['/items/:id', undefined]);
  });
});
