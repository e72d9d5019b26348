// The README example, run as it is written there (with port 0 instead of 3000).
import { Application, HTTPError, withMeta, type Next, type RequestContext } from '@fw/core';
import { SignJWT } from 'jose';
import { authenticate, compress, cors, etag, idempotency, jwtVerifier, logger, rateLimit, requireRole, secureHeaders } from './index.js';

it('runs the README example', async () => {
  const lines: string[] = [];
  // --- README example starts
  const app = new Application({ trustProxy: 1 }); // behind one reverse proxy: ctx.ip comes from X-Forwarded-For
  app.use(cors({ origin: ['https://app.example.com'], credentials: true }));
  app.use(logger({ stream: (line) => lines.push(line) }));
  app.use(rateLimit({ windowMs: 60_000, maxRequests: 100 }));

  const auth = authenticate(jwtVerifier({ secret: 'change-me-to-32-random-bytes-or-more', issuer: 'https://auth.example.com' }));
  app.get('/me', auth, (ctx) => ctx.json({ id: (ctx.user as { sub: string }).sub }));
  app.delete('/users/:id', auth, requireRole('admin'), (ctx) => ctx.status(204));
  const { url } = await app.listen(0, '127.0.0.1');
  // --- README example ends

  try {
    const token = await new SignJWT({ sub: 'user-42', roles: ['admin'] })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('https://auth.example.com')
      .setExpirationTime('1m')
      .sign(new TextEncoder().encode('change-me-to-32-random-bytes-or-more'));
    const me = await fetch(`${url}/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(me.status).toBe(200);
    expect(await me.json()).toEqual({ id: 'user-42' });
    expect(me.headers.get('x-ratelimit-remaining')).toBe('99');
    expect((await fetch(`${url}/users/7`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } })).status).toBe(204);
    expect((await fetch(`${url}/me`)).status).toBe(401);
    // Every thrown error is logged with its stack (the 401 too): compare the first lines.
    expect(lines.map((line) => line.split('\n')[0]!.replace(/ - \d+ms/, ' - Nms'))).toEqual([
      '[200] GET /me - Nms',
      '[204] DELETE /users/7 - Nms',
      '[ERROR] GET /me - Nms HTTPError 401: Authentication required',
    ]);
    expect(lines[2]).toMatch(/\n\s+at authenticate /);
  } finally {
    await app.close();
  }
});

it('runs the README route meta example', async () => {
  // --- README example starts
  const partnerKeys = new Set(['k-123']);
  // An API-key check of your own, documented like authenticate + requireRole('partner').
  const partnerOnly = withMeta(
    async (ctx: RequestContext, next: Next) => {
      const key = ctx.headers['x-api-key'];
      if (typeof key !== 'string' || !partnerKeys.has(key)) throw new HTTPError(401, 'Partner key required');
      ctx.user = { sub: key, roles: ['partner'] };
      await next();
    },
    { auth: true, roles: ['partner'] },
  );

  const app = new Application();
  app.get('/partner/orders', partnerOnly, rateLimit({ maxRequests: 10 }), (ctx) => ctx.json([]));
  const meta = app.getRoutes()[0]?.meta;
  // --- README example ends

  expect(meta).toEqual({ auth: true, roles: ['partner'], rateLimited: { windowMs: 60000, maxRequests: 10 } });
  expect((await app.inject({ url: '/partner/orders', headers: { 'x-api-key': 'k-123' } })).statusCode).toBe(200);
  expect((await app.inject('/partner/orders')).statusCode).toBe(401);
});

it('runs the README etag example', async () => {
  // --- README example starts
  const catalog = [{ id: 1, title: 'Dune' }];
  const app = new Application();
  app.use(etag()); // every GET and HEAD route
  app.get('/catalog', (ctx) => ctx.json(catalog)); // ETag: W/"<hash>"; If-None-Match: W/"<hash>" → 304
  app.get('/report', etag({ weak: false }), (ctx) => ctx.text('...')); // per route (or router.use): strong; the outer etag() keeps it
  app.get('/book', (ctx) => ctx.setHeader('last-modified', 'Tue, 01 Dec 2026 10:00:00 GMT').json(catalog[0]));
  // --- README example ends

  const first = await app.inject('/catalog');
  expect(first.headers.etag).toMatch(/^W\/"[\w-]{27}"$/);
  expect((await app.inject({ url: '/catalog', headers: { 'if-none-match': String(first.headers.etag) } })).statusCode).toBe(304);
  expect((await app.inject('/report')).headers.etag).toMatch(/^"[\w-]{27}"$/);
  expect((await app.inject({ url: '/book', headers: { 'if-modified-since': 'Tue, 01 Dec 2026 10:00:00 GMT' } })).statusCode).toBe(304);
});

it('runs the README secureHeaders example', async () => {
  // --- README example starts
  const app = new Application({ trustProxy: 1 }); // behind a TLS-ending proxy: X-Forwarded-Proto is believed
  app.use(secureHeaders()); // the defaults below

  // Or with other values:
  const site = secureHeaders({
    xFrameOptions: 'SAMEORIGIN',
    contentSecurityPolicy: { defaultSrc: ["'self'"], imgSrc: ["'self'", 'data:'] },
    strictTransportSecurity: { maxAge: 63072000, preload: true },
    crossOriginResourcePolicy: false,
  });
  // --- README example ends

  app.get('/api', (ctx) => ctx.json({}));
  app.get('/site', site, (ctx) => ctx.json({}));
  const api = await app.inject({ url: '/api', headers: { 'x-forwarded-proto': 'https' } });
  expect(api.headers['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'");
  expect(api.headers['x-frame-options']).toBe('DENY');
  expect(api.headers['strict-transport-security']).toBe('max-age=15552000; includeSubDomains');
  expect((await app.inject('/api')).headers['strict-transport-security']).toBeUndefined();
  // The route's own secureHeaders() sets last: its values win; its false leaves the outer value in place.
  const own = await app.inject('/site');
  expect(own.headers['content-security-policy']).toBe("default-src 'self'; img-src 'self' data:");
  expect(own.headers['x-frame-options']).toBe('SAMEORIGIN');
  expect(own.headers['strict-transport-security']).toBe('max-age=63072000; includeSubDomains; preload');
  expect(own.headers['cross-origin-resource-policy']).toBe('same-origin');
});

it('runs the README compress example', async () => {
  // --- README compress example starts
  const app = new Application();
  app.use(compress({ threshold: 2048 }));
  app.get('/catalog', (ctx) => ctx.json({ items: [] }));
  // --- README compress example ends
  app.get('/big', (ctx) => ctx.json({ items: Array.from({ length: 300 }, (_, i) => ({ id: i })) }));
  const small = await app.inject({ url: '/catalog', headers: { 'accept-encoding': 'gzip' } });
  expect(small.headers['content-encoding']).toBeUndefined();
  expect(small.headers['vary']).toBe('Accept-Encoding');
  const big = await app.inject({ url: '/big', headers: { 'accept-encoding': 'gzip, br' } });
  expect(big.headers['content-encoding']).toBe('br');
});

it('runs the README idempotency example', async () => {
  // --- README idempotency example starts
  const app = new Application();
  const payments: Array<{ id: number; amount: number }> = [];
  app.use(idempotency()); // POST and PATCH with an Idempotency-Key header; others pass through
  app.post('/payments', (ctx) => {
    const payment = { id: payments.length + 1, amount: (ctx.body as { amount: number }).amount };
    payments.push(payment);
    ctx.json(payment, 201);
  });
  // --- README idempotency example ends
  const pay = (key: string, amount: number) =>
    app.inject({ method: 'POST', url: '/payments', body: { amount }, headers: { 'idempotency-key': key } });
  const first = await pay('k1', 5);
  expect(first.statusCode).toBe(201);
  const retry = await pay('k1', 5);
  expect(retry.statusCode).toBe(201);
  expect(retry.headers['idempotent-replayed']).toBe('true');
  expect(retry.body).toBe(first.body);
  expect(payments).toHaveLength(1);
  expect((await pay('k1', 6)).statusCode).toBe(422);
});
