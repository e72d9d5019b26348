import * as grpc from '@grpc/grpc-js';
import { HTTPError, OPERATION_NAME, type FieldShape, type Middleware, type ObjectShape, type RequestContext } from '@fw/core';
import { ERROR_DETAILS_KEY, INTERNAL_DETAILS, STATUS_DETAILS_KEY, type GeneratedProto, type GrpcUnaryHandler } from '../src/index.js';
import { PROTO, client as echoClient, failure, unary, type EchoReply, type EchoRequest } from './helpers.js';
import { operation, t } from './fixtures/operation.js';
import { decodeRichStatus, generatedClient, startOperations, type StartedOperations } from './operations-helpers.js';

const Genre = t.enum(['fiction', 'non-fiction', 'poetry'], 'Genre');
const Author = t.object({ name: t.string(), born: t.optional(t.datetime()) }, 'Author');
const Book = t.object(
  {
    id: t.string(),
    title: t.string(),
    genre: Genre,
    author: Author,
    tags: t.list(t.string()),
    prices: t.map(t.float()),
    pages: t.int32(),
    sold: t.int(),
    published: t.datetime(),
    subtitle: t.nullable(t.string()),
  },
  'Book',
);

const book = {
  id: '1',
  title: 'Dune',
  genre: 'non-fiction',
  author: { name: 'Frank Herbert', born: new Date('1920-10-08T00:00:00Z'), password: 'hunter2' },
  tags: ['sf', 'classic'],
  prices: { eur: 9.5 },
  pages: 412,
  sold: 2 ** 40,
  published: new Date('1965-08-01T00:00:00Z'),
  subtitle: null,
  internalNote: 'do-not-send-this',
};

const seen: { input?: unknown; operationName?: unknown; user?: unknown } = {};

const getBook = operation<{ id: string }, unknown>({
  name: 'getBook',
  description: 'One book by id',
  input: t.object({ id: t.string() }),
  output: Book,
  grpc: { service: 'bookstore.Catalog' },
  handler: (input, ctx) => {
    seen.operationName = ctx.get(OPERATION_NAME);
    seen.user = ctx.user;
    if (input.id === 'missing') throw new HTTPError(404, 'No such book');
    if (input.id === 'boom') throw new Error('connection string postgres://admin:secret@db leaked');
    if (input.id === 'bad') return { ...book, title: 42 };
    return book;
  },
});

const listBooks = operation<{ genre?: string; limit?: number }, unknown>({
  name: 'listBooks',
  input: t.object({ genre: t.optional(Genre), limit: t.optional(t.int32()) }),
  output: t.list(Book),
  grpc: { service: 'bookstore.Catalog' },
  handler: (input) => [book, { ...book, id: '2', genre: 'poetry' }].filter((b) => input.genre === undefined || b.genre === input.genre).slice(0, input.limit ?? 10),
});

const countBooks = operation({
  name: 'countBooks',
  input: t.object({}),
  output: t.int(),
  grpc: { service: 'bookstore.Stats', method: 'Count' },
  handler: () => 2 ** 40 + 1,
});

const Everything = t.object({
  text: t.string(),
  note: t.optional(t.string()),
  maybe: t.nullable(t.string()),
  genre: Genre,
  genreOpt: t.optional(Genre),
  author: Author,
  cover: t.optional(t.object({ url: t.string() })),
  when: t.datetime(),
  tags: t.list(Genre),
  counts: t.map(t.int()),
});

const inspect = operation<Record<string, unknown>, unknown>({
  name: 'inspect',
  input: Everything,
  output: t.object({ ok: t.boolean() }),
  grpc: { service: 'bookstore.Debug' },
  handler: (input) => {
    seen.input = input;
    return { ok: true };
  },
});

const findBook = operation<{ id: string }, unknown>({
  name: 'findBook',
  input: t.object({ id: t.string() }),
  output: t.nullable(Book),
  grpc: { service: 'bookstore.Catalog' },
  handler: (input) => (input.id === '1' ? book : null),
});

// A schema that contains itself: categories of categories.
const Category: ObjectShape = { kind: 'object', name: 'Category', fields: [], source: {} };
(Category.fields as FieldShape[]).push({ name: 'name', type: t.string(), optional: false }, { name: 'genre', type: Genre, optional: false }, { name: 'children', type: t.list(Category), optional: false });
const echoTree = operation<unknown, unknown>({
  name: 'echoTree',
  input: t.object({ root: Category }),
  output: Category,
  grpc: { service: 'bookstore.Debug' },
  handler: (input) => (input as { root: unknown }).root,
});

// A named input: its own message, one field of the request.
const BookRef = t.object({ bookId: t.string() }, 'BookRef');
const lookup = operation<{ bookId: string }, unknown>({
  name: 'lookup',
  input: BookRef,
  output: t.object({ found: t.string() }),
  grpc: { service: 'bookstore.Debug' },
  handler: (input) => ({ found: input.bookId }),
});

const requireToken: Middleware<RequestContext> = async (ctx, next) => {
  if (ctx.headers.authorization !== 'Bearer good') throw new HTTPError(401, 'Missing or bad token');
  ctx.user = { sub: 'ada' };
  await next();
};

let secretRuns = 0;
const secret = operation({
  name: 'secret',
  input: t.object({}),
  output: t.object({ sub: t.string() }),
  middleware: [requireToken],
  grpc: { service: 'bookstore.Debug' },
  handler: (_input, ctx) => {
    secretRuns++;
    return { sub: (ctx.user as { sub: string }).sub };
  },
});

const appMiddleware: Middleware<RequestContext> = async (ctx, next) => {
  ctx.setHeader('x-app-middleware', 'ran');
  await next();
};

const Unary: GrpcUnaryHandler<EchoRequest, Partial<EchoReply>> = (call) => ({ message: `echo: ${call.request.message}` });

describe('operations served over gRPC (grpc-js client)', () => {
  let server: StartedOperations;
  let files: GeneratedProto[];
  let catalog: grpc.Client;
  let stats: grpc.Client;
  let debug: grpc.Client;

  beforeAll(async () => {
    server = await startOperations([getBook, listBooks, findBook, countBooks, inspect, echoTree, secret, lookup], { protoPath: PROTO, services: { 'fwtest.Echo': { Unary } }, middleware: 'global' }, (app) =>
      app.use(appMiddleware),
    );
    files = server.grpc.generateProtos();
    catalog = generatedClient(files, 'bookstore.Catalog', server.target);
    stats = generatedClient(files, 'bookstore.Stats', server.target);
    debug = generatedClient(files, 'bookstore.Debug', server.target);
  });

  afterAll(async () => {
    for (const c of [catalog, stats, debug]) c.close();
    await server.app.close();
  });

  it('answers a unary operation with its output in <Method>Response: a named object as one field, int64 as a number, dates as ISO strings, enums by proto name', async () => {
    const { reply, metadata } = await unary(catalog, 'GetBook', { id: '1' });
    expect((reply as unknown as { book: unknown }).book).toEqual({
      id: '1',
      title: 'Dune',
      genre: 'GENRE_NON_FICTION',
      author: { name: 'Frank Herbert', born: '1920-10-08T00:00:00.000Z' },
      tags: ['sf', 'classic'],
      prices: { eur: 9.5 },
      pages: 412,
      sold: 2 ** 40,
      published: '1965-08-01T00:00:00.000Z',
    });
    expect(metadata.get('x-app-middleware')).toEqual(['ran']);
  });

  it('never puts keys the output does not declare on the wire', async () => {
    const raw = await new Promise<Buffer>((resolve, reject) => {
      catalog.makeUnaryRequest(
        '/bookstore.Catalog/GetBook',
        () => Buffer.from([0x0a, 0x01, 0x31]), // GetBookRequest { id: "1" }
        (bytes: Buffer) => bytes,
        {},
        (err, value) => (err ? reject(err) : resolve(value!)),
      );
    });
    expect(raw.includes('Dune')).toBe(true);
    expect(raw.includes('do-not-send-this')).toBe(false);
    expect(raw.includes('hunter2')).toBe(false);
  });

  it('names the operation for tracing and logs', async () => {
    await unary(catalog, 'GetBook', { id: '1' });
    expect(seen.operationName).toBe('getBook');
  });

  it('wraps a list output in `items` and a scalar output in `value`', async () => {
    const list = await unary(catalog, 'ListBooks', { genre: 'GENRE_POETRY' });
    expect((list.reply as unknown as { items: Array<{ id: string; genre: string }> }).items.map((b) => [b.id, b.genre])).toEqual([['2', 'GENRE_POETRY']]);
    const limited = await unary(catalog, 'ListBooks', { limit: 1 });
    expect((limited.reply as unknown as { items: unknown[] }).items).toHaveLength(1);
    const count = await unary(stats, 'Count', {});
    expect(count.reply).toEqual({ value: 2 ** 40 + 1 });
    const found = await unary(catalog, 'FindBook', { id: '1' });
    expect((found.reply as unknown as { value: { title: string } }).value.title).toBe('Dune');
    // A null result is a wrapper without its optional value.
    const none = await unary(catalog, 'FindBook', { id: '2' });
    expect(none.reply).toEqual({});
  });

  it('hands the operation its input as the schema reads it: its keys, unset optional fields absent, unset nullable ones null, enums as schema values', async () => {
    await unary(debug, 'Inspect', {
      text: '',
      genre: 'GENRE_FICTION',
      author: { name: 'Ada' },
      when: '2024-01-02T03:04:05.000Z',
      tags: ['GENRE_POETRY', 'GENRE_NON_FICTION'],
      counts: { a: 2 ** 40 },
    });
    const input = seen.input as Record<string, unknown>;
    expect(input).toEqual({
      text: '',
      maybe: null,
      genre: 'fiction',
      author: { name: 'Ada' },
      when: new Date('2024-01-02T03:04:05.000Z'),
      tags: ['poetry', 'non-fiction'],
      counts: { a: 2 ** 40 },
    });
    expect('note' in input || 'genreOpt' in input || 'cover' in input).toBe(false);
  });

  it('tells a caller that leaves out a required scalar that it is required: request fields have presence, so a zero value is sent and an absent one is absent', async () => {
    const err = await failure(unary(debug, 'Inspect', { genre: 'GENRE_FICTION', author: { name: 'Ada' }, when: '2024-01-02T03:04:05.000Z' }));
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(decodeRichStatus((err.metadata.get(STATUS_DETAILS_KEY) as Buffer[])[0]!).violations).toEqual([{ field: 'text', description: 'Required' }]);
    // Nested messages of a request have presence on their fields too.
    const nested = await failure(unary(debug, 'Inspect', { text: 't', genre: 'GENRE_FICTION', author: {}, when: '2024-01-02T03:04:05.000Z' }));
    expect(decodeRichStatus((nested.metadata.get(STATUS_DETAILS_KEY) as Buffer[])[0]!).violations).toEqual([{ field: 'author.name', description: 'Required' }]);
  });

  it('keeps optional fields that are set, empty values included', async () => {
    await unary(debug, 'Inspect', {
      text: 't',
      note: '',
      maybe: 'yes',
      genre: 'GENRE_POETRY',
      genre_opt: 'GENRE_FICTION',
      author: { name: 'Ada', born: '1815-12-10T00:00:00.000Z' },
      cover: { url: '' },
      when: '2024-01-02T03:04:05.000Z',
    });
    expect(seen.input).toMatchObject({ note: '', maybe: 'yes', genreOpt: 'fiction', cover: { url: '' }, author: { name: 'Ada', born: new Date('1815-12-10T00:00:00.000Z') } });
  });

  it('reads a named input from its field of the request, and an absent one as an empty input', async () => {
    expect(files.find((f) => f.file === 'bookstore/bookstore.proto')!.text).toContain('message LookupRequest {\n  BookRef book_ref = 1;\n}');
    const { reply } = await unary(debug, 'Lookup', { book_ref: { book_id: 'b7' } });
    expect(reply).toEqual({ found: 'b7' });
    const err = await failure(unary(debug, 'Lookup', {}));
    expect(decodeRichStatus((err.metadata.get(STATUS_DETAILS_KEY) as Buffer[])[0]!).violations).toEqual([{ field: 'bookId', description: 'Required' }]);
  });

  it('converts enums at every depth of a schema that contains itself', async () => {
    const tree = { name: 'all', genre: 'GENRE_FICTION', children: [{ name: 'verse', genre: 'GENRE_POETRY', children: [{ name: 'haiku', genre: 'GENRE_POETRY', children: [] }] }] };
    const { reply } = await unary(debug, 'EchoTree', { root: tree });
    // The client decodes without defaults: empty lists are absent.
    expect((reply as unknown as { category: unknown }).category).toEqual({ name: 'all', genre: 'GENRE_FICTION', children: [{ name: 'verse', genre: 'GENRE_POETRY', children: [{ name: 'haiku', genre: 'GENRE_POETRY' }] }] });
  });

  it('answers INVALID_ARGUMENT with a google.rpc.BadRequest in grpc-status-details-bin', async () => {
    const err = await failure(unary(debug, 'Inspect', { text: 't', when: 'yesterday', tags: ['GENRE_UNSPECIFIED'] }));
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(err.details).toBe('Validation failed');
    const [bytes] = err.metadata.get(STATUS_DETAILS_KEY) as Buffer[];
    const status = decodeRichStatus(bytes!);
    expect(status.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(status.message).toBe('Validation failed');
    expect(status.typeUrls).toEqual(['type.googleapis.com/google.rpc.BadRequest']);
    // The enum's zero value reads as unset (Required); in a list it is not a value of the enum.
    expect(status.violations).toEqual([
      { field: 'genre', description: 'Required' },
      { field: 'author', description: 'Required' },
      { field: 'when', description: 'Expected ISO date-time' },
      { field: 'tags.0', description: 'Expected one of fiction|non-fiction|poetry' },
    ]);
  });

  it('keeps the detail trailers small enough for clients to read: 2000 issues still arrive as INVALID_ARGUMENT', async () => {
    const tags = Array.from({ length: 2000 }, () => 'GENRE_UNSPECIFIED');
    // Oversized trailers are never delivered: a grpc-js client would wait for its deadline.
    const err = await failure(unary(debug, 'Inspect', { text: 't', genre: 'GENRE_POETRY', author: { name: 'A' }, when: '2024-01-02T03:04:05Z', tags }, { deadlineMs: 5000 }));
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    const details = JSON.parse((err.metadata.get(ERROR_DETAILS_KEY)[0] as Buffer).toString()) as { errors: unknown[]; truncated: boolean };
    expect(details.truncated).toBe(true);
    expect(details.errors.length).toBeGreaterThan(10);
    expect(details.errors.length).toBeLessThan(2000);
    const rich = decodeRichStatus((err.metadata.get(STATUS_DETAILS_KEY) as Buffer[])[0]!);
    expect(rich.violations.length).toBeGreaterThan(10);
    expect(rich.violations.length).toBeLessThan(2000);
    expect(rich.violations[0]).toEqual({ field: 'tags.0', description: 'Expected one of fiction|non-fiction|poetry' });
  });

  it('maps an HTTPError from the handler by the status table', async () => {
    const err = await failure(unary(catalog, 'GetBook', { id: 'missing' }));
    expect(err.code).toBe(grpc.status.NOT_FOUND);
    expect(err.details).toBe('No such book');
    expect(err.metadata.get(STATUS_DETAILS_KEY)).toEqual([]);
  });

  it('answers INTERNAL, masked and logged, for a plain error or a result that does not match the output', async () => {
    server.logs.length = 0;
    const thrown = await failure(unary(catalog, 'GetBook', { id: 'boom' }));
    expect(thrown.code).toBe(grpc.status.INTERNAL);
    expect(thrown.details).toBe(INTERNAL_DETAILS);
    const mismatch = await failure(unary(catalog, 'GetBook', { id: 'bad' }));
    expect(mismatch.code).toBe(grpc.status.INTERNAL);
    expect(mismatch.details).toBe(INTERNAL_DETAILS);
    expect(server.logs.map((l) => (l.error as Error).message)).toEqual([
      'connection string postgres://admin:secret@db leaked',
      'The result does not match the output at title',
    ]);
  });

  it("runs the operation's middleware: a refusal is UNAUTHENTICATED and the handler never runs", async () => {
    const before = secretRuns;
    const refused = await failure(unary(debug, 'Secret', {}));
    expect(refused.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(refused.details).toBe('Missing or bad token');
    expect(secretRuns).toBe(before);
    const allowed = await unary(debug, 'Secret', {}, { metadata: { authorization: 'Bearer good' } });
    expect(allowed.reply).toEqual({ sub: 'ada' });
  });

  it('serves a hand-written service beside the operations', async () => {
    const echo = echoClient(server.target);
    try {
      const { reply } = await unary(echo, 'Unary', { message: 'hi' });
      expect(reply.message).toBe('echo: hi');
    } finally {
      echo.close();
    }
  });

  it('reports the generated services as SERVING on the health service', async () => {
    const { loadSync } = await import('@grpc/proto-loader');
    const { protoPath } = await import('grpc-health-check');
    const health = grpc.loadPackageDefinition(loadSync(protoPath, { keepCase: true, enums: String })) as unknown as {
      grpc: { health: { v1: { Health: grpc.ServiceClientConstructor } } };
    };
    const c = new health.grpc.health.v1.Health(server.target, grpc.credentials.createInsecure());
    try {
      const reply = await unary(c, 'Check', { service: 'bookstore.Catalog' });
      expect(reply.reply).toEqual({ status: 'SERVING' });
    } finally {
      c.close();
    }
  });
});
