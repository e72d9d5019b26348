import { readFileSync } from 'node:fs';
import { join } from 'node:path';
// README:start
import { Application, HTTPError } from '@fw/core';
import { defineOperation } from '../src/index.js';
import { z } from 'zod';

const Book = z
  .object({
    id: z.string(),
    title: z.string().min(1).describe('The title'),
    year: z.int32(),
    genre: z.enum(['fiction', 'poetry']),
    published: z.date(),
  })
  .meta({ id: 'Book', description: 'A book in the catalog' });

const books = new Map<string, z.output<typeof Book>>();

const getBook = defineOperation({
  name: 'getBook',
  description: 'One book by id',
  input: z.object({ id: z.string() }),
  output: Book,
  handler: ({ id }) => {
    const book = books.get(id);
    if (book === undefined) throw new HTTPError(404, `No book ${id}`);
    return book;
  },
  rest: { method: 'GET', path: '/books/:id' },
  graphql: { type: 'query' },
  grpc: { service: 'bookstore.Catalog' },
});

const addBook = defineOperation({
  name: 'addBook',
  input: Book.omit({ id: true }),
  output: Book,
  handler: (input) => {
    const book = { id: String(books.size + 1), ...input };
    books.set(book.id, book);
    return { ...book, internalNote: 'never sent' };
  },
  rest: { method: 'POST', path: '/books', status: 201 },
  graphql: { type: 'mutation' },
  grpc: { service: 'bookstore.Catalog' },
});

const app = new Application().operation(getBook).operation(addBook);
// README:end

describe('the README example of operations', () => {
  it('is the code of this test', () => {
    const source = readFileSync(__filename, 'utf8');
    const example = source.slice(source.indexOf('// README:start\n') + 16, source.indexOf('// README:end')).replace("'../src/index.js'", "'@fw/validate'");
    const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');
    expect(readme).toContain('```ts\n' + example + '\nawait app.listen(3000);\n```');
  });

  it('answers as the README says', async () => {
    const created = await app.inject({ method: 'POST', url: '/books', body: { title: 'Dune', year: 1965, genre: 'fiction', published: '1965-08-01T00:00:00Z' } });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toEqual({ id: '1', title: 'Dune', year: 1965, genre: 'fiction', published: '1965-08-01T00:00:00.000Z' });
    expect((await app.inject('/books/1')).json()).toEqual(created.json());
    const invalid = await app.inject({ method: 'POST', url: '/books', body: { title: '', year: 1965.5, genre: 'poetry', published: 'last week' } });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json()).toEqual({
      error: true,
      message: 'Validation failed',
      code: 400,
      details: {
        errors: [
          { field: 'body.title', message: 'Too small: expected string to have >=1 characters', code: 'too_small' },
          { field: 'body.year', message: 'Invalid input: expected int, received number', code: 'invalid_type' },
          { field: 'body.published', message: 'Invalid input: expected date, received string', code: 'invalid_type' },
        ],
      },
    });
    expect((await app.inject('/books/9')).json()).toEqual({ error: true, message: 'No book 9', code: 404 });
  });
});
