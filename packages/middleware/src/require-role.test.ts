import { Application, isHTTPError, type AnyMiddleware } from '@fw/core';
import { send, start } from '../test/http.js';
import { authenticate, INSUFFICIENT_ROLE_MESSAGE, requireRole, rolesOf } from './index.js';
import { callContext } from '../test/contexts.js';

const USERS: Record<string, unknown> = {
  admin: { sub: 'a', roles: ['admin', 'user'] },
  user: { sub: 'u', roles: ['user'] },
  editor: { sub: 'e', role: 'editor' },
  scoped: { sub: 's', roles: 'read write' },
  none: { sub: 'n' },
};
const verify = (token: string): unknown => USERS[token];
const bearer = (token: string): { headers: Record<string, string> } => ({ headers: { authorization: `Bearer ${token}` } });

async function withRoutes(fn: (url: string) => Promise<void>): Promise<void> {
  const app = new Application({ onLog: () => undefined });
  const auth = authenticate(verify);
  app.get('/admin', auth, requireRole('admin'), (ctx) => ctx.json({ ok: true }));
  app.get('/staff', auth, requireRole(['editor', 'admin']), (ctx) => ctx.json({ ok: true }));
  app.get('/write', auth, requireRole('write'), (ctx) => ctx.json({ ok: true }));
  app.get('/no-auth', requireRole('admin'), (ctx) => ctx.json({ ok: true }));
  const setStateUser: AnyMiddleware = (ctx, next) => {
    ctx.state.user = { id: 7, roles: ['admin'] };
    return next();
  };
  app.get('/custom', setStateUser, requireRole('admin'), (ctx) => ctx.json({ ok: true }));
  const url = await start(app);
  try {
    await fn(url);
  } finally {
    await app.close();
  }
}

describe('requireRole()', () => {
  it('lets a user with the role through', async () => {
    await withRoutes(async (url) => {
      const res = await send(`${url}/admin`, bearer('admin'));
      expect(res.status).toBe(200);
      expect(res.json()).toEqual({ ok: true });
    });
  });

  it('answers 403 with the standard body when the user lacks the role', async () => {
    await withRoutes(async (url) => {
      const res = await send(`${url}/admin`, bearer('user'));
      expect(res.status).toBe(403);
      expect(res.json()).toEqual({ error: true, message: 'Insufficient permissions', code: 403 });
      expect(res.headers['www-authenticate']).toBe('Bearer error="insufficient_scope"');
      expect(INSUFFICIENT_ROLE_MESSAGE).toBe('Insufficient permissions');
      expect((await send(`${url}/admin`, bearer('none'))).status).toBe(403);
    });
  });

  it('answers 401 from authenticate before the role check when there is no token', async () => {
    await withRoutes(async (url) => {
      const res = await send(`${url}/admin`);
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer');
    });
  });

  it('answers 401 with WWW-Authenticate: Bearer when no user was set at all', async () => {
    await withRoutes(async (url) => {
      const res = await send(`${url}/no-auth`);
      expect(res.status).toBe(401);
      expect(res.json()).toEqual({ error: true, message: 'Authentication required', code: 401 });
      expect(res.headers['www-authenticate']).toBe('Bearer');
    });
  });

  it('accepts any one of several roles', async () => {
    await withRoutes(async (url) => {
      expect((await send(`${url}/staff`, bearer('editor'))).status).toBe(200);
      expect((await send(`${url}/staff`, bearer('admin'))).status).toBe(200);
      expect((await send(`${url}/staff`, bearer('user'))).status).toBe(403);
    });
  });

  it('reads user.role and a space-separated user.roles string', async () => {
    await withRoutes(async (url) => {
      expect((await send(`${url}/staff`, bearer('editor'))).status).toBe(200);
      expect((await send(`${url}/write`, bearer('scoped'))).status).toBe(200);
      expect((await send(`${url}/write`, bearer('admin'))).status).toBe(403);
    });
  });

  it('falls back to ctx.state.user set by custom auth middleware', async () => {
    await withRoutes(async (url) => {
      expect((await send(`${url}/custom`)).status).toBe(200);
    });
  });

  it('collects role names from roles and role', () => {
    expect(rolesOf({ roles: ['a', 'b', 3], role: 'c' })).toEqual(['a', 'b', 'c']);
    expect(rolesOf({ roles: 'a, b  c' })).toEqual(['a', 'b', 'c']);
    expect(rolesOf({ role: 'super admin' })).toEqual(['super admin']);
    expect(rolesOf({ role: ['x', 'y'] })).toEqual(['x', 'y']);
    expect(rolesOf('alice')).toEqual([]);
    expect(rolesOf(null)).toEqual([]);
  });

  it('rejects a missing or empty role when called', () => {
    expect(() => requireRole('')).toThrow(/role name/);
    expect(() => requireRole([])).toThrow(/role name/);
    expect(() => requireRole([5 as unknown as string])).toThrow(/role name/);
  });

  it('reports the roles in the route meta', () => {
    const app = new Application();
    app.get('/x', requireRole(['a', 'b']), (ctx) => ctx.text('x'));
    expect(app.getRoutes()[0]!.meta).toEqual({ auth: true, roles: ['a', 'b'] });
  });

  it('works on a gRPC context, rejecting with HTTPErrors', async () => {
    const ctx = (user: unknown) => callContext({ path: '/a.B/C', ip: '', user });
    const next = jest.fn(() => Promise.resolve());
    await requireRole('admin')(ctx({ roles: ['admin'] }), next);
    expect(next).toHaveBeenCalledTimes(1);
    const forbidden: unknown = await requireRole('admin')(ctx({ roles: [] }), next).catch((e: unknown) => e);
    expect(isHTTPError(forbidden) && forbidden.statusCode).toBe(403);
    const anonymous: unknown = await requireRole('admin')(ctx(undefined), next).catch((e: unknown) => e);
    expect(isHTTPError(anonymous) && anonymous.statusCode).toBe(401);
    expect(next).toHaveBeenCalledTimes(1);
  });
});
