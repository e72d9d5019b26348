import type { Context } from '@fw/core';
import * as v from 'valibot';
import { createHandler, validate, type StandardSchemaV1 } from '../src/index.js';
import { failure, send, serve, type Served } from './helpers.js';

const NumberString = v.pipe(v.string(), v.transform(Number), v.number(), v.integer());

const Product = v.object({
  title: v.pipe(v.string(), v.trim(), v.minLength(3)),
  price: v.pipe(v.union([v.number(), NumberString]), v.minValue(0)),
  currency: v.optional(v.picklist(['EUR', 'USD']), 'EUR'),
  dimensions: v.optional(v.object({ width: v.number(), height: v.number() })),
  variants: v.optional(v.array(v.object({ sku: v.pipe(v.string(), v.minLength(2)) })), []),
});

const Search = v.object({
  page: v.optional(NumberString, '1'),
  q: v.optional(v.pipe(v.string(), v.toUpperCase())),
});

const Params = v.object({ shopId: NumberString });

const Unique = v.objectAsync({
  sku: v.pipeAsync(
    v.string(),
    v.checkAsync(async (sku) => {
      await new Promise((resolve) => setTimeout(resolve, 2));
      return sku !== 'DUP';
    }, 'SKU already exists'),
  ),
});

/** A hand-written Standard Schema validator: a positive even number, with path segments as objects. */
const evenNumber: StandardSchemaV1<unknown, { n: number }> = {
  '~standard': {
    version: 1,
    vendor: 'handmade',
    validate(value) {
      const n = (value as { n?: unknown } | null)?.n;
      if (typeof n === 'number' && n % 2 === 0) return { value: { n } };
      return { issues: [{ message: 'Must be an even number', path: [{ key: 'n' }] }] };
    },
  },
};

function echo(ctx: Context): void {
  ctx.json({ body: ctx.body, query: ctx.query, params: ctx.params });
}

describe('validate() with a Standard Schema validator (valibot)', () => {
  let server: Served;

  beforeAll(async () => {
    server = await serve((app) => {
      app.post('/shops/:shopId/products', validate({ body: Product, query: Search, params: Params }), echo);
      app.post('/skus', validate({ body: Unique }), echo);
      app.post('/even', validate({ body: evenNumber }), echo);
      app.post(
        '/typed/:shopId',
        ...createHandler({ body: Product, params: Params }, (ctx) => {
          ctx.json({ total: ctx.body.price * 2, currency: ctx.body.currency, shop: ctx.params.shopId + 1 });
        }),
      );
    });
  });

  afterAll(() => server.close());

  it('replaces each part with the transformed output and defaults', async () => {
    const res = await send(server.url, '/shops/7/products?q=lamp', { json: { title: '  Desk lamp ', price: '25' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      body: { title: 'Desk lamp', price: 25, currency: 'EUR', variants: [] },
      query: { page: 1, q: 'LAMP' },
      params: { shopId: 7 },
    });
  });

  it('reports nested paths and every failing part with the same body as zod', async () => {
    const res = await send(server.url, '/shops/x/products?page=1.5', {
      json: { title: 'ok!', price: -1, dimensions: { width: 1 }, variants: [{ sku: 'ab' }, { sku: 'c' }] },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      failure([
        { field: 'body.price', code: 'min_value' },
        { field: 'body.dimensions.height', code: 'object' },
        { field: 'body.variants.1.sku', code: 'min_length' },
        { field: 'query.page', code: 'integer' },
        { field: 'params.shopId', code: 'number' },
      ]),
    );
  });

  it('reports a root failure under "body"', async () => {
    const res = await send(server.url, '/shops/1/products', { json: 'a string' });
    expect(res.body).toEqual(failure([{ field: 'body', code: 'object' }]));
    const none = await send(server.url, '/shops/1/products', { method: 'POST' });
    expect(none.body).toEqual(failure([{ field: 'body', code: 'object' }]));
  });

  it('awaits an async Standard Schema validator', async () => {
    const ok = await send(server.url, '/skus', { json: { sku: 'A1' } });
    expect(ok.body).toMatchObject({ body: { sku: 'A1' } });
    const dup = await send(server.url, '/skus', { json: { sku: 'DUP' } });
    expect(dup.body).toEqual(failure([{ field: 'body.sku', message: 'SKU already exists', code: 'check' }]));
  });

  it('accepts any object with ~standard, using "invalid" when the issue carries no code', async () => {
    const ok = await send(server.url, '/even', { json: { n: 4, extra: 1 } });
    expect(ok.body).toMatchObject({ body: { n: 4 } });
    const bad = await send(server.url, '/even', { json: { n: 3 } });
    expect(bad.body).toEqual(failure([{ field: 'body.n', message: 'Must be an even number', code: 'invalid' }]));
  });

  it('types and validates a createHandler route', async () => {
    const res = await send(server.url, '/typed/4', { json: { title: 'Chair', price: '10', currency: 'USD' } });
    expect(res.body).toEqual({ total: 20, currency: 'USD', shop: 5 });
  });
});
