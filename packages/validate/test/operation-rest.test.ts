import { Application, HTTPError, type Middleware, type RequestContext } from '@fw/core';
import { z } from 'zod';
import { defineOperation } from '../src/index.js';
import { failure, send, serve, type Served } from './helpers.js';

// Operations served over REST by core's `app.operation()`, in-process and over a socket.

const books = new Map([['1', { id: '1', title: 'Dune', year: 1965, secret: 'hidden', added: new Date('2020-01-01T00:00:00Z') }]]);

const Book = z.object({ id: z.string(), title: z.string(), year: z.int32(), added: z.date() }).meta({ id: 'Book' });

const getBook = defineOperation({
  name: 'getBook',
  input: z.object({ id: z.string().regex(/^\d+$/), fields: z.enum(['all', 'short']).default('all') }),
  output: Book,
  rest: { method: 'GET', path: '/books/:id' },
  handler: ({ id }) => {
    const book = books.get(id);
    if (book === undefined) throw new HTTPError(404, `No book ${id}`);
    return book;
  },
});

const listBooks = defineOperation({
  name: 'listBooks',
  input: z.object({ limit: z.coerce.number().int().min(1).max(10).default(5), tag: z.array(z.string()).optional() }),
  output: z.object({ limit: z.number(), tag: z.array(z.string()).optional(), books: z.array(Book) }),
  rest: { method: 'GET', path: '/books' },
  handler: ({ limit, tag }) => ({ limit, tag, books: [...books.values()].slice(0, limit) }),
});

const createBook = defineOperation({
  name: 'createBook',
  input: z.object({ shelf: z.string(), title: z.string().min(1), year: z.int32() }),
  output: z.object({ shelf: z.string(), title: z.string(), year: z.int32() }),
  rest: { method: 'POST', path: '/shelves/:shelf/books', status: 201 },
  handler: (input) => ({ ...input, internal: 'dropped' }),
});

const broken = defineOperation({
  name: 'broken',
  input: z.object({}),
  output: z.object({ count: z.int32() }),
  rest: { method: 'GET', path: '/broken' },
  handler: () => ({ count: 'many' }) as never,
});

const requireToken: Middleware<RequestContext> = async (ctx, next) => {
  if (ctx.headers.authorization !== 'Bearer good') throw new HTTPError(401, 'Unauthorized');
  ctx.user = { name: 'ada' };
  await next();
};

const whoAmI = defineOperation({
  name: 'whoAmI',
  input: z.object({}),
  output: z.object({ name: z.string(), protocol: z.string() }),
  middleware: [requireToken],
  rest: { method: 'GET', path: '/me' },
  handler: (_input, ctx) => ({ name: (ctx.user as { name: string }).name, protocol: ctx.protocol }),
});

const replaceTitle = defineOperation({
  name: 'replaceTitle',
  input: z.object({ id: z.string(), title: z.string() }),
  output: z.object({ id: z.string(), title: z.string() }),
  rest: { method: 'PUT', path: '/books/:id/title' },
  handler: (input) => input,
});

function setup(app: Application): void {
  app.operation(getBook).operation(listBooks).operation(createBook).operation(broken).operation(whoAmI).operation(replaceTitle);
}

describe('operations over REST (inject)', () => {
  const logged: Array<{ message: string; error: unknown }> = [];
  const app = new Application({ onLog: (message, error) => logged.push({ message, error }) });
  setup(app);

  it('GET merges the path params and the query into the input, and shapes the output', async () => {
    const res = await app.inject('/books/1?fields=short');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id: '1', title: 'Dune', year: 1965, added: '2020-01-01T00:00:00.000Z' });
  });

  it('answers 400 with fields named params.x and query.x', async () => {
    const res = await app.inject('/books/abc?fields=long');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(
      failure([
        { field: 'params.id', code: 'invalid_format' },
        { field: 'query.fields', code: 'invalid_value' },
      ]),
    );
    const limit = await app.inject('/books?limit=100');
    expect(limit.json()).toEqual(failure([{ field: 'query.limit', message: 'Too big: expected number to be <=10', code: 'too_big' }]));
  });

  it('POST reads the body, answers rest.status, and drops unknown keys', async () => {
    const res = await app.inject({ method: 'POST', url: '/shelves/s1/books', body: { title: 'Emma', year: 1815, extra: true } });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({ shelf: 's1', title: 'Emma', year: 1815 });
  });

  it('names body fields body.x, and a body that is not an object body', async () => {
    const res = await app.inject({ method: 'POST', url: '/shelves/s1/books', body: { title: '', year: 1.5 } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(
      failure([
        { field: 'body.title', code: 'too_small' },
        { field: 'body.year', code: 'invalid_type' },
      ]),
    );
    const list = await app.inject({ method: 'POST', url: '/shelves/s1/books', body: [1, 2] });
    expect(list.json()).toEqual(failure([{ field: 'body', code: 'invalid_type' }]));
  });

  it('answers 415 to a form body unless the operation takes forms (rest.accepts)', async () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const refusedForm = await app.inject({ method: 'POST', url: '/shelves/s1/books', headers: form, body: 'title=Emma&year=1815' });
    expect(refusedForm.statusCode).toBe(415);
    const formApp = new Application();
    formApp.operation(
      defineOperation({
        name: 'signUp',
        input: z.object({ email: z.string() }),
        output: z.object({ email: z.string() }),
        rest: { method: 'POST', path: '/sign-up', accepts: ['form'] },
        handler: (input) => input,
      }),
    );
    const taken = await formApp.inject({ method: 'POST', url: '/sign-up', headers: form, body: 'email=a%40b.c' });
    expect(taken.json()).toEqual({ email: 'a@b.c' });
    expect((await formApp.inject({ method: 'POST', url: '/sign-up', body: { email: 'a@b.c' } })).statusCode).toBe(415);
  });

  it('does not let the body override a path parameter', async () => {
    const res = await app.inject({ method: 'PUT', url: '/books/7/title', body: { id: '8', title: 'New' } });
    expect(res.json()).toEqual({ id: '7', title: 'New' });
  });

  it('answers an HTTPError from the handler with its status', async () => {
    const res = await app.inject('/books/2');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: true, message: 'No book 2', code: 404 });
  });

  it('answers 500 without details for a result that does not match the output, and logs why', async () => {
    logged.length = 0;
    const res = await app.inject('/broken');
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ error: true, message: 'Internal Server Error', code: 500 });
    expect(res.body).not.toContain('many');
    expect(logged).toHaveLength(1);
    expect((logged[0]!.error as Error).message).toBe(
      'Operation "broken" returned a value that does not match its output: count: Invalid input: expected number, received string',
    );
  });

  it('runs the operation middleware, which can refuse with 401', async () => {
    expect((await app.inject('/me')).statusCode).toBe(401);
    const res = await app.inject({ url: '/me', headers: { authorization: 'Bearer good' } });
    expect(res.json()).toEqual({ name: 'ada', protocol: 'http' });
  });

  it('refuses a second operation with the same name', () => {
    const again = defineOperation({ name: 'getBook', input: z.object({}), output: z.string(), handler: () => 'x' });
    expect(() => app.operation(again)).toThrow('An operation named "getBook" is already registered');
  });
});

describe('operations over REST (socket)', () => {
  let server: Served;

  beforeAll(async () => {
    server = await serve(setup);
  });
  afterAll(() => server.close());

  it('GET with params and repeated query keys', async () => {
    const one = await send(server.url, '/books/1');
    expect(one).toEqual({ status: 200, contentType: 'application/json; charset=utf-8', body: { id: '1', title: 'Dune', year: 1965, added: '2020-01-01T00:00:00.000Z' } });
    const list = await send(server.url, '/books?limit=1&tag=a&tag=b');
    expect(list.body).toEqual({ limit: 1, tag: ['a', 'b'], books: [{ id: '1', title: 'Dune', year: 1965, added: '2020-01-01T00:00:00.000Z' }] });
  });

  it('validation failures name params, query and body fields', async () => {
    expect((await send(server.url, '/books/x')).body).toEqual(failure([{ field: 'params.id', code: 'invalid_format' }]));
    expect((await send(server.url, '/books?limit=0')).body).toEqual(failure([{ field: 'query.limit', code: 'too_small' }]));
    const post = await send(server.url, '/shelves/s/books', { json: { year: 2000 } });
    expect(post.status).toBe(400);
    expect(post.body).toEqual(failure([{ field: 'body.title', code: 'invalid_type' }]));
  });

  it('POST answers 201 with unknown keys stripped', async () => {
    expect(await send(server.url, '/shelves/s/books', { json: { title: 'Emma', year: 1815, secret: 1 } })).toEqual({
      status: 201,
      contentType: 'application/json; charset=utf-8',
      body: { shelf: 's', title: 'Emma', year: 1815 },
    });
  });

  it('a mismatching result is a 500 without details, logged', async () => {
    server.logged.length = 0;
    const res = await send(server.url, '/broken');
    expect(res).toEqual({ status: 500, contentType: 'application/json; charset=utf-8', body: { error: true, message: 'Internal Server Error', code: 500 } });
    expect(server.logged.map((l) => (l.error as Error).message)).toEqual([
      'Operation "broken" returned a value that does not match its output: count: Invalid input: expected number, received string',
    ]);
  });

  it('operation middleware refuses with 401 and lets an authorised request through', async () => {
    expect((await send(server.url, '/me')).status).toBe(401);
    const res = await fetch(`${server.url}/me`, { headers: { authorization: 'Bearer good' } });
    expect(await res.json()).toEqual({ name: 'ada', protocol: 'http' });
  });

  it('an HTTPError from the handler keeps its status', async () => {
    expect(await send(server.url, '/books/9')).toMatchObject({ status: 404, body: { message: 'No book 9' } });
  });
});
