import { Application, HTTPError, type Operation } from '@fw/core';
import { authenticate, rateLimit, requireRole } from '@fw/middleware';
import { z } from 'zod';
import { checkContract, describeRoute, openapi, type OpenAPIDocument, type OperationObject, type RequestBodyObject } from '../src/index.js';
import { ADMIN_TOKEN, collect, READER_TOKEN, validateOpenAPI, verifier } from './helpers.js';
import { defineOperation } from '@fw/validate';

const ref = (kind: 'schemas' | 'responses' | 'headers', name: string) => ({ $ref: `#/components/${kind}/${name}` });

const Author = z.object({ name: z.string().min(1).describe('Full name') }).meta({ id: 'Author' });
const Book = z
  .object({
    id: z.string(),
    title: z.string(),
    author: Author,
    published: z.date(),
    pages: z.number().int().positive().optional(),
  })
  .meta({ id: 'Book' });

const BOOK = { id: 'b1', title: 'Dune', author: { name: 'Frank Herbert' }, published: new Date('1965-08-01T00:00:00.000Z'), pages: 412, secret: 'dropped' };

/** Operations over every REST shape an operation can take: GET with path and query input, POST with a body, DELETE, guarded ones. */
function operations(): Operation[] {
  const getBook = defineOperation({
    name: 'getBook',
    description: 'One book by id',
    input: z.object({ id: z.string().min(1).describe('The book id'), fields: z.enum(['all', 'short']).optional() }),
    output: Book,
    rest: { method: 'GET', path: '/books/:id' },
    handler: (input) => {
      if (input.id === 'missing') throw new HTTPError(404, 'No such book');
      return { ...BOOK, id: input.id };
    },
  });
  const addBook = defineOperation({
    name: 'addBook',
    description: 'Adds a book to a shelf',
    input: z.object({ shelf: z.string(), title: z.string().min(1), author: Author, published: z.date().optional() }),
    output: Book,
    middleware: [authenticate(verifier), requireRole('admin')],
    rest: { method: 'POST', path: '/shelves/:shelf/books', status: 201 },
    handler: (input) => ({ ...BOOK, title: input.title, author: input.author }),
  });
  const publish = defineOperation({
    name: 'publishShelf',
    input: z.object({ shelf: z.string() }),
    output: z.object({ published: z.number().int() }),
    middleware: [rateLimit({ maxRequests: 1000 })],
    rest: { method: 'POST', path: '/shelves/:shelf/publish' },
    handler: () => ({ published: 3 }),
  });
  const removeBooks = defineOperation({
    name: 'removeBooks',
    input: z.object({ before: z.string().describe('An ISO date'), dryRun: z.enum(['yes', 'no']).default('no') }),
    output: z.array(Book),
    middleware: [describeRoute({ summary: 'Remove old books', tags: ['admin'], errors: { 409: 'A removal is running' } })],
    rest: { method: 'DELETE', path: '/books' },
    handler: () => [BOOK],
  });
  const graphqlOnly = defineOperation({ name: 'stats', input: z.object({}), output: z.object({ count: z.number() }), handler: () => ({ count: 1 }) });
  return [getBook, addBook, publish, removeBooks, graphqlOnly];
}

function buildApp(): Application {
  const app = new Application({ onLog: () => undefined });
  app.get('/health', (ctx) => ctx.json({ ok: true }));
  for (const op of operations()) app.operation(op);
  return app;
}

describe('operation routes in the document', () => {
  let document: OpenAPIDocument;
  const { warnings, onWarning } = collect();

  beforeAll(() => {
    document = openapi(buildApp(), { onWarning });
  });

  const at = (method: string, path: string): OperationObject => {
    const found = (document.paths[path] as Record<string, OperationObject> | undefined)?.[method];
    if (found === undefined) throw new Error(`${method} ${path} is not documented`);
    return found;
  };

  it('is valid OpenAPI 3.1, with one operation per REST operation and none for an operation without a route', () => {
    expect(validateOpenAPI(document)).toEqual([{ valid: true, version: '3.1', errors: null }]);
    expect(warnings).toEqual([]);
    const listed = Object.entries(document.paths).flatMap(([path, item]) => Object.entries(item as Record<string, OperationObject>).map(([method, o]) => `${method} ${path} ${o.operationId}`));
    expect(listed).toEqual([
      'get /health getHealth',
      'get /books/{id} getBook',
      'post /shelves/{shelf}/books addBook',
      'post /shelves/{shelf}/publish publishShelf',
      'delete /books removeBooks',
    ]);
  });

  it('documents a GET operation: the operation name as operationId, its description, path and query parameters from the input, the output as the 200 response', () => {
    expect(at('get', '/books/{id}')).toEqual({
      operationId: 'getBook',
      description: 'One book by id',
      parameters: [
        { name: 'id', in: 'path', required: true, description: 'The book id', schema: { type: 'string', minLength: 1 } },
        { name: 'fields', in: 'query', required: false, schema: { type: 'string', enum: ['all', 'short'] } },
      ],
      responses: {
        '200': { description: 'OK', content: { 'application/json': { schema: ref('schemas', 'Book') } } },
        '400': ref('responses', 'ValidationError'),
        '404': ref('responses', 'NotFound'),
        '500': ref('responses', 'InternalServerError'),
      },
    });
  });

  it('puts named zod schemas in components.schemas, dates as date-time strings', () => {
    expect(document.components?.schemas?.Book).toEqual({
      type: 'object',
      properties: {
        id: { type: 'string' },
        title: { type: 'string' },
        author: ref('schemas', 'Author'),
        published: { type: 'string', format: 'date-time' },
        pages: { type: 'integer', exclusiveMinimum: 0, maximum: Number.MAX_SAFE_INTEGER },
      },
      required: ['id', 'title', 'author', 'published'],
      additionalProperties: false,
    });
    expect(document.components?.schemas?.Author).toMatchObject({ type: 'object', properties: { name: { type: 'string', minLength: 1, description: 'Full name' } } });
  });

  it('documents a POST operation: path parameters from the route, the rest of the input as the required body, rest.status as the success status', () => {
    const add = at('post', '/shelves/{shelf}/books');
    expect(add.parameters).toEqual([{ name: 'shelf', in: 'path', required: true, schema: { type: 'string' } }]);
    const body = add.requestBody as RequestBodyObject;
    expect(body.required).toBe(true);
    const schema = body.content['application/json']!.schema!;
    expect(schema).toMatchObject({
      type: 'object',
      properties: { title: { type: 'string', minLength: 1 }, published: { type: 'string', format: 'date-time' } },
      required: ['title', 'author'],
    });
    expect(Object.keys(schema.properties as object)).toEqual(['title', 'author', 'published']);
    // The request side of Author differs from the response side (objects are closed on output): its own component.
    expect((schema.properties as Record<string, unknown>).author).toEqual(ref('schemas', 'AuthorInput'));
    expect(document.components?.schemas?.AuthorInput).toEqual({ type: 'object', properties: { name: { type: 'string', minLength: 1, description: 'Full name' } }, required: ['name'] });
    expect(Object.keys(add.responses)).toEqual(['201', '400', '401', '403', '404', '413', '500']);
    expect(add.responses['201']).toEqual({ description: 'Created', content: { 'application/json': { schema: ref('schemas', 'Book') } } });
    expect(add.security).toEqual([{ bearerAuth: ['admin'] }]);
  });

  it('documents no body when the input holds only path parameters, and the 429 and rate-limit headers of a rate-limited operation', () => {
    const publish = at('post', '/shelves/{shelf}/publish');
    expect(publish.requestBody).toBeUndefined();
    expect(publish.parameters).toEqual([{ name: 'shelf', in: 'path', required: true, schema: { type: 'string' } }]);
    expect(Object.keys(publish.responses)).toEqual(['200', '400', '404', '413', '429', '500']);
    expect(Object.keys((publish.responses['200'] as { headers: object }).headers)).toEqual(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']);
  });

  it('documents a DELETE operation with its input as query parameters, and what describeRoute() in its middleware adds', () => {
    const remove = at('delete', '/books');
    expect(remove).toMatchObject({ operationId: 'removeBooks', summary: 'Remove old books', tags: ['admin'] });
    expect(remove.requestBody).toBeUndefined();
    expect(remove.parameters).toEqual([
      { name: 'before', in: 'query', required: true, description: 'An ISO date', schema: { type: 'string' } },
      { name: 'dryRun', in: 'query', required: false, schema: { type: 'string', enum: ['yes', 'no'], default: 'no' } },
    ]);
    expect(remove.responses['200']).toEqual({ description: 'OK', content: { 'application/json': { schema: { type: 'array', items: ref('schemas', 'Book') } } } });
    expect(Object.keys(remove.responses)).toEqual(['200', '400', '409', '500']);
  });
});

describe('an operation route against its document', () => {
  it('passes the contract check: success, the 400 of its validation, 401, 403 and 404', async () => {
    const app = buildApp();
    const document = openapi(app, { onWarning: () => undefined });
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const report = await checkContract(app, document, {
      operations: {
        getBook: [{}, { params: { id: 'missing' }, status: 404 }, { query: { fields: 'none' }, status: 400 }],
        addBook: [{ headers: admin }, { headers: admin, body: { title: '' }, status: 400 }, { status: 401 }, { headers: { authorization: `Bearer ${READER_TOKEN}` }, status: 403 }],
      },
    });
    expect(report.failures).toEqual([]);
    expect(report.results.map((r) => `${r.method} ${r.url} ${r.status}`)).toEqual([
      'GET /health 200',
      'GET /books/example 200',
      'GET /books/missing 404',
      'GET /books/example?fields=none 400',
      'POST /shelves/example/books 201',
      'POST /shelves/example/books 400',
      'POST /shelves/example/books 401',
      'POST /shelves/example/books 403',
      'POST /shelves/example/publish 200',
      'DELETE /books?before=example 200',
    ]);
  });
});

describe('operation routes and the other rules of the document', () => {
  it('keeps an explicit operationId given by describeRoute(), and adds a suffix when two operations would share one', () => {
    const app = new Application();
    const a = defineOperation({ name: 'ping', input: z.object({}), output: z.string(), rest: { method: 'GET', path: '/a' }, handler: () => 'a' });
    const b = defineOperation({
      name: 'pong',
      input: z.object({}),
      output: z.string(),
      middleware: [describeRoute({ operationId: 'ping' })],
      rest: { method: 'GET', path: '/b' },
      handler: () => 'b',
    });
    app.operation(a).operation(b);
    const { warnings, onWarning } = collect();
    const document = openapi(app, { onWarning });
    expect([document.paths['/a']!.get!.operationId, document.paths['/b']!.get!.operationId]).toEqual(['ping', 'ping_2']);
    expect(warnings.map((w) => w.code)).toEqual(['duplicate-operation-id']);
  });

  it('documents a 204 operation without a response body', () => {
    const app = new Application();
    app.operation(defineOperation({ name: 'drop', input: z.object({ id: z.string() }), output: z.object({}), rest: { method: 'DELETE', path: '/things/:id', status: 204 }, handler: () => ({}) }));
    const responses = openapi(app).paths['/things/{id}']!.delete!.responses;
    expect(responses['204']).toEqual({ description: 'No Content' });
    expect(responses['200']).toBeUndefined();
  });

  it('warns about the object fields of a GET input, which a query string cannot carry', () => {
    const app = new Application();
    app.operation(
      defineOperation({ name: 'search', input: z.object({ filter: z.object({ q: z.string() }) }), output: z.string(), rest: { method: 'GET', path: '/search' }, handler: () => 'x' }),
    );
    const { warnings, onWarning } = collect();
    openapi(app, { onWarning });
    expect(warnings.map((w) => w.code)).toEqual(['nested-query-parameter']);
  });

  it('documents a named input without path fields as a reference to its component, and inlines it without them', () => {
    const NewNote = z.object({ board: z.string(), text: z.string().max(500) }).meta({ id: 'NewNote' });
    const app = new Application();
    const note = { id: z.string(), text: z.string() };
    app.operation(defineOperation({ name: 'addNote', input: NewNote, output: z.object(note), rest: { method: 'POST', path: '/notes' }, handler: () => ({ id: 'n', text: 't' }) }));
    app.operation(defineOperation({ name: 'pinNote', input: NewNote, output: z.object(note), rest: { method: 'PUT', path: '/boards/:board/pin' }, handler: () => ({ id: 'n', text: 't' }) }));
    const { warnings, onWarning } = collect();
    const document = openapi(app, { onWarning });
    expect(warnings).toEqual([]);
    expect(document.paths['/notes']!.post!.requestBody).toEqual({ required: true, content: { 'application/json': { schema: ref('schemas', 'NewNote') } } });
    expect(document.components?.schemas?.NewNote).toEqual({ type: 'object', properties: { board: { type: 'string' }, text: { type: 'string', maxLength: 500 } }, required: ['board', 'text'] });
    expect(document.paths['/boards/{board}/pin']!.put!.requestBody).toEqual({
      required: true,
      content: { 'application/json': { schema: { type: 'object', properties: { text: { type: 'string', maxLength: 500 } }, required: ['text'] } } },
    });
  });
});

describe('the README example of operations', () => {
  it('documents getBook as the README shows', () => {
    const Book = z.object({ id: z.string(), title: z.string() }).meta({ id: 'Book' });
    const getBook = defineOperation({
      name: 'getBook',
      description: 'One book by id',
      input: z.object({ id: z.string(), fields: z.enum(['all', 'short']).optional() }),
      output: Book,
      handler: async (input) => ({ id: input.id, title: 'Dune' }),
      rest: { method: 'GET', path: '/books/:id' },
    });
    const app = new Application().operation(getBook);
    const operation = openapi(app).paths['/books/{id}']?.get;
    expect(operation).toEqual({
      operationId: 'getBook',
      description: 'One book by id',
      parameters: [
        { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
        { name: 'fields', in: 'query', required: false, schema: { type: 'string', enum: ['all', 'short'] } },
      ],
      responses: {
        '200': { description: 'OK', content: { 'application/json': { schema: ref('schemas', 'Book') } } },
        '400': ref('responses', 'ValidationError'),
        '404': ref('responses', 'NotFound'),
        '500': ref('responses', 'InternalServerError'),
      },
    });
  });
});

describe('a streaming operation', () => {
  const Tick = z.object({ n: z.number().int(), at: z.string() }).meta({ id: 'Tick' });
  const ticks = defineOperation({
    name: 'ticks',
    description: 'Ticks of a clock',
    input: z.object({ every: z.coerce.number().int().positive().optional() }),
    output: Tick,
    stream: true,
    handler: async function* () {
      yield { n: 1, at: 'now' };
    },
    rest: { method: 'GET', path: '/ticks' },
  });

  it('answers 200 text/event-stream whose events each carry one output value, not a JSON body', () => {
    const app = new Application();
    app.operation(ticks);
    const doc = openapi(app);
    const operation = doc.paths['/ticks']!.get!;
    const ok = operation.responses['200'] as { description: string; content: Record<string, unknown> };
    expect(Object.keys(ok.content)).toEqual(['text/event-stream']);
    expect(ok.content['text/event-stream']).toEqual({ schema: ref('schemas', 'Tick') });
    expect(ok.description).toMatch(/server-sent events/i);
    expect(operation.parameters?.map((p) => ('name' in p ? p.name : undefined))).toEqual(['every']);
    validateOpenAPI(doc);
  });
});

describe('checkContract on a streaming operation', () => {
  const Tick = z.object({ n: z.number().int() }).meta({ id: 'ContractTick' });
  const ticks = defineOperation({
    name: 'ticks',
    input: z.object({ from: z.coerce.number().int().min(0) }),
    output: Tick,
    stream: true,
    // An endless stream: a check that read its body to the end would never finish.
    handler: async function* (input, ctx) {
      for (let n = input.from; !ctx.signal.aborted; n++) {
        yield { n };
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    rest: { method: 'GET', path: '/ticks' },
  });

  it('skips the success case of a server-sent events route, saying why, and checks the errors it documents', async () => {
    const app = new Application();
    app.operation(ticks);
    const report = await checkContract(app, openapi(app), { operations: { ticks: [{}, { query: { from: -1 }, status: 400 }] } });
    expect(report.results.map((r) => [r.case, r.skipped, r.status, r.skipReason])).toEqual([
      [1, true, undefined, 'a stream of server-sent events: check it with an event-stream client'],
      [2, false, 400, undefined],
    ]);
    expect(report.ok).toBe(true);
    expect(report.summary).toContain('(skipped: a stream of server-sent events');
  });
});
