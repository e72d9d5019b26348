import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { Application, HTTPError, type RouteContext } from '@fw/core';
import { authenticate, requireRole } from '@fw/middleware';
import { createHandler, validate } from '@fw/validate';
import { z } from 'zod';
import { describeRoute, type OpenAPIDocument, type OpenAPIWarning } from '../src/index.js';

/** Validates documents with @seriousme/openapi-schema-validator (in a child node process, see the script). */
export function validateOpenAPI(...documents: OpenAPIDocument[]): Array<{ valid: boolean; version: string; errors: unknown }> {
  const out = execFileSync(process.execPath, [join(__dirname, 'validate-openapi.mjs')], { input: JSON.stringify(documents), cwd: __dirname, encoding: 'utf8' });
  return JSON.parse(out) as Array<{ valid: boolean; version: string; errors: unknown }>;
}

/** Collects warnings instead of printing them. */
export function collect(): { warnings: OpenAPIWarning[]; onWarning: (w: OpenAPIWarning) => void } {
  const warnings: OpenAPIWarning[] = [];
  return { warnings, onWarning: (w) => warnings.push(w) };
}

export const ADMIN_TOKEN = 'admin-token';
export const READER_TOKEN = 'reader-token';

/** The bearer verifier of the test app: two fixed tokens. */
export const verifier = (token: string): { sub: string; roles: string[] } | null =>
  token === ADMIN_TOKEN ? { sub: 'ada', roles: ['admin'] } : token === READER_TOKEN ? { sub: 'bob', roles: ['reader'] } : null;

export const Author = z
  .object({
    name: z.string().min(1).describe('Full name'),
    born: z.number().int().min(1000).max(2100).optional(),
  })
  .meta({ id: 'Author' });

export const Format = z.enum(['hardcover', 'paperback', 'ebook']);

export const Book = z
  .object({
    id: z.number().int().positive(),
    title: z.string(),
    author: Author,
    format: Format,
    tags: z.array(z.string()),
    price: z.number().positive(),
  })
  .meta({ id: 'Book' });

export const NewBook = z.object({
  title: z.string().min(1).max(200),
  author: Author,
  format: Format.default('paperback'),
  tags: z.array(z.string().min(1)).max(10).default([]),
  price: z.number().positive(),
  isbn: z.string().regex(/^\d{13}$/).optional(),
});

export const BookQuery = z.object({
  page: z.coerce.number().int().min(1).default(1).describe('Page number, from 1'),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  format: Format.optional(),
  tag: z.array(z.string()).optional(),
  q: z.string().min(2).optional().describe('Search in titles'),
});

export const BookList = z.object({ items: z.array(Book), page: z.number().int(), total: z.number().int() });

export const BookId = z.object({ id: z.coerce.number().int().positive().meta({ examples: [1] }) });

export interface TestBook {
  id: number;
  title: string;
  author: { name: string; born?: number };
  format: 'hardcover' | 'paperback' | 'ebook';
  tags: string[];
  price: number;
}

/**
 * The route table the tests document: params, query, body, nested objects, enums, arrays,
 * optional and default fields, auth meta (from authenticate/requireRole), an explicitly
 * rate-limited route, an `all()` route, a route with no schema, versions under /api/v1 and /api/v2.
 */
export function buildTestApp(): { app: Application; books: TestBook[] } {
  const app = new Application({ onLog: () => undefined });
  const books: TestBook[] = [
    { id: 1, title: 'Dune', author: { name: 'Frank Herbert', born: 1920 }, format: 'paperback', tags: ['scifi'], price: 9.99 },
    { id: 2, title: 'Emma', author: { name: 'Jane Austen' }, format: 'hardcover', tags: [], price: 12.5 },
  ];
  const admin = [authenticate(verifier), requireRole('admin')];

  app.get('/health', (ctx) => ctx.json({ ok: true }));

  app.route({
    method: 'GET',
    path: '/books',
    middleware: [validate({ query: BookQuery })],
    handler: (ctx: RouteContext) => {
      const query = ctx.query as unknown as z.output<typeof BookQuery>;
      const matching = books.filter((b) => query.format === undefined || b.format === query.format);
      const start = (query.page - 1) * query.limit;
      ctx.json({ items: matching.slice(start, start + query.limit), page: query.page, total: matching.length });
    },
    schema: { responses: { 200: BookList } },
    meta: { tags: ['books'], summary: 'List books', description: 'Lists the books, a page at a time.' },
  });

  app.get(
    '/books/:id',
    describeRoute({ summary: 'One book', tags: ['books'], responses: { 200: Book } }),
    ...createHandler({ params: BookId }, (ctx) => {
      const book = books.find((b) => b.id === ctx.params.id);
      if (book === undefined) throw new HTTPError(404, `No book ${ctx.params.id}`);
      ctx.json(book);
    }),
  );

  app.post(
    '/books',
    ...admin,
    ...createHandler({ body: NewBook }, (ctx) => {
      const book: TestBook = { id: books.length + 1, ...ctx.body };
      books.push(book);
      ctx.json(book, 201);
    }),
  );

  app.route({
    method: 'DELETE',
    path: '/books/:id',
    middleware: [...admin, validate({ params: BookId })],
    handler: (ctx: RouteContext) => {
      const id = (ctx.params as unknown as { id: number }).id;
      const index = books.findIndex((b) => b.id === id);
      if (index === -1) throw new HTTPError(404, `No book ${id}`);
      books.splice(index, 1);
      ctx.status(204);
    },
    schema: { responses: { 204: null } },
    meta: { tags: ['books'], rateLimited: { windowMs: 60_000, maxRequests: 10 }, deprecated: true },
  });

  app.get('/authors/:authorId/books/:bookId', (ctx) => ctx.json({ authorId: ctx.params.authorId, bookId: ctx.params.bookId }));
  app.all('/echo', (ctx) => ctx.json({ method: ctx.method }));
  app.route({ method: 'GET', path: '/internal/metrics', handler: (ctx) => ctx.text('ok'), meta: { hidden: true } });

  app.group('/api/v1', (v1) => {
    v1.get('/books', (ctx) => ctx.json(books.map((b) => ({ id: b.id, title: b.title }))));
  });
  app.group('/api/v2', (v2) => {
    v2.route({
      method: 'GET',
      path: '/books/:id',
      handler: (ctx) => {
        const book = books.find((b) => String(b.id) === ctx.params.id);
        if (book === undefined) throw new HTTPError(404, 'Not Found');
        ctx.json(book);
      },
      schema: { responses: { 200: Book } },
    });
  });
  return { app, books };
}
