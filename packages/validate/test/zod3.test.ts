import type { Context } from '@fw/core';
import { z } from 'zod3';
import { z as z4 } from 'zod';
import { createHandler, validate } from '../src/index.js';
import { failure, send, serve, type Served } from './helpers.js';

// zod 3.25 (installed as the `zod3` alias) and zod 4 side by side: both work, each keeps its own codes.
const Signup = z.object({
  email: z.string().email(),
  age: z.coerce.number().int().min(18),
  plan: z.enum(['free', 'pro']).default('free'),
  address: z.object({ city: z.string().min(2) }).optional(),
  items: z.array(z.object({ qty: z.number().int().positive() })).default([]),
  handle: z
    .string()
    .transform((s) => s.toLowerCase())
    .refine(async (s) => {
      await new Promise((resolve) => setTimeout(resolve, 2));
      return s !== 'root';
    }, 'Handle is reserved'),
});

function echo(ctx: Context): void {
  ctx.json({ body: ctx.body, query: ctx.query, params: ctx.params });
}

describe('validate() with zod 3.25', () => {
  let server: Served;

  beforeAll(async () => {
    server = await serve((app) => {
      app.post(
        '/accounts/:id',
        validate({
          body: Signup,
          query: z.object({ dryRun: z.enum(['0', '1']).transform((v) => v === '1').default('0'), page: z.coerce.number().default(1) }),
          params: z.object({ id: z.coerce.number().int() }),
        }),
        echo,
      );
      app.post(
        '/mixed/:id',
        ...createHandler(
          { body: z4.object({ n: z4.coerce.number() }), query: z.object({ q: z.string().default('none') }) },
          (ctx) => ctx.json({ sum: ctx.body.n + 1, q: ctx.query.q }),
        ),
      );
    });
  });

  afterAll(() => server.close());

  it('replaces each part with coerced values, defaults and transforms', async () => {
    const res = await send(server.url, '/accounts/12?dryRun=1', { json: { email: 'a@b.co', age: '30', handle: 'ADA' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      body: { email: 'a@b.co', age: 30, plan: 'free', items: [], handle: 'ada' },
      query: { dryRun: true, page: 1 },
      params: { id: 12 },
    });
  });

  it('passes zod 3 issue codes through (invalid_string where zod 4 says invalid_format)', async () => {
    const res = await send(server.url, '/accounts/1', { json: { email: 'nope', age: 20, handle: 'x' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(failure([{ field: 'body.email', message: 'Invalid email', code: 'invalid_string' }]));
  });

  it('joins nested paths and reports every failing part in one response', async () => {
    const res = await send(server.url, '/accounts/x?dryRun=maybe', {
      json: { email: 'a@b.co', age: 10, address: { city: 'A' }, items: [{ qty: 1 }, { qty: -2 }], handle: 'root' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      failure([
        { field: 'body.age', code: 'too_small' },
        { field: 'body.address.city', code: 'too_small' },
        { field: 'body.items.1.qty', code: 'too_small' },
        { field: 'body.handle', message: 'Handle is reserved', code: 'custom' },
        { field: 'query.dryRun', code: 'invalid_enum_value' },
        { field: 'params.id', code: 'invalid_type' },
      ]),
    );
  });

  it('runs async refinements', async () => {
    const res = await send(server.url, '/accounts/1', { json: { email: 'a@b.co', age: 20, handle: 'ROOT' } });
    expect(res.body).toEqual(failure([{ field: 'body.handle', message: 'Handle is reserved', code: 'custom' }]));
  });

  it('reports a root failure under "body"', async () => {
    const res = await send(server.url, '/accounts/1', { json: 'a string' });
    expect(res.body).toEqual(failure([{ field: 'body', message: 'Expected object, received string', code: 'invalid_type' }]));
  });

  it('mixes zod 3 and zod 4 schemas in one createHandler', async () => {
    const res = await send(server.url, '/mixed/1', { json: { n: '41' } });
    expect(res.body).toEqual({ sum: 42, q: 'none' });
  });
});
