// The README example, run as written (with a port of 0 and inject): it must keep compiling and working.
import { Application, HTTPError } from '@fw/core';
import { authenticate, requireRole } from '@fw/middleware';
import { createHandler } from '@fw/validate';
import { z } from 'zod';
import { checkContract, describeRoute, openapi, openapiPlugin, type OpenAPIDocument } from '../src/index.js';

const Book = z.object({ id: z.number().int(), title: z.string(), genre: z.enum(['fiction', 'poetry']) }).meta({ id: 'Book' });
const NewBook = Book.omit({ id: true }).extend({ genre: Book.shape.genre.default('fiction') });
const BookId = z.object({ id: z.coerce.number().int().positive().meta({ examples: [1] }) });

function readmeApp(): Application {
  const app = new Application();
  const books: Array<z.output<typeof Book>> = [{ id: 1, title: 'Dune', genre: 'fiction' }];
  const verify = (token: string) => (token === 'secret' ? { sub: 'ada', roles: ['admin'] } : null);

  app.group('/api/v1', (v1) => {
    v1.get('/books', describeRoute({ summary: 'List books', tags: ['books'], responses: { 200: z.array(Book) } }), (ctx) => ctx.json(books));
    v1.get(
      '/books/:id',
      describeRoute({ summary: 'One book', tags: ['books'], responses: { 200: Book } }),
      ...createHandler({ params: BookId }, (ctx) => {
        const book = books.find((b) => b.id === ctx.params.id);
        if (book === undefined) throw new HTTPError(404, 'No such book');
        ctx.json(book);
      }),
    );
    v1.post(
      '/books',
      authenticate(verify),
      requireRole('admin'),
      describeRoute({ summary: 'Add a book', tags: ['books'], responses: { 201: Book } }),
      ...createHandler({ body: NewBook }, (ctx) => {
        const book = { id: books.length + 1, ...ctx.body };
        books.push(book);
        ctx.json(book, 201);
      }),
    );
  });

  // GET /openapi.json and the Swagger UI page at GET /docs (offline: its files ship in the package).
  app.register(openapiPlugin({ info: { title: 'Bookstore', version: '1.0.0' } }));
  return app;
}

it('runs the README example', async () => {
  const app = readmeApp();
  const { url } = await app.listen(0, '127.0.0.1');
  try {
    const res = await fetch(`${url}/openapi.json`);
    const doc = (await res.json()) as OpenAPIDocument;
    expect(Object.keys(doc.paths)).toEqual(['/api/v1/books', '/api/v1/books/{id}']);
    expect(doc.paths['/api/v1/books']!.post!.security).toEqual([{ bearerAuth: ['admin'] }]);
    expect((await fetch(`${url}/docs`)).headers.get('content-type')).toBe('text/html; charset=utf-8');

    // The contract check: every operation answers its example request as documented.
    const report = await checkContract(app, openapi(app), { headers: { authorization: 'Bearer secret' } });
    expect(report.summary).toBe(['✓ GET /api/v1/books → 200', '✓ POST /api/v1/books → 201', '✓ GET /api/v1/books/{id} → 200'].join('\n'));
  } finally {
    await app.close();
  }
});
