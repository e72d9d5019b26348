import { Application, HTTPError } from '@fw/core';
import { rateLimit } from '@fw/middleware';
import { validate } from '@fw/validate';
import { z } from 'zod';
import { checkContract, describeRoute, openapi } from '../src/index.js';
import { ADMIN_TOKEN, Book, buildTestApp, READER_TOKEN } from './helpers.js';

const quiet = { onWarning: () => undefined };

describe('checkContract on the test app', () => {
  it('passes: every documented operation answers an example request with a documented status and a body matching its schema', async () => {
    const { app } = buildTestApp();
    const document = openapi(app, quiet);
    const report = await checkContract(app, document, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      // /api/v2/books/:id has no params schema: its example would be the string "example".
      operations: { getApiV2BooksById: { params: { id: 2 } } },
    });
    expect(report.failures).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.results.map((r) => `${r.method} ${r.url} ${r.status}`)).toEqual([
      'GET /health 200',
      'GET /books 200',
      'POST /books 201',
      'GET /books/1 200',
      'DELETE /books/1 204',
      'GET /authors/example/books/example 200',
      'GET /echo 200',
      'POST /echo 200',
      'PUT /echo 200',
      'PATCH /echo 200',
      'DELETE /echo 200',
      'GET /api/v1/books 200',
      'GET /api/v2/books/2 200',
    ]);
    expect(report.summary.split('\n')[1]).toBe('✓ GET /books → 200');
  });

  it('checks the error answers too: 400, 401, 403 and 404 bodies match the documented error components', async () => {
    const { app } = buildTestApp();
    const document = openapi(app, quiet);
    const report = await checkContract(app, document, {
      operations: {
        postBooks: { body: { title: '', price: -1 }, headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, status: 400 },
        deleteBooksById: { headers: { authorization: `Bearer ${READER_TOKEN}` }, status: 403 },
        getBooksById: { params: { id: 999 }, status: 404 },
        getBooks: { query: { limit: 1000 }, status: 400 },
        getApiV2BooksById: { skip: true },
      },
    });
    expect(report.failures).toEqual([]);
    const byId = Object.fromEntries(report.results.map((r) => [r.operationId, r]));
    expect([byId.postBooks!.status, byId.deleteBooksById!.status, byId.getBooksById!.status, byId.getBooks!.status]).toEqual([400, 403, 404, 400]);
    expect(byId.getApiV2BooksById).toMatchObject({ skipped: true, ok: true });
    const unauthenticated = await checkContract(app, document, { operations: { postBooks: { status: 401 }, getApiV2BooksById: { skip: true }, deleteBooksById: { status: 401 } } });
    expect(unauthenticated.failures).toEqual([]);
  });

  it('checks 413 and 429 against the framework bodies as well', async () => {
    const app = new Application({ bodyLimit: 16 });
    app.route({ method: 'POST', path: '/notes', handler: (ctx) => ctx.json(ctx.body), schema: { body: z.object({ text: z.string().min(40) }) } });
    // The route says it is limited (rateLimit() marks itself too; the meta keeps this test independent of it).
    app.route({ method: 'GET', path: '/limited', middleware: [rateLimit({ maxRequests: 0 })], handler: (ctx) => ctx.json(1), meta: { rateLimited: { windowMs: 60_000, maxRequests: 0 } } });
    const report = await checkContract(app, openapi(app), { operations: { postNotes: { status: 413 }, getLimited: { status: 429 } } });
    expect(report.results.map((r) => [r.operationId, r.status, r.errors])).toEqual([
      ['postNotes', 413, []],
      ['getLimited', 429, []],
    ]);
  });

  it('sends requests under the prefix a stripped document keeps in servers', async () => {
    const { app } = buildTestApp();
    const report = await checkContract(app, openapi(app, { prefix: '/api/v2', ...quiet }), { operations: { getBooksById: { params: { id: 1 } } } });
    expect(report.results.map((r) => `${r.url} ${r.status} ${r.ok}`)).toEqual(['/api/v2/books/1 200 true']);
  });
});

describe('checkContract finds what does not match', () => {
  it('reports a body that does not match its schema, an undocumented status, a missing 2xx and an undocumented content type', async () => {
    const app = new Application();
    app.get('/books/:id', describeRoute({ responses: { 200: Book } }), validate({ params: z.object({ id: z.coerce.number() }) }), (ctx) =>
      ctx.json({ id: 1, title: 'Dune', author: { name: 'Frank Herbert' }, format: 'paperback', tags: [], price: '9.99' }),
    );
    app.route({ method: 'POST', path: '/made', handler: (ctx) => ctx.json({}, 201), schema: { responses: { 200: z.object({}) } } });
    app.get('/missing', () => {
      throw new HTTPError(404, 'gone');
    });
    app.get('/text', describeRoute({ responses: { 200: z.string() } }), (ctx) => ctx.text('plain'));
    const report = await checkContract(app, openapi(app));
    expect(report.ok).toBe(false);
    expect(report.failures.map((f) => [f.operationId, f.errors.map((e) => e.replace(/ \(\{.*\}\)$/, ''))])).toEqual([
      ['getBooksById', ['the body does not match the 200 schema: /price must be number']],
      ['postMade', ['status 201 is not documented']],
      ['getMissing', ['expected a 2xx status, got 404', 'status 404 is not documented']],
      ['getText', ['content type "text/plain" is not documented for 200 (documented: application/json)']],
    ]);
    expect(report.failures[2]!.errors[0]).toBe('expected a 2xx status, got 404 ({"error":true,"message":"gone","code":404})');
    expect(report.summary).toContain('✗ GET /books/{id} → 200: the body does not match the 200 schema: /price must be number');
  });

  it('reports a request it cannot build instead of failing the whole check', async () => {
    const app = new Application();
    app.route({ method: 'POST', path: '/isbn', handler: (ctx) => ctx.json(ctx.body), schema: { body: z.object({ isbn: z.string().regex(/^\d{13}$/) }), responses: { 200: z.object({ isbn: z.string() }) } } });
    app.get('/ok', describeRoute({ responses: { 200: z.object({ ok: z.boolean() }) } }), (ctx) => ctx.json({ ok: true }));
    const report = await checkContract(app, openapi(app));
    expect(report.results.map((r) => [r.operationId, r.ok, r.errors])).toEqual([
      ['postIsbn', false, ['could not build a request: no example for a string with pattern ^\\d{13}$: give the schema an example (zod: .meta({ examples: [...] }))']],
      ['getOk', true, []],
    ]);
    const fixed = await checkContract(app, openapi(app), { operations: { postIsbn: { body: { isbn: '9780441013593' } } } });
    expect(fixed.ok).toBe(true);
  });

  it('uses schema examples for the request', async () => {
    const app = new Application();
    let seen: unknown;
    app.route({
      method: 'POST',
      path: '/isbn',
      handler: (ctx) => ((seen = ctx.body), ctx.json(ctx.body)),
      schema: { body: z.object({ isbn: z.string().regex(/^\d{13}$/).meta({ examples: ['9780441013593'] }) }) },
    });
    expect((await checkContract(app, openapi(app))).ok).toBe(true);
    expect(seen).toEqual({ isbn: '9780441013593' });
  });
});

describe('checkContract with several requests for one operation', () => {
  /** A shop whose POST /orders answers 409 when the quantity exceeds the stock. */
  function shop(errors?: Record<number, string>) {
    const app = new Application();
    const Order = z.object({ id: z.string(), quantity: z.number().int() });
    app.post(
      '/orders',
      describeRoute({ responses: { 201: Order }, ...(errors === undefined ? {} : { errors }) }),
      validate({ body: z.object({ quantity: z.number().int().min(1).max(100) }) }),
      (ctx) => {
        const { quantity } = ctx.body as { quantity: number };
        if (quantity > 3) throw new HTTPError(409, 'Not enough stock', { available: 3 });
        ctx.json({ id: 'o1', quantity }, 201);
      },
    );
    return app;
  }
  const cases = [{ body: { quantity: 1 }, status: 201 }, { body: { quantity: 5 }, status: 409 }, { body: { quantity: 0 }, status: 400 }];

  it('sends every request of the list and fails when one is answered with a status the document does not list', async () => {
    const app = shop();
    const report = await checkContract(app, openapi(app, quiet), { operations: { postOrders: cases } });
    expect(report.ok).toBe(false);
    expect(report.results.map((r) => [r.operationId, r.case, r.status, r.errors.map((e) => e.replace(/ \(\{.*\}\)$/, ''))])).toEqual([
      ['postOrders', 1, 201, []],
      ['postOrders', 2, 409, ['status 409 is not documented']],
      ['postOrders', 3, 400, []],
    ]);
    expect(report.summary.split('\n')).toEqual(['✓ POST /orders #1 → 201', '✗ POST /orders #2 → 409: status 409 is not documented', '✓ POST /orders #3 → 400']);
  });

  it('passes once the route lists the status among its errors', async () => {
    const app = shop({ 409: 'Not enough stock' });
    const report = await checkContract(app, openapi(app, quiet), { operations: { postOrders: cases } });
    expect(report.failures).toEqual([]);
    expect(report.results.map((r) => r.status)).toEqual([201, 409, 400]);
  });
});
