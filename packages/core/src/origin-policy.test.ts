import { Application } from './application.js';
import { isHTTPError } from './http-error.js';
import { originPolicyOf, withOriginPolicy, type OriginPolicy, type OriginRequest } from './origin-policy.js';
import type { PluginHost } from './plugin-host.js';

function hostOf(): { app: Application; host: PluginHost; logged: string[] } {
  const logged: string[] = [];
  const app = new Application({ onLog: (message) => logged.push(message) });
  let host: PluginHost | undefined;
  app.register({ name: 'probe', setup: (h) => (host = h) });
  return { app, host: host!, logged };
}

/** The status `checkOrigin` refuses `headers` with, or 'admitted'. */
function verdict(host: PluginHost, headers: Record<string, string>): number | 'admitted' {
  try {
    host.checkOrigin({ headers });
    return 'admitted';
  } catch (err) {
    if (isHTTPError(err)) return err.statusCode;
    throw err;
  }
}

const passThrough = (): ((ctx: unknown, next: () => Promise<void>) => Promise<void>) => (_ctx, next) => next();

describe('host.checkOrigin', () => {
  it('admits a request without Origin, and one from the origin its Host names (default ports alike)', () => {
    const { host } = hostOf();
    expect(verdict(host, { host: 'api.example', cookie: 'sid=1' })).toBe('admitted');
    expect(verdict(host, { host: 'api.example', origin: 'https://api.example', cookie: 'sid=1' })).toBe('admitted');
    expect(verdict(host, { host: 'API.example:443', origin: 'https://api.example', cookie: 'sid=1' })).toBe('admitted');
    expect(verdict(host, { host: '127.0.0.1:3000', origin: 'http://127.0.0.1:3000', cookie: 'sid=1' })).toBe('admitted');
    expect(verdict(host, { host: '127.0.0.1:3000', origin: 'http://127.0.0.1:3001', cookie: 'sid=1' })).toBe(403);
  });

  it('without an origin policy, refuses another origin carrying a cookie or authorization with 403 and admits it without', () => {
    const { host } = hostOf();
    expect(verdict(host, { host: 'api.example', origin: 'https://evil.example', cookie: 'sid=1' })).toBe(403);
    expect(verdict(host, { host: 'api.example', origin: 'https://evil.example', authorization: 'Basic dTpw' })).toBe(403);
    expect(verdict(host, { host: 'api.example', origin: 'null', cookie: 'sid=1' })).toBe(403);
    expect(verdict(host, { host: 'api.example', origin: 'https://evil.example' })).toBe('admitted');
  });

  it('asks every origin policy of the global middleware, as the middleware is now, telling each whether credentials came', () => {
    const { app, host } = hostOf();
    const asked: Array<[string, OriginRequest]> = [];
    const listed: OriginPolicy = (origin, request) => (asked.push([origin, request]), origin === 'https://app.example');
    app.use(withOriginPolicy(passThrough(), listed));
    expect(verdict(host, { host: 'api.example', origin: 'https://app.example', cookie: 'sid=1' })).toBe('admitted');
    expect(verdict(host, { host: 'api.example', origin: 'https://evil.example' })).toBe(403);
    expect(asked).toEqual([
      ['https://app.example', { credentialed: true }],
      ['https://evil.example', { credentialed: false }],
    ]);
    // A later use() is followed, and each policy must agree.
    app.use(withOriginPolicy(passThrough(), () => false));
    expect(verdict(host, { host: 'api.example', origin: 'https://app.example' })).toBe(403);
    // The server's own origin never asks them.
    asked.length = 0;
    expect(verdict(host, { host: 'api.example', origin: 'https://api.example' })).toBe('admitted');
    expect(asked).toEqual([]);
  });

  it('refuses when a policy throws, and logs it', () => {
    const { app, host, logged } = hostOf();
    app.use(
      withOriginPolicy(passThrough(), () => {
        throw new Error('policy down');
      }),
    );
    expect(verdict(host, { host: 'api.example', origin: 'https://app.example' })).toBe(403);
    expect(logged).toEqual(['An origin policy threw; the request is refused']);
  });

  it('carries the policy on the same middleware function, and rejects what is not a function', () => {
    const mw = passThrough();
    const policy: OriginPolicy = () => true;
    expect(withOriginPolicy(mw, policy)).toBe(mw);
    expect(originPolicyOf(mw)).toBe(policy);
    expect(originPolicyOf(passThrough())).toBeUndefined();
    expect(() => withOriginPolicy(mw, 'yes' as unknown as OriginPolicy)).toThrow('withOriginPolicy expects a policy function');
  });
});
