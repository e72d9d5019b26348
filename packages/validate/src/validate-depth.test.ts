import type { Context, Next } from '@fw/core';
import { z } from 'zod';
import { z as z3 } from 'zod3';
import * as v from 'valibot';
import { failure, send, serve, type Served } from '../test/helpers.js';
import { createHandler } from './create-handler.js';
import { TOO_DEEP_CODE, TOO_DEEP_MESSAGE, validate } from './validate.js';

interface Tree {
  child?: Tree | undefined;
}
const TreeSchema: z.ZodType<Tree> = z.lazy(() => z.object({ child: TreeSchema.optional() }));
const Tree3: z3.ZodType<Tree> = z3.lazy(() => z3.object({ child: Tree3.optional() }));
const TreeValibot: v.GenericSchema<Tree> = v.object({ child: v.optional(v.lazy(() => TreeValibot)) });

/** A chain of `depth` nested objects, built without recursion. */
function nested(depth: number): Tree {
  let value: Tree = {};
  for (let i = 0; i < depth; i++) value = { child: value };
  return value;
}

const DEPTH = 100_000;

/** Puts an already parsed value in place, as if a body or query parser had produced it: no body limit involved. */
function preParsed(part: 'body' | 'query', value: unknown) {
  return (ctx: Context, next: Next): Promise<void> => {
    if (part === 'body') ctx.body = value;
    else ctx.query = value;
    return next();
  };
}

const TOO_DEEP = { field: 'body', message: TOO_DEEP_MESSAGE, code: TOO_DEEP_CODE };

describe('validate() on input nested deeper than a recursive schema can follow', () => {
  let server: Served;

  beforeAll(async () => {
    server = await serve((app) => {
      app.get('/tree', preParsed('body', nested(DEPTH)), validate({ body: TreeSchema }), (ctx) => ctx.json({ ok: true }));
      app.get('/shallow', preParsed('body', nested(20)), validate({ body: TreeSchema }), (ctx) => ctx.json({ ok: true }));
      app.get('/tree3', preParsed('body', nested(DEPTH)), validate({ body: Tree3 }), (ctx) => ctx.json({ ok: true }));
      app.get('/tree-valibot', preParsed('body', nested(DEPTH)), validate({ body: TreeValibot }), (ctx) => ctx.json({ ok: true }));
      app.get('/query', preParsed('query', nested(DEPTH)), ...createHandler({ query: TreeSchema }, (ctx) => ctx.json({ ok: true })));
      app.get('/both/:id', preParsed('body', nested(DEPTH)), validate({ body: TreeSchema, params: z.object({ id: z.coerce.number() }) }), (ctx) => ctx.json({ ok: true }));
      app.get(
        '/range-bug',
        validate({
          query: z.object({}).transform(() => {
            throw new RangeError('Invalid array length');
          }),
        }),
        (ctx) => ctx.json({ ok: true }),
      );
    });
  });

  afterAll(() => server.close());
  beforeEach(() => {
    server.logged.length = 0;
  });

  it('answers 400 with one too_deep entry, not a 500, for a zod 4 schema built with z.lazy', async () => {
    const res = await send(server.url, '/tree');
    expect(res.status).toBe(400);
    expect(res.body).toEqual(failure([TOO_DEEP]));
    expect(TOO_DEEP_CODE).toBe('too_deep');
    expect(server.logged).toEqual([]);
  });

  it('still validates a recursive schema on input of ordinary depth', async () => {
    expect((await send(server.url, '/shallow')).status).toBe(200);
  });

  it('answers the same 400 for zod 3 and for a Standard Schema validator (valibot)', async () => {
    expect((await send(server.url, '/tree3')).body).toEqual(failure([TOO_DEEP]));
    expect((await send(server.url, '/tree-valibot')).body).toEqual(failure([TOO_DEEP]));
  });

  it('names the part that was too deep, through createHandler, and keeps the other parts\' issues', async () => {
    const query = await send(server.url, '/query');
    expect(query.status).toBe(400);
    expect(query.body).toEqual(failure([{ ...TOO_DEEP, field: 'query' }]));
    const both = await send(server.url, '/both/abc');
    expect(both.status).toBe(400);
    expect(both.body).toEqual(failure([TOO_DEEP, { field: 'params.id', code: 'invalid_type' }]));
  });

  it('still answers 500 for any other RangeError a schema throws (a bug, not hostile input)', async () => {
    const res = await send(server.url, '/range-bug');
    expect(res.status).toBe(500);
    expect(server.logged).toHaveLength(1);
  });
});
