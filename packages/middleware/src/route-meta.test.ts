import { Application, Router, withMeta, type Middleware, type Next, type RequestContext } from '@fw/core';
import { metaOf } from '@fw/core/plugin';
import { authenticate } from './authenticate.js';
import { rateLimit } from './rate-limit.js';
import { requireRole } from './require-role.js';

describe('route markers for documentation', () => {
  const verifier = () => ({ sub: 'u' });

  it('marks routes behind authenticate as needing auth, and optional authentication as optional', () => {
    const app = new Application();
    app.get('/strict', authenticate(verifier), (ctx) => ctx.json(1));
    app.get('/optional', authenticate({ verifier, optional: true }), (ctx) => ctx.json(1));
    app.get('/admin', authenticate(verifier), requireRole('admin'), (ctx) => ctx.json(1));
    const meta = Object.fromEntries(app.getRoutes().map((r) => [r.path, r.meta]));
    expect(meta['/strict']).toMatchObject({ auth: true });
    expect(meta['/optional']).toEqual({ authOptional: true });
    expect(meta['/admin']).toMatchObject({ auth: true, roles: ['admin'] });
  });

  it('marks routes guarded by rateLimit with its window and limit', () => {
    const app = new Application();
    app.get('/limited', rateLimit({ windowMs: 1000, maxRequests: 5 }), (ctx) => ctx.json(1));
    app.get('/free', (ctx) => ctx.json(1));
    const [limited, free] = app.getRoutes();
    expect(limited!.meta).toEqual({ rateLimited: { windowMs: 1000, maxRequests: 5 } });
    expect(free!.meta).toBeUndefined();
  });

  it('carries meta that no route can change for the others, the roles list included', () => {
    const roles = ['admin'];
    const guard = requireRole(roles);
    roles.push('guest');
    const carried = [metaOf(guard), metaOf(authenticate(verifier)), metaOf(rateLimit()), metaOf(authenticate)];
    for (const meta of carried) expect(Object.isFrozen(meta)).toBe(true);
    expect(metaOf(guard)?.roles).toEqual(['admin']);
    expect(Object.isFrozen(metaOf(guard)?.roles)).toBe(true);
    expect(Object.isFrozen(metaOf(rateLimit())?.rateLimited)).toBe(true);
  });

  it('declares its keys on RouteMeta, so a custom guard documents itself with withMeta and wrong values do not compile', () => {
    const apiKey = withMeta(
      async (ctx: RequestContext, next: Next) => {
        if (ctx.headers['x-api-key'] === undefined) throw new Error('no key');
        await next();
      },
      { auth: true, roles: ['partner'], rateLimited: { windowMs: 1000, maxRequests: 10 } },
    );
    withMeta(async (_ctx: RequestContext, next: Next) => next(), { authOptional: true, rateLimited: true });
    // @ts-expect-error roles is a list of role names
    withMeta(async (_ctx: RequestContext, next: Next) => next(), { roles: 'admin' });
    // @ts-expect-error rateLimited is a window and a limit, or a boolean
    withMeta(async (_ctx: RequestContext, next: Next) => next(), { rateLimited: { windowMs: 1000 } });
    const app = new Application();
    app.get('/partner', apiKey, (ctx) => ctx.json(1));
    expect(app.getRoutes()[0]!.meta).toEqual({ auth: true, roles: ['partner'], rateLimited: { windowMs: 1000, maxRequests: 10 } });
  });
});

describe('protocol-neutral middleware', () => {
  const verifier = (token: string) => (token === 'admin' ? { sub: 'a', roles: ['admin'] } : token === 'user' ? { sub: 'u' } : undefined);

  it('is typed on RequestContext and accepted by app.use, routers and route arrays', async () => {
    const neutral: Array<Middleware<RequestContext>> = [authenticate(verifier), requireRole('admin'), rateLimit({ maxRequests: 10 })];
    const app = new Application({ onLog: () => undefined });
    app.use(rateLimit({ maxRequests: 100 }));
    const admin = new Router({ prefix: '/admin', middleware: [authenticate(verifier)] });
    admin.use(requireRole('admin'));
    admin.get('/panel', (ctx) => ctx.json({ ok: true }));
    app.use(admin);
    app.get('/listed', ...neutral, (ctx) => ctx.json({ ok: true }));
    const call = (url: string, token?: string) => app.inject({ url, headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });
    expect((await call('/admin/panel')).statusCode).toBe(401);
    expect((await call('/admin/panel', 'user')).statusCode).toBe(403);
    expect((await call('/admin/panel', 'admin')).statusCode).toBe(200);
    expect((await call('/listed', 'user')).statusCode).toBe(403);
    const listed = await call('/listed', 'admin');
    expect(listed.statusCode).toBe(200);
    expect(listed.headers['x-ratelimit-limit']).toBe('10');
  });
});
