import { Application, HTTPError, isHTTPError, ROUTE_META, type AnyMiddleware, type RequestContext } from '@fw/core';
import { send, start } from '../test/http.js';
import { AUTH_REQUIRED_MESSAGE, authenticate, INVALID_TOKEN_MESSAGE } from './index.js';
import type { VerifyFunction } from './index.js';
import { callContext } from '../test/contexts.js';

const USERS: Record<string, { sub: string; roles: string[] }> = {
  'token-alice': { sub: 'alice', roles: ['admin'] },
  'token-bob': { sub: 'bob', roles: ['user'] },
};

const verifier: VerifyFunction<{ sub: string; roles: string[] }> = (token) => {
  const user = USERS[token];
  if (user === undefined) throw new Error(`unknown token ${token}`);
  return user;
};

async function withAuth(middleware: AnyMiddleware, fn: (url: string, hits: { count: number }) => Promise<void>, logs: string[] = []): Promise<void> {
  const app = new Application({ onLog: (message, error) => logs.push(`${message} ${error instanceof Error ? error.message : ''}`) });
  const hits = { count: 0 };
  app.get('/me', middleware, (ctx) => {
    hits.count++;
    ctx.json({ user: ctx.user ?? null });
  });
  const url = await start(app);
  try {
    await fn(url, hits);
  } finally {
    await app.close();
  }
}

const bearer = (token: string): { headers: Record<string, string> } => ({ headers: { authorization: `Bearer ${token}` } });

describe('authenticate(verifier)', () => {
  it('sets ctx.user from the verifier for a valid bearer token', async () => {
    await withAuth(authenticate(verifier), async (url) => {
      const res = await send(`${url}/me`, bearer('token-alice'));
      expect(res.status).toBe(200);
      expect(res.json()).toEqual({ user: { sub: 'alice', roles: ['admin'] } });
    });
  });

  it('answers 401 with WWW-Authenticate: Bearer and the standard body when there is no Authorization header', async () => {
    await withAuth(authenticate(verifier), async (url, hits) => {
      const res = await send(`${url}/me`);
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer');
      expect(res.json()).toEqual({ error: true, message: 'Authentication required', code: 401 });
      expect(AUTH_REQUIRED_MESSAGE).toBe('Authentication required');
      expect(hits.count).toBe(0);
    });
  });

  it.each([
    ['another scheme', 'Basic YWxpY2U6c2VjcmV0'],
    ['the scheme alone', 'Bearer'],
    ['an empty token', 'Bearer   '],
    ['two tokens', 'Bearer token-alice token-bob'],
    ['a token with spaces inside quotes', 'Bearer "token-alice"'],
  ])('answers 401 with WWW-Authenticate: Bearer for a malformed header (%s)', async (_name, header) => {
    await withAuth(authenticate(verifier), async (url, hits) => {
      const res = await send(`${url}/me`, { headers: { authorization: header } });
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer');
      expect(res.json()).toEqual({ error: true, message: 'Authentication required', code: 401 });
      expect(hits.count).toBe(0);
    });
  });

  it('accepts the scheme in any case', async () => {
    await withAuth(authenticate(verifier), async (url) => {
      const res = await send(`${url}/me`, { headers: { authorization: 'bearer token-bob' } });
      expect(res.status).toBe(200);
      expect((res.json() as { user: { sub: string } }).user.sub).toBe('bob');
    });
  });

  it('answers 401 with error="invalid_token" when the verifier throws', async () => {
    await withAuth(authenticate(verifier), async (url, hits) => {
      const res = await send(`${url}/me`, bearer('token-mallory'));
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
      expect(res.json()).toEqual({ error: true, message: 'Invalid or expired token', code: 401 });
      expect(INVALID_TOKEN_MESSAGE).toBe('Invalid or expired token');
      expect(hits.count).toBe(0);
    });
  });

  it.each([
    ['undefined', undefined],
    ['null', null],
    ['false', false],
  ])('answers 401 with error="invalid_token" when the verifier returns %s', async (_name, value) => {
    await withAuth(authenticate(() => value), async (url) => {
      const res = await send(`${url}/me`, bearer('anything'));
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
    });
  });

  it('passes the token and the context to the verifier, and awaits an async verifier', async () => {
    const seen: Array<{ token: string; path: string; protocol: string }> = [];
    const asyncVerifier = async (token: string, ctx: RequestContext): Promise<{ sub: string }> => {
      seen.push({ token, path: ctx.path, protocol: ctx.protocol });
      await new Promise((resolve) => setTimeout(resolve, 5));
      return { sub: 'async-user' };
    };
    await withAuth(authenticate(asyncVerifier), async (url) => {
      const res = await send(`${url}/me`, bearer('abc.DEF-ghi_jkl~+/=='));
      expect(res.json()).toEqual({ user: { sub: 'async-user' } });
    });
    expect(seen).toEqual([{ token: 'abc.DEF-ghi_jkl~+/==', path: '/me', protocol: 'http' }]);
  });

  it('accepts a verification service object with verify()', async () => {
    const service = {
      calls: 0,
      verify(token: string) {
        this.calls++;
        return token === 'svc' ? { sub: 'from-service' } : undefined;
      },
    };
    await withAuth(authenticate(service), async (url) => {
      expect((await send(`${url}/me`, bearer('svc'))).json()).toEqual({ user: { sub: 'from-service' } });
      expect((await send(`${url}/me`, bearer('nope'))).status).toBe(401);
    });
    expect(service.calls).toBe(2);
  });

  it('passes an HTTPError from the verifier on unchanged', async () => {
    const unavailable = (): never => {
      throw new HTTPError(503, 'Key server down');
    };
    await withAuth(authenticate(unavailable), async (url) => {
      const res = await send(`${url}/me`, bearer('x'));
      expect(res.status).toBe(503);
      expect(res.json()).toEqual({ error: true, message: 'Key server down', code: 503 });
      expect(res.headers['www-authenticate']).toBeUndefined();
    });
  });

  it('adds its invalid_token challenge (with the realm) to a 401 HTTPError the verifier throws without one, keeping its message', async () => {
    const noExpiry = (): never => {
      throw new HTTPError(401, 'Token has no expiry');
    };
    await withAuth(authenticate({ verifier: noExpiry, realm: 'api' }), async (url) => {
      const res = await send(`${url}/me`, bearer('x'));
      expect(res.status).toBe(401);
      expect(res.json()).toEqual({ error: true, message: 'Token has no expiry', code: 401 });
      expect(res.headers['www-authenticate']).toBe('Bearer realm="api", error="invalid_token"');
    });
    const ownChallenge = (): never => {
      throw new HTTPError(401, 'Custom', undefined, { headers: { 'WWW-Authenticate': 'Bearer error="invalid_token", error_description="custom"' } });
    };
    await withAuth(authenticate(ownChallenge), async (url) => {
      expect((await send(`${url}/me`, bearer('x'))).headers['www-authenticate']).toBe('Bearer error="invalid_token", error_description="custom"');
    });
  });

  it('with optional: true, lets requests without a header through with no user, but still rejects bad tokens', async () => {
    await withAuth(authenticate({ verifier, optional: true }), async (url) => {
      const anonymous = await send(`${url}/me`);
      expect(anonymous.status).toBe(200);
      expect(anonymous.json()).toEqual({ user: null });
      expect((await send(`${url}/me`, bearer('token-bob'))).json()).toEqual({ user: USERS['token-bob'] });
      expect((await send(`${url}/me`, bearer('bad'))).status).toBe(401);
      expect((await send(`${url}/me`, { headers: { authorization: 'Basic x' } })).status).toBe(401);
    });
  });

  it('adds the realm to both challenges', async () => {
    await withAuth(authenticate({ verifier, realm: 'api' }), async (url) => {
      expect((await send(`${url}/me`)).headers['www-authenticate']).toBe('Bearer realm="api"');
      expect((await send(`${url}/me`, bearer('bad'))).headers['www-authenticate']).toBe('Bearer realm="api", error="invalid_token"');
    });
  });

  it('rejects bad arguments when called', () => {
    expect(() => authenticate(42 as unknown as VerifyFunction)).toThrow(/expects a verifier/);
    expect(() => authenticate({ verifier: 'x' as unknown as VerifyFunction })).toThrow(/verifier must be/);
    expect(() => authenticate({ verifier, realm: 'a"b' })).toThrow(/realm/);
    expect(() => authenticate({ verifier, optional: 'yes' as unknown as boolean })).toThrow(/optional/);
  });

  it('marks routes that use it with meta.auth in getRoutes()', () => {
    const app = new Application();
    app.get('/a', authenticate(verifier), (ctx) => ctx.text('a'));
    app.get('/b', authenticate, (ctx) => ctx.text('b'));
    app.get('/c', (ctx) => ctx.text('c'));
    const meta = Object.fromEntries(app.getRoutes().map((r) => [r.path, r.meta]));
    expect(meta['/a']).toEqual({ auth: true });
    expect(meta['/b']).toEqual({ auth: true });
    expect(meta['/c']).toBeUndefined();
    expect((authenticate as unknown as Record<symbol, unknown>)[ROUTE_META]).toEqual({ auth: true });
  });
});

describe('authenticate used directly as middleware', () => {
  afterEach(() => authenticate.configure(null));

  it('uses the verifier given to authenticate.configure()', async () => {
    authenticate.configure(verifier);
    await withAuth(authenticate, async (url) => {
      expect((await send(`${url}/me`, bearer('token-alice'))).json()).toEqual({ user: USERS['token-alice'] });
      const missing = await send(`${url}/me`);
      expect(missing.status).toBe(401);
      expect(missing.headers['www-authenticate']).toBe('Bearer');
      expect((await send(`${url}/me`, bearer('bad'))).headers['www-authenticate']).toBe('Bearer error="invalid_token"');
    });
  });

  it('takes options through configure() too', async () => {
    authenticate.configure({ verifier, optional: true });
    await withAuth(authenticate, async (url) => {
      expect((await send(`${url}/me`)).status).toBe(200);
    });
  });

  it('answers 500 and logs how to fix it when no verifier is configured', async () => {
    const logs: string[] = [];
    await withAuth(
      authenticate,
      async (url, hits) => {
        const res = await send(`${url}/me`, bearer('token-alice'));
        expect(res.status).toBe(500);
        expect(res.json()).toEqual({ error: true, message: 'Internal Server Error', code: 500 });
        expect(hits.count).toBe(0);
      },
      logs,
    );
    expect(logs.join('\n')).toMatch(/no verifier is configured: call authenticate\.configure\(verifier\)/);
  });

  it('protects every route when installed globally', async () => {
    authenticate.configure(verifier);
    const app = new Application({ onLog: () => undefined });
    app.use(authenticate);
    app.get('/private', (ctx) => ctx.json({ sub: (ctx.user as { sub: string }).sub }));
    const url = await start(app);
    try {
      expect((await send(`${url}/private`)).status).toBe(401);
      expect((await send(`${url}/private`, bearer('token-bob'))).json()).toEqual({ sub: 'bob' });
    } finally {
      await app.close();
    }
  });
});

describe('authenticate on a gRPC context', () => {
  const grpcContext = (metadata: Record<string, string>) => callContext({ headers: metadata });

  it('reads the authorization metadata and sets ctx.user', async () => {
    const ctx = grpcContext({ authorization: 'Bearer token-alice' });
    const next = jest.fn(() => Promise.resolve());
    await authenticate(verifier)(ctx, next);
    expect(ctx.user).toEqual(USERS['token-alice']);
    expect(next).toHaveBeenCalledTimes(1);
  });

  it('rejects with a 401 HTTPError that carries WWW-Authenticate, without writing anything', async () => {
    const setHeader = jest.fn();
    const ctx = callContext({ setHeader });
    const error: unknown = await authenticate(verifier)(ctx, () => Promise.resolve()).catch((err: unknown) => err);
    expect(isHTTPError(error)).toBe(true);
    expect((error as HTTPError).statusCode).toBe(401);
    expect((error as HTTPError).headers).toEqual({ 'WWW-Authenticate': 'Bearer' });
    expect(setHeader).not.toHaveBeenCalled();
    const invalid: unknown = await authenticate(verifier)(grpcContext({ authorization: 'Bearer nope' }), () => Promise.resolve()).catch((err: unknown) => err);
    expect((invalid as HTTPError).headers).toEqual({ 'WWW-Authenticate': 'Bearer error="invalid_token"' });
    expect((invalid as HTTPError).cause).toBeInstanceOf(Error);
  });

  it("keeps the code of a verifier's 401 when it adds the challenge", async () => {
    const expired = (): never => {
      throw new HTTPError(401, 'Session revoked', undefined, { code: 'permission_denied' });
    };
    const error: unknown = await authenticate(expired)(grpcContext({ authorization: 'Bearer x' }), () => Promise.resolve()).catch((err: unknown) => err);
    expect((error as HTTPError).code).toBe('permission_denied');
    expect((error as HTTPError).headers).toEqual({ 'WWW-Authenticate': 'Bearer error="invalid_token"' });
  });
});
