import { Application } from '@fw/core';
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
});
