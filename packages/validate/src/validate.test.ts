import { HTTPError, ROUTE_SCHEMA, ValidationError, type Context } from '@fw/core';
import { z } from 'zod';
import { z as zod3 } from 'zod3';
import { failure, send, serve, type Served } from '../test/helpers.js';
import { validate } from './validate.js';

const Address = z.object({ street: z.string(), city: z.string().min(2) });
const Order = z.object({
  name: z.string().trim().toLowerCase(),
  age: z.coerce.number().int().min(0),
  role: z.enum(['user', 'admin']).default('user'),
  tags: z.array(z.string()).default([]),
  address: Address.optional(),
  items: z.array(z.object({ sku: z.string(), qty: z.number().int().positive() })).optional(),
  email: z.string().email().optional(),
});

const ListQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
  limit: z.coerce.number().int().max(100).default(20),
  sort: z.enum(['asc', 'desc']).optional(),
  tags: z.union([z.string(), z.array(z.string())]).transform((v) => (Array.isArray(v) ? v : [v])).optional(),
  active: z.enum(['true', 'false']).transform((v) => v === 'true').optional(),
});

const ItemParams = z.object({ id: z.coerce.number().int().positive(), slug: z.string().transform((s) => s.toUpperCase()) });

/** Echoes what the handler saw, with the runtime types, so tests see the replacement. */
function echo(ctx: Context): void {
  const query = ctx.query as Record<string, unknown>;
  ctx.json({
    body: ctx.body,
    query,
    params: ctx.params,
    types: {
      age: typeof (ctx.body as { age?: unknown } | undefined)?.age,
      page: typeof query.page,
      id: typeof (ctx.params as { id?: unknown }).id,
    },
  });
}

describe('validate() with zod 4 over HTTP', () => {
  let server: Served;
  let asyncCalls = 0;

  beforeAll(async () => {
    server = await serve((app) => {
      app.post('/orders', validate({ body: Order }), echo);
      app.get(
        '/orders',
        (ctx, next) => {
          ctx.state.rawQueryPrototype = Object.getPrototypeOf(ctx.query) === null ? 'null' : 'object';
          return next();
        },
        validate({ query: ListQuery }),
        (ctx) => ctx.json({ query: ctx.query, rawQueryPrototype: ctx.state.rawQueryPrototype, pageType: typeof (ctx.query as { page?: unknown }).page }),
      );
      app.get('/items/:id/:slug', validate({ params: ItemParams }), echo);
      app.post('/items/:id/:slug', validate({ body: Order, query: ListQuery, params: ItemParams }), echo);
      app.post('/root', validate({ body: z.object({ a: z.string() }) }), echo);
      app.post(
        '/signup',
        validate({
          body: z.object({
            username: z.string().refine(async (name) => {
              asyncCalls++;
              await new Promise((resolve) => setTimeout(resolve, 5));
              return name !== 'taken';
            }, 'Username is taken'),
            nick: z.string().transform(async (nick) => `~${nick}`),
          }),
        }),
        echo,
      );
      app.post(
        '/throws',
        validate({
          body: z.object({
            a: z.string().refine(() => {
              throw new Error('bug in a refinement');
            }),
          }),
        }),
        echo,
      );
      app.post(
        '/conflict',
        validate({
          body: z.object({
            email: z.string().refine(async () => {
              throw new HTTPError(409, 'Email already registered');
            }),
          }),
        }),
        echo,
      );
      app.post(
        '/atomic',
        async (ctx, next) => {
          try {
            await next();
          } catch (err) {
            ctx.json({ body: ctx.body, query: { ...(ctx.query as object) }, params: ctx.params, status: (err as HTTPError).statusCode }, 400);
          }
        },
        validate({ body: z.object({ n: z.coerce.number() }), query: z.object({ q: z.coerce.number() }) }),
        echo,
      );
    });
  });

  afterAll(() => server.close());

  it('replaces the body with coerced values, defaults and transforms', async () => {
    const res = await send(server.url, '/orders', { json: { name: '  Ada LOVELACE ', age: '36' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      body: { name: 'ada lovelace', age: 36, role: 'user', tags: [] },
      query: {},
      params: {},
      types: { age: 'number', page: 'undefined', id: 'undefined' },
    });
  });

  it('coerces a URL-encoded body, where every value arrives as a string', async () => {
    const res = await send(server.url, '/orders', { form: { name: 'Grace', age: '85', role: 'admin' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ body: { name: 'grace', age: 85, role: 'admin', tags: [] }, types: { age: 'number' } });
  });

  it('replaces the query (a null-prototype object) with coerced values, defaults and transforms', async () => {
    const res = await send(server.url, '/orders?page=3&tags=a&tags=b&active=true');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ query: { page: 3, limit: 20, tags: ['a', 'b'], active: true }, rawQueryPrototype: 'null', pageType: 'number' });
    const single = await send(server.url, '/orders?tags=solo');
    expect(single.body).toMatchObject({ query: { page: 1, limit: 20, tags: ['solo'] } });
  });

  it('replaces the route params with coerced and transformed values', async () => {
    const res = await send(server.url, '/items/42/blue-shirt');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ params: { id: 42, slug: 'BLUE-SHIRT' }, types: { id: 'number' } });
  });

  it('answers 400 with the exact error body, as JSON', async () => {
    const res = await send(server.url, '/orders', { json: { name: 'Ada', age: -1 } });
    expect(res.status).toBe(400);
    expect(res.contentType).toBe('application/json; charset=utf-8');
    expect(res.body).toEqual({
      error: true,
      message: 'Validation failed',
      code: 400,
      details: { errors: [{ field: 'body.age', message: 'Too small: expected number to be >=0', code: 'too_small' }] },
    });
  });

  it('joins nested paths with dots, array indexes included', async () => {
    const res = await send(server.url, '/orders', {
      json: { name: 'Ada', age: 3, address: { street: 'Main' }, items: [{ sku: 'a', qty: 1 }, { sku: 'b', qty: 0 }] },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      failure([
        { field: 'body.address.city', code: 'invalid_type' },
        { field: 'body.items.1.qty', code: 'too_small' },
      ]),
    );
  });

  it('reports a failure of the whole body under the field "body"', async () => {
    const asText = await send(server.url, '/root', { text: 'just text' });
    expect(asText.status).toBe(400);
    expect(asText.body).toEqual(failure([{ field: 'body', code: 'invalid_type' }]));
    const none = await send(server.url, '/root', { method: 'POST' });
    expect(none.body).toEqual(failure([{ field: 'body', code: 'invalid_type' }]));
    const array = await send(server.url, '/root', { json: [1, 2] });
    expect(array.body).toEqual(failure([{ field: 'body', code: 'invalid_type' }]));
  });

  it('passes zod 4 issue codes through as they are (invalid_format for a bad email)', async () => {
    const res = await send(server.url, '/orders', { json: { name: 'Ada', age: 1, email: 'not-an-email' } });
    expect(res.body).toEqual(failure([{ field: 'body.email', message: 'Invalid email address', code: 'invalid_format' }]));
  });

  it('validates every part and reports all their errors in one response, body first', async () => {
    const res = await send(server.url, '/items/0/x?page=0&limit=500', { json: { name: 'Ada', age: 'old' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      failure([
        { field: 'body.age', code: 'invalid_type' },
        { field: 'query.page', code: 'too_small' },
        { field: 'query.limit', code: 'too_big' },
        { field: 'params.id', code: 'too_small' },
      ]),
    );
  });

  it('replaces all three parts when they all pass', async () => {
    const res = await send(server.url, '/items/7/tee?limit=5', { json: { name: 'Ada', age: '1' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      body: { name: 'ada', age: 1, role: 'user' },
      query: { page: 1, limit: 5 },
      params: { id: 7, slug: 'TEE' },
    });
  });

  it('leaves the context untouched when any part fails', async () => {
    const res = await send(server.url, '/atomic?q=nope', { json: { n: '5' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ body: { n: '5' }, query: { q: 'nope' }, params: {}, status: 400 });
  });

  it('runs async refinements and transforms', async () => {
    const calls = asyncCalls;
    const ok = await send(server.url, '/signup', { json: { username: 'ada', nick: 'countess' } });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ body: { username: 'ada', nick: '~countess' } });
    const taken = await send(server.url, '/signup', { json: { username: 'taken', nick: 'x' } });
    expect(taken.status).toBe(400);
    expect(taken.body).toEqual(failure([{ field: 'body.username', message: 'Username is taken', code: 'custom' }]));
    // One refinement call per request: the schema is not run twice.
    expect(asyncCalls - calls).toBe(2);
  });

  it('answers 500 without details when a schema throws, and logs the cause', async () => {
    const res = await send(server.url, '/throws', { json: { a: 'x' } });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: true, message: 'Internal Server Error', code: 500 });
    const logged = server.logged.at(-1)?.error as HTTPError;
    expect(logged).toBeInstanceOf(HTTPError);
    expect(logged.message).toBe('The body schema threw while validating: bug in a refinement');
    expect((logged.cause as Error).message).toBe('bug in a refinement');
  });

  it('keeps the status of an HTTPError thrown inside a refinement', async () => {
    const res = await send(server.url, '/conflict', { json: { email: 'a@b.co' } });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: true, message: 'Email already registered', code: 409 });
  });
});

describe('validate() refusing input', () => {
  it('throws a ValidationError, which every protocol recognises by its class', async () => {
    const check = validate({ query: z.object({ page: z.coerce.number() }) });
    const thrown = await check({ query: { page: 'x' } } as unknown as Context, () => Promise.resolve()).catch((err: unknown) => err);
    expect(thrown).toBeInstanceOf(ValidationError);
    expect(thrown).toMatchObject({ statusCode: 400, message: 'Validation failed', details: { errors: [{ field: 'query.page', code: 'invalid_type' }] } });
  });
});

describe('validate() as global middleware', () => {
  let server: Served;

  beforeAll(async () => {
    server = await serve((app) => {
      app.use(validate({ body: z.object({ token: z.string() }).optional(), query: z.object({ v: z.coerce.number().default(1) }) }));
      app.post('/things', echo);
      app.get('/things', echo);
    });
  });

  afterAll(() => server.close());

  it('reads the body itself before the route has parsed it', async () => {
    const res = await send(server.url, '/things?v=2', { json: { token: 'abc', extra: true } });
    expect(res.status).toBe(200);
    // zod strips the unknown key: the handler sees the validated body, not the raw one.
    expect(res.body).toMatchObject({ query: { v: 2 } });
    expect((res.body as { body: unknown }).body).toEqual({ token: 'abc' });
  });

  it('rejects a bad body before any route runs', async () => {
    const res = await send(server.url, '/things', { json: { token: 5 } });
    expect(res.body).toEqual(failure([{ field: 'body.token', code: 'invalid_type' }]));
  });

  it('leaves malformed JSON to the framework body parser (400, not a validation error)', async () => {
    const res = await fetch(`${server.url}/things`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"token":' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).not.toBe('Validation failed');
  });

  it('applies query defaults to requests without a body', async () => {
    const res = await send(server.url, '/things');
    expect(res.body).toMatchObject({ query: { v: 1 } });
  });
});

describe('validate() construction', () => {
  it('carries its schemas under ROUTE_SCHEMA so getRoutes() reports them', async () => {
    const body = z.object({ a: z.string() });
    const query = z.object({ b: z.string() });
    const mw = validate({ body, query });
    expect(mw[ROUTE_SCHEMA]).toEqual({ body, query });
    const server = await serve((app) => app.post('/r', mw, echo));
    try {
      expect(server.app.getRoutes()[0]?.schema).toEqual({ body, query });
    } finally {
      await server.close();
    }
  });

  it('refuses a part that is not a schema', () => {
    expect(() => validate({ body: { type: 'object' } as never })).toThrow(/body schema is neither a zod schema nor a Standard Schema/);
    expect(() => validate({ query: null as never })).toThrow(TypeError);
  });

  it('refuses an unknown part name, catching typos', () => {
    expect(() => validate({ bdy: z.string() } as never)).toThrow('validate(): unknown part "bdy"; use body, query or params');
  });

  it('refuses, when it is made, a params or query field that never accepts the string it arrives as', () => {
    expect(() => validate({ params: z.object({ id: z.number() }) })).toThrow(
      'validate(): params.id: z.number() never accepts the string a path parameter is, so every request would be refused with 400 (use z.coerce.number())',
    );
    expect(() => validate({ query: z.object({ q: z.string(), all: z.boolean().optional() }) })).toThrow(
      'validate(): query.all: z.boolean() never accepts the string a query parameter is, so every request would be refused with 400 (use z.stringbool())',
    );
    expect(() => validate({ query: z.object({ page: z.int().default(1) }) })).toThrow(/query\.page: z\.number\(\) never accepts/);
    expect(() => validate({ params: zod3.object({ id: zod3.number().int() }) })).toThrow(/params\.id: z\.number\(\) never accepts the string a path parameter is.*\(use z\.coerce\.number\(\)\)/);
    expect(() => validate({ query: zod3.object({ n: zod3.number().optional().refine((n) => n !== 0) }) })).toThrow(/query\.n: z\.number\(\)/);
  });

  it('accepts params and query fields that read strings, and numbers in the body', () => {
    expect(() => validate({ params: z.object({ id: z.coerce.number().int(), slug: z.string() }) })).not.toThrow();
    expect(() => validate({ query: z.object({ page: z.coerce.number().default(1), all: z.stringbool().optional(), sort: z.enum(['asc', 'desc']).optional() }) })).not.toThrow();
    expect(() => validate({ query: z.object({ n: z.preprocess((v) => Number(v), z.number()) }) })).not.toThrow();
    expect(() => validate({ params: zod3.object({ id: zod3.coerce.number(), n: zod3.preprocess(Number, zod3.number()) }) })).not.toThrow();
    expect(() => validate({ body: z.object({ n: z.number(), ok: z.boolean() }) })).not.toThrow();
  });

  it('refuses something that is not a schema object', () => {
    expect(() => validate(undefined as never)).toThrow(TypeError);
    expect(() => validate([] as never)).toThrow(TypeError);
  });

  it('returns a named middleware function', () => {
    expect(validate({ body: z.string() }).name).toBe('validateRequest');
  });
});
