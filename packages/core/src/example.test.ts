// The README example, run as it is written there (with port 0 on 127.0.0.1 instead of 3000, and
// `./index.js` standing for `@fw/core`).
import { Application, HTTPError, Router } from './index.js';

it('runs the README example', async () => {
  // --- README example starts
  const app = new Application({ bodyLimit: 64 * 1024 });

  // Application-level middleware runs for every request, unmatched ones included.
  app.use(async (ctx, next) => {
    const started = performance.now();
    await next();
    ctx.setHeader('x-response-time', `${(performance.now() - started).toFixed(1)}ms`);
  });

  const books = new Map([['1', { id: '1', title: 'The Dispossessed' }]]);
  const api = new Router({ prefix: '/api' });
  api.get('/books/:id', (ctx) => {
    const book = books.get(ctx.params.id);
    if (!book) throw new HTTPError(404, 'Book not found');
    ctx.json(book);
  });
  api.post('/books', (ctx) => {
    const { title } = (ctx.body ?? {}) as { title?: unknown };
    if (typeof title !== 'string') throw new HTTPError(400, 'title is required', { field: 'title' });
    const book = { id: String(books.size + 1), title };
    books.set(book.id, book);
    ctx.status(201).json(book);
  });
  app.use(api);

  const { url } = await app.listen(0, '127.0.0.1');
  // --- README example ends

  try {
    const created = await fetch(`${url}/api/books`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"title":"Kindred"}' });
    expect(created.status).toBe(201);
    expect(await created.json()).toEqual({ id: '2', title: 'Kindred' });
    const found = await fetch(`${url}/api/books/2`);
    expect(await found.json()).toEqual({ id: '2', title: 'Kindred' });
    expect(found.headers.get('x-response-time')).toMatch(/^\d+\.\dms$/);
    const missing = await fetch(`${url}/api/books/9`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: true, message: 'Book not found', code: 404 });
    const invalid = await app.inject({ method: 'POST', url: '/api/books', body: {} });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json()).toEqual({ error: true, message: 'title is required', code: 400, details: { field: 'title' } });
    const unmatched = await app.inject('/nope');
    expect(unmatched.statusCode).toBe(404);
    expect(unmatched.headers['x-response-time']).toBeDefined();
  } finally {
    await app.close();
  }
});
