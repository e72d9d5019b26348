import { Application, ROUTE_META, Router } from '@fw/core';
import { z } from 'zod';
import { describeRoute, ERROR_COMPONENTS, openapi, type OpenAPIDocument, type OperationObject } from '../src/index.js';
import { buildTestApp, collect, validateOpenAPI } from './helpers.js';

const ref = (kind: 'schemas' | 'responses' | 'headers', name: string) => ({ $ref: `#/components/${kind}/${name}` });
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

describe('the document of the test route table', () => {
  let document: OpenAPIDocument;
  const { warnings, onWarning } = collect();

  beforeAll(() => {
    document = openapi(buildTestApp().app, { info: { title: 'Bookstore', version: '2.1.0', description: 'Test API' }, onWarning });
  });

  const op = (method: string, path: string): OperationObject => {
    const found = (document.paths[path] as Record<string, OperationObject> | undefined)?.[method];
    if (found === undefined) throw new Error(`${method} ${path} is not documented`);
    return found;
  };

  it('is valid OpenAPI 3.1 according to @seriousme/openapi-schema-validator', () => {
    expect(validateOpenAPI(document)).toEqual([{ valid: true, version: '3.1', errors: null }]);
    expect(document.openapi).toBe('3.1.0');
    expect(document.info).toEqual({ title: 'Bookstore', version: '2.1.0', description: 'Test API' });
    expect(warnings).toEqual([]);
  });

  it('has exactly one operation per route, with `:param` written `{param}`, HEAD and OPTIONS of all() left out, hidden routes left out', () => {
    const operations = Object.entries(document.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`));
    expect(operations).toEqual([
      'GET /health',
      'GET /books',
      'POST /books',
      'GET /books/{id}',
      'DELETE /books/{id}',
      'GET /authors/{authorId}/books/{bookId}',
      'GET /echo',
      'POST /echo',
      'PUT /echo',
      'PATCH /echo',
      'DELETE /echo',
      'GET /api/v1/books',
      'GET /api/v2/books/{id}',
    ]);
  });

  it('derives stable, unique operationIds from method and path', () => {
    const ids = Object.values(document.paths).flatMap((item) => Object.values(item as Record<string, OperationObject>).map((o) => o.operationId));
    expect(ids).toEqual([
      'getHealth',
      'getBooks',
      'postBooks',
      'getBooksById',
      'deleteBooksById',
      'getAuthorsByAuthorIdBooksByBookId',
      'getEcho',
      'postEcho',
      'putEcho',
      'patchEcho',
      'deleteEcho',
      'getApiV1Books',
      'getApiV2BooksById',
    ]);
  });

  it('documents a route with no schema: no parameters, an undocumented 2XX and the 500', () => {
    expect(op('get', '/health')).toEqual({
      operationId: 'getHealth',
      responses: { '2XX': { description: 'Success (the response body is not documented)' }, '500': ref('responses', 'InternalServerError') },
    });
  });

  it('turns the query schema into query parameters: required/optional, defaults, enums, arrays, descriptions', () => {
    const list = op('get', '/books');
    expect(list.summary).toBe('List books');
    expect(list.description).toBe('Lists the books, a page at a time.');
    expect(list.tags).toEqual(['books']);
    expect(list.parameters).toEqual([
      { name: 'page', in: 'query', required: false, description: 'Page number, from 1', schema: { default: 1, type: 'integer', minimum: 1, maximum: MAX_SAFE } },
      { name: 'limit', in: 'query', required: false, schema: { default: 20, type: 'integer', minimum: 1, maximum: 100 } },
      { name: 'format', in: 'query', required: false, schema: { type: 'string', enum: ['hardcover', 'paperback', 'ebook'] } },
      { name: 'tag', in: 'query', required: false, schema: { type: 'array', items: { type: 'string' } } },
      { name: 'q', in: 'query', required: false, description: 'Search in titles', schema: { type: 'string', minLength: 2 } },
    ]);
    expect(list.responses).toEqual({
      '200': { description: 'OK', content: { 'application/json': { schema: { type: 'object', properties: { items: { type: 'array', items: ref('schemas', 'Book') }, page: { type: 'integer', minimum: -MAX_SAFE, maximum: MAX_SAFE }, total: { type: 'integer', minimum: -MAX_SAFE, maximum: MAX_SAFE } }, required: ['items', 'page', 'total'], additionalProperties: false } } } },
      '400': ref('responses', 'ValidationError'),
      '500': ref('responses', 'InternalServerError'),
    });
  });

  it('turns the body schema into a required JSON request body (input side: defaulted fields optional), with nested and shared schemas as components', () => {
    const create = op('post', '/books');
    expect(create.requestBody).toEqual({
      required: true,
      content: {
        'application/json': {
          schema: {
            type: 'object',
            properties: {
              title: { type: 'string', minLength: 1, maxLength: 200 },
              author: ref('schemas', 'AuthorInput'),
              format: { default: 'paperback', type: 'string', enum: ['hardcover', 'paperback', 'ebook'] },
              tags: { default: [], maxItems: 10, type: 'array', items: { type: 'string', minLength: 1 } },
              price: { type: 'number', exclusiveMinimum: 0 },
              isbn: { type: 'string', pattern: '^\\d{13}$' },
            },
            required: ['title', 'author', 'price'],
          },
        },
      },
    });
    // The same zod schema (.meta({ id: 'Author' })) as a request part and inside a response.
    expect(document.components?.schemas?.AuthorInput).toEqual({
      type: 'object',
      properties: { name: { type: 'string', minLength: 1, description: 'Full name' }, born: { type: 'integer', minimum: 1000, maximum: 2100 } },
      required: ['name'],
    });
    expect(document.components?.schemas?.Author).toEqual({
      type: 'object',
      properties: { name: { type: 'string', minLength: 1, description: 'Full name' }, born: { type: 'integer', minimum: 1000, maximum: 2100 } },
      required: ['name'],
      additionalProperties: false,
    });
    expect(document.components?.schemas?.Book).toEqual({
      type: 'object',
      properties: {
        id: { type: 'integer', exclusiveMinimum: 0, maximum: MAX_SAFE },
        title: { type: 'string' },
        author: ref('schemas', 'Author'),
        format: { type: 'string', enum: ['hardcover', 'paperback', 'ebook'] },
        tags: { type: 'array', items: { type: 'string' } },
        price: { type: 'number', exclusiveMinimum: 0 },
      },
      required: ['id', 'title', 'author', 'format', 'tags', 'price'],
      additionalProperties: false,
    });
  });

  it('marks routes guarded by authenticate/requireRole with the bearer security requirement (roles as its list) and 401/403', () => {
    const create = op('post', '/books');
    expect(create.security).toEqual([{ bearerAuth: ['admin'] }]);
    expect(create.responses).toEqual({
      '2XX': { description: 'Success (the response body is not documented)' },
      '400': ref('responses', 'ValidationError'),
      '401': ref('responses', 'Unauthorized'),
      '403': ref('responses', 'Forbidden'),
      '413': ref('responses', 'PayloadTooLarge'),
      '500': ref('responses', 'InternalServerError'),
    });
    expect(document.components?.securitySchemes).toEqual({ bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } });
    expect(op('get', '/books').security).toBeUndefined();
  });

  it('documents path parameters from the params schema (with its examples), and as plain strings without one', () => {
    expect(op('get', '/books/{id}').parameters).toEqual([
      { name: 'id', in: 'path', required: true, example: 1, schema: { type: 'integer', exclusiveMinimum: 0, maximum: MAX_SAFE, examples: [1] } },
    ]);
    expect(op('get', '/authors/{authorId}/books/{bookId}')).toEqual({
      operationId: 'getAuthorsByAuthorIdBooksByBookId',
      parameters: [
        { name: 'authorId', in: 'path', required: true, schema: { type: 'string' } },
        { name: 'bookId', in: 'path', required: true, schema: { type: 'string' } },
      ],
      responses: { '2XX': { description: 'Success (the response body is not documented)' }, '404': ref('responses', 'NotFound'), '500': ref('responses', 'InternalServerError') },
    });
  });

  it('documents a rate-limited route with 429, its headers, a body-less 204, and deprecated', () => {
    const remove = op('delete', '/books/{id}');
    expect(remove.deprecated).toBe(true);
    expect(remove.responses).toEqual({
      '204': {
        description: 'No Content',
        headers: {
          'X-RateLimit-Limit': ref('headers', 'X-RateLimit-Limit'),
          'X-RateLimit-Remaining': ref('headers', 'X-RateLimit-Remaining'),
          'X-RateLimit-Reset': ref('headers', 'X-RateLimit-Reset'),
        },
      },
      '400': ref('responses', 'ValidationError'),
      '401': ref('responses', 'Unauthorized'),
      '403': ref('responses', 'Forbidden'),
      '404': ref('responses', 'NotFound'),
      '429': ref('responses', 'TooManyRequests'),
      '500': ref('responses', 'InternalServerError'),
    });
    expect(document.components?.responses?.TooManyRequests).toEqual({
      description: 'Too many requests in the current window; retry after `Retry-After` seconds.',
      headers: {
        'Retry-After': ref('headers', 'Retry-After'),
        'X-RateLimit-Limit': ref('headers', 'X-RateLimit-Limit'),
        'X-RateLimit-Remaining': ref('headers', 'X-RateLimit-Remaining'),
        'X-RateLimit-Reset': ref('headers', 'X-RateLimit-Reset'),
      },
      content: { 'application/json': { schema: ref('schemas', 'ErrorBody') } },
    });
  });

  it('documents the validation error with the exact body validate() sends, and the plain error body', () => {
    expect(document.components?.responses?.[ERROR_COMPONENTS.validationError]).toEqual({
      description: 'The request did not validate (`details.errors` lists every issue), or its body could not be parsed.',
      content: { 'application/json': { schema: { anyOf: [ref('schemas', 'ValidationErrorBody'), ref('schemas', 'ErrorBody')] } } },
    });
    const body = document.components?.schemas?.ValidationErrorBody as { properties: Record<string, unknown>; required: string[] };
    expect(body.required).toEqual(['error', 'message', 'code', 'details']);
    expect(body.properties.error).toEqual({ const: true });
    expect(body.properties.message).toEqual({ const: 'Validation failed' });
    expect(body.properties.code).toEqual({ const: 400 });
    expect(body.properties.details).toMatchObject({
      type: 'object',
      required: ['errors'],
      properties: { errors: { type: 'array', items: { type: 'object', required: ['field', 'message', 'code'], properties: { field: { type: 'string' }, message: { type: 'string' }, code: { type: 'string' } } } } },
    });
    expect(document.components?.schemas?.ErrorBody).toMatchObject({
      type: 'object',
      required: ['error', 'message', 'code'],
      properties: { error: { const: true }, message: { type: 'string' }, code: { type: 'integer', minimum: 400, maximum: 599 }, details: {} },
    });
  });

  it('lists the tags routes use', () => {
    expect(document.tags).toEqual([{ name: 'books' }]);
  });
});

describe('version prefixes', () => {
  it('documents only the routes under a prefix, with the prefix moved into servers', () => {
    const { app } = buildTestApp();
    const v2 = openapi(app, { prefix: '/api/v2', info: { title: 'v2', version: '2.0.0' } });
    expect(Object.keys(v2.paths)).toEqual(['/books/{id}']);
    expect(v2.servers).toEqual([{ url: '/api/v2' }]);
    expect(v2.paths['/books/{id}']!.get!.operationId).toBe('getBooksById');
    const withServers = openapi(app, { prefix: '/api/v1/', servers: [{ url: 'https://api.example.com/' }] });
    expect(withServers.servers).toEqual([{ url: 'https://api.example.com/api/v1' }]);
    expect(Object.keys(withServers.paths)).toEqual(['/books']);
    expect(validateOpenAPI(v2, withServers).map((r) => r.valid)).toEqual([true, true]);
  });

  it('keeps full paths with stripPrefix: false, and does not take /api/v10 for /api/v1', () => {
    const app = new Application();
    app.get('/api/v1/a', (ctx) => ctx.json(1));
    app.get('/api/v10/b', (ctx) => ctx.json(1));
    app.get('/api/v1', (ctx) => ctx.json(1));
    const doc = openapi(app, { prefix: '/api/v1', stripPrefix: false, servers: [{ url: 'https://x.test' }] });
    expect(Object.keys(doc.paths)).toEqual(['/api/v1/a', '/api/v1']);
    expect(doc.servers).toEqual([{ url: 'https://x.test' }]);
    expect(Object.keys(openapi(app, { prefix: '/api/v1' }).paths)).toEqual(['/a', '/']);
  });
});

describe('route handling', () => {
  it('documents HEAD registered alone, and leaves out HEAD registered together with GET', () => {
    const app = new Application();
    app.route({ method: ['GET', 'HEAD'], path: '/both', handler: (ctx) => ctx.json(1) });
    app.head('/only-head', (ctx) => ctx.status(200));
    app.options('/opts', (ctx) => ctx.status(204));
    const doc = openapi(app);
    expect(Object.keys(doc.paths['/both']!)).toEqual(['get']);
    expect(Object.keys(doc.paths['/only-head']!)).toEqual(['head']);
    expect(Object.keys(doc.paths['/opts']!)).toEqual(['options']);
  });

  it('warns about differently named path parameters of one path', () => {
    const app = new Application();
    app.get('/users/:id', (ctx) => ctx.json(1));
    // The same method and path shape cannot be registered twice, so no route is shadowed.
    expect(() => app.get('/users/:userId', (ctx) => ctx.json(2))).toThrow('GET /users/:userId is already registered');
    app.delete('/users/:userId', (ctx) => ctx.status(204));
    const { warnings, onWarning } = collect();
    const doc = openapi(app, { onWarning });
    expect(Object.keys(doc.paths)).toEqual(['/users/{id}']);
    expect(doc.paths['/users/{id}']!.delete!.parameters).toEqual([{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }]);
    expect(warnings.map((w) => [w.code, w.method, w.path])).toEqual([['path-param-names', 'DELETE', '/users/:userId']]);
    expect(validateOpenAPI(doc)[0]!.valid).toBe(true);
  });

  it('maps a params schema by position when the documented names differ', () => {
    const app = new Application();
    app.get('/users/:id', (ctx) => ctx.json(1));
    app.route({ method: 'PUT', path: '/users/:userId', handler: (ctx) => ctx.json(1), schema: { params: z.object({ userId: z.uuid() }) } });
    const doc = openapi(app, { onWarning: () => undefined });
    expect(doc.paths['/users/{id}']!.put!.parameters).toEqual([
      { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid', pattern: expect.any(String) } },
    ]);
  });

  it('keeps operationIds unique: explicit ones from meta, collisions suffixed', () => {
    const app = new Application();
    app.get('/a-b', (ctx) => ctx.json(1));
    app.get('/a/b', (ctx) => ctx.json(1));
    app.route({ method: 'GET', path: '/x', handler: (ctx) => ctx.json(1), meta: { operationId: 'listThings' } });
    app.route({ method: 'GET', path: '/y', handler: (ctx) => ctx.json(1), meta: { operationId: 'listThings' } });
    const { warnings, onWarning } = collect();
    const doc = openapi(app, { onWarning });
    expect([doc.paths['/a-b']!.get!.operationId, doc.paths['/a/b']!.get!.operationId, doc.paths['/x']!.get!.operationId, doc.paths['/y']!.get!.operationId]).toEqual([
      'getAB',
      'getAB_2',
      'listThings',
      'listThings_2',
    ]);
    expect(warnings.map((w) => w.code)).toEqual(['duplicate-operation-id']);
  });

  it('reads auth and rate-limit markers that middleware carries under ROUTE_META, router-wide and global', () => {
    const app = new Application();
    const limited = Object.assign((_ctx: unknown, next: () => Promise<void>) => next(), { [ROUTE_META]: { rateLimited: true } });
    const optionalAuth = Object.assign((_ctx: unknown, next: () => Promise<void>) => next(), { [ROUTE_META]: { authOptional: true } });
    app.use(limited);
    app.use(optionalAuth);
    const admin = new Router();
    admin.use(Object.assign((_ctx: unknown, next: () => Promise<void>) => next(), { [ROUTE_META]: { auth: true } }));
    admin.get('/stats', (ctx) => ctx.json(1));
    app.use('/admin', admin);
    app.get('/public', (ctx) => ctx.json(1));
    const doc = openapi(app);
    const stats = doc.paths['/admin/stats']!.get!;
    expect(stats.security).toEqual([{ bearerAuth: [] }]);
    expect(Object.keys(stats.responses)).toEqual(['401', '403', '429', '500', '2XX']);
    const open = doc.paths['/public']!.get!;
    // Optional authentication: with a token or without; a bad token is still a 401.
    expect(open.security).toEqual([{ bearerAuth: [] }, {}]);
    expect(Object.keys(open.responses)).toEqual(['401', '429', '500', '2XX']);
  });

  it('uses the given security schemes and requirement', () => {
    const app = new Application();
    app.route({ method: 'GET', path: '/me', handler: (ctx) => ctx.json(1), meta: { auth: true } });
    const doc = openapi(app, { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } } });
    expect(doc.paths['/me']!.get!.security).toEqual([{ apiKey: [] }]);
    expect(doc.components?.securitySchemes).toEqual({ apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } });
    const custom = openapi(app, { security: [{ oauth: ['read'] }], securitySchemes: { oauth: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: '/token', scopes: { read: 'Read' } } } } } });
    expect(custom.paths['/me']!.get!.security).toEqual([{ oauth: ['read'] }]);
    expect(validateOpenAPI(doc, custom).map((r) => r.valid)).toEqual([true, true]);
  });

  it('leaves out the error responses with errorResponses: false', () => {
    const { app } = buildTestApp();
    const doc = openapi(app, { errorResponses: false });
    expect(doc.paths['/books']!.post!.responses).toEqual({ '2XX': { description: 'Success (the response body is not documented)' } });
    expect(doc.components?.responses).toBeUndefined();
    expect(Object.keys(doc.components?.schemas ?? {})).toEqual(['Book', 'Author', 'AuthorInput']);
  });

  it('takes responses as schemas, null, descriptors, or plain JSON Schema; meta.responses too; bad keys are warned about', () => {
    const app = new Application();
    app.route({
      method: 'GET',
      path: '/report',
      handler: (ctx) => ctx.text('x'),
      schema: {
        responses: {
          200: { description: 'The report as CSV', schema: { type: 'string' }, contentType: 'text/csv', headers: { 'Content-Disposition': { schema: { type: 'string' } } } },
          304: null,
        },
      },
      meta: { responses: { 410: { type: 'object', properties: { gone: { type: 'boolean' } } }, nope: z.string() }, summary: 'Report' },
    });
    const { warnings, onWarning } = collect();
    const doc = openapi(app, { onWarning, errorResponses: false });
    expect(doc.paths['/report']!.get!.responses).toEqual({
      '200': { description: 'The report as CSV', headers: { 'Content-Disposition': { schema: { type: 'string' } } }, content: { 'text/csv': { schema: { type: 'string' } } } },
      '304': { description: 'Not Modified' },
      '410': { description: 'Gone', content: { 'application/json': { schema: { type: 'object', properties: { gone: { type: 'boolean' } } } } } },
    });
    expect(warnings.map((w) => w.code)).toEqual(['unconvertible-schema']);
    expect(warnings[0]!.message).toContain('"nope"');
  });

  it('merges meta.openapi into the operation as an escape hatch', () => {
    const app = new Application();
    app.route({ method: 'GET', path: '/x', handler: (ctx) => ctx.json(1), meta: { openapi: { 'x-internal': true, externalDocs: { url: 'https://example.com/x' } } } });
    const doc = openapi(app, { errorResponses: false });
    expect(doc.paths['/x']!.get).toMatchObject({ 'x-internal': true, externalDocs: { url: 'https://example.com/x' } });
  });

  it('accepts the routes themselves, and a Router', () => {
    const router = new Router({ prefix: '/r' });
    router.get('/:id', (ctx) => ctx.json(1));
    expect(Object.keys(openapi(router).paths)).toEqual(['/r/{id}']);
    expect(Object.keys(openapi(router.getRoutes()).paths)).toEqual(['/r/{id}']);
  });

  it('documents an empty app as a valid document with no paths', () => {
    const doc = openapi(new Application());
    expect(doc).toEqual({ openapi: '3.1.0', info: { title: 'API', version: '1.0.0' }, paths: {} });
    expect(validateOpenAPI(doc)[0]!.valid).toBe(true);
  });
});

describe('error statuses a route lists (describeRoute errors / meta.errors)', () => {
  const Order = z.object({ id: z.string() });

  it('documents each listed status with the framework error body, its description, and the shared component for statuses fw already knows', () => {
    const app = new Application();
    app.post('/orders', describeRoute({ responses: { 201: Order }, errors: { 409: 'Not enough stock', 404: 'A line names an unknown book' } }), (ctx) => ctx.json({ id: 'o1' }, 201));
    app.post('/books', describeRoute({ errors: [409] }), (ctx) => ctx.json({}, 201));
    app.route({ method: 'DELETE', path: '/books', handler: (ctx) => ctx.status(204), meta: { errors: [423] } });
    const doc = openapi(app, { onWarning: () => undefined });
    expect(doc.paths['/orders']!.post!.responses).toEqual({
      '201': { description: 'Created', content: { 'application/json': { schema: expect.any(Object) } } },
      '404': { ...ref('responses', 'NotFound'), description: 'A line names an unknown book' },
      '409': { description: 'Not enough stock', content: { 'application/json': { schema: ref('schemas', 'ErrorBody') } } },
      '500': ref('responses', 'InternalServerError'),
    });
    expect(doc.paths['/books']!.post!.responses['409']).toEqual({ description: 'Conflict', content: { 'application/json': { schema: ref('schemas', 'ErrorBody') } } });
    expect(doc.paths['/books']!.delete!.responses['423']).toEqual({ description: 'Locked', content: { 'application/json': { schema: ref('schemas', 'ErrorBody') } } });
    expect(doc.components?.responses?.NotFound).toBeDefined();
    expect(validateOpenAPI(doc)[0]!.valid).toBe(true);
  });

  it('documents listed statuses with errorResponses: false too, and an explicit response for the same status wins', () => {
    const app = new Application();
    const Conflict = z.object({ error: z.literal(true), message: z.string(), code: z.literal(409), existing: z.string() });
    app.post('/books', describeRoute({ responses: { 201: Order, 409: Conflict }, errors: { 409: 'Duplicate', 429: 'Slow down' } }), (ctx) => ctx.json({ id: 'b1' }, 201));
    const responses = openapi(app, { errorResponses: false, onWarning: () => undefined }).paths['/books']!.post!.responses;
    expect(Object.keys(responses)).toEqual(['201', '409', '429']);
    expect(responses['409']).toMatchObject({ description: 'Conflict', content: { 'application/json': { schema: expect.objectContaining({ required: expect.arrayContaining(['existing']) }) } } });
    expect(responses['429']).toEqual({ ...ref('responses', 'TooManyRequests'), description: 'Slow down' });
  });

  it('warns about a listed status that is not an error status and leaves it out', () => {
    const app = new Application();
    app.get('/x', describeRoute({ errors: [200, 'teapot', 418] as unknown as number[] }), (ctx) => ctx.json(1));
    const { warnings, onWarning } = collect();
    const responses = openapi(app, { onWarning }).paths['/x']!.get!.responses;
    expect(Object.keys(responses)).toEqual(['418', '500', '2XX']);
    expect(warnings.map((w) => [w.code, w.message])).toEqual([
      ['invalid-error-status', 'Error status 200 of GET /x is not a status from 400 to 599; it is left out'],
      ['invalid-error-status', 'Error status teapot of GET /x is not a status from 400 to 599; it is left out'],
    ]);
  });
});

it('the validator used here rejects a broken document (so the validity checks can fail)', () => {
  const doc = openapi(buildTestApp().app);
  const broken = structuredClone(doc) as unknown as { info: Record<string, unknown>; paths: Record<string, Record<string, Record<string, unknown>>> };
  delete broken.info.version;
  broken.paths['/health']!.get!.responses = { ok: { description: 'bad key' } };
  const [result] = validateOpenAPI(broken as unknown as OpenAPIDocument);
  expect(result!.valid).toBe(false);
});
