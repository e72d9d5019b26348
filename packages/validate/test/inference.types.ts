// Compile-time tests of the inference of createHandler() and validate(). This file is checked by
// `tsc --noEmit` (the package's typecheck) and by types.test.ts, which fails jest when it stops
// compiling. Nothing here runs.
import { Application, Router, type Next, type ParamsOf, type QueryRecord, type RouteContext } from '@fw/core';
import * as v from 'valibot';
import { z } from 'zod';
import { z as z3 } from 'zod3';
import {
  createHandler,
  validate,
  type InferOutput,
  type StandardSchemaV1,
  type ValidatedContext,
  type ValidationErrorEntry,
  type ValidationSchema,
} from '../src/index.js';
import type { Equal, Expect } from './type-assert.js';

const app = new Application();
const router = new Router();

// zod 4: outputs, with coercion, defaults and transforms, reach the handler without casts.
const Body4 = z.object({
  name: z.string(),
  age: z.coerce.number(),
  role: z.enum(['user', 'admin']).default('user'),
  nickname: z.string().optional(),
  address: z.object({ city: z.string() }),
  createdAt: z.string().transform((s) => new Date(s)),
});
const Query4 = z.object({ page: z.coerce.number().default(1), tags: z.array(z.string()).optional() });
const Params4 = z.object({ id: z.coerce.number().int() });

app.post(
  '/v4/:id',
  ...createHandler({ body: Body4, query: Query4, params: Params4 }, (ctx) => {
    type _body = Expect<
      Equal<
        typeof ctx.body,
        { name: string; age: number; role: 'user' | 'admin'; nickname?: string | undefined; address: { city: string }; createdAt: Date }
      >
    >;
    type _query = Expect<Equal<typeof ctx.query, { page: number; tags?: string[] | undefined }>>;
    type _params = Expect<Equal<typeof ctx.params, { id: number }>>;
    const year: number = ctx.body.createdAt.getFullYear();
    const city: string = ctx.body.address.city;
    ctx.json({ year, city, page: ctx.query.page + 1, id: ctx.params.id + 1 }, 201);
    // @ts-expect-error -- the output of z.coerce.number() is a number, not a string
    const age: string = ctx.body.age;
    // @ts-expect-error -- keys the schema does not declare do not exist
    void ctx.body.password;
    // @ts-expect-error -- a transformed field has the transform's output type
    const raw: string = ctx.body.createdAt;
    // @ts-expect-error -- a default makes the query field required in the output
    const page: undefined = ctx.query.page;
    void [age, raw, page];
  }),
);

// zod 3.25: the same, through its own types.
const Body3 = z3.object({
  title: z3.string().min(1),
  price: z3.coerce.number(),
  currency: z3.enum(['EUR', 'USD']).default('EUR'),
  sku: z3.string().transform((s) => s.length),
});
router.put(
  '/v3/:slug',
  ...createHandler({ body: Body3, params: z3.object({ slug: z3.string() }) }, async (ctx, next: Next) => {
    type _body = Expect<Equal<typeof ctx.body, { title: string; price: number; currency: 'EUR' | 'USD'; sku: number }>>;
    type _params = Expect<Equal<typeof ctx.params, { slug: string }>>;
    // Parts without a schema keep the raw types.
    type _query = Expect<Equal<typeof ctx.query, QueryRecord>>;
    // @ts-expect-error -- sku was transformed to its length
    ctx.body.sku.toUpperCase();
    await next();
  }),
);

// valibot, through Standard Schema types.
const BodyV = v.object({
  email: v.pipe(v.string(), v.email()),
  count: v.pipe(v.string(), v.transform(Number)),
  tags: v.optional(v.array(v.string()), []),
});
app.patch(
  '/valibot',
  ...createHandler({ body: BodyV }, (ctx) => {
    type _body = Expect<Equal<typeof ctx.body, { email: string; count: number; tags: string[] }>>;
    type _params = Expect<Equal<typeof ctx.params, ParamsOf<string>>>;
    // @ts-expect-error -- count is the transform's number
    ctx.body.count.trim();
  }),
);

// Any Standard Schema validator: the output type comes from `~standard.types`.
declare const point: StandardSchemaV1<string, { x: number; y: number }>;
app.post(
  '/standard',
  ...createHandler({ body: point }, (ctx) => {
    type _body = Expect<Equal<typeof ctx.body, { x: number; y: number }>>;
    ctx.json(ctx.body.x + ctx.body.y);
  }),
);

// The handler's context without a body schema: body is unknown and cannot be used unchecked.
app.get(
  '/no-body',
  ...createHandler({ query: Query4 }, (ctx) => {
    type _body = Expect<Equal<typeof ctx.body, unknown>>;
    // @ts-expect-error -- unknown body
    void ctx.body.anything;
  }),
);

// InferOutput and ValidatedContext, directly.
type _out4 = Expect<Equal<InferOutput<typeof Params4>, { id: number }>>;
type _out3 = Expect<Equal<InferOutput<typeof Body3>['sku'], number>>;
type _outV = Expect<Equal<InferOutput<typeof BodyV>['count'], number>>;
type _ctx = Expect<Equal<ValidatedContext<{ params: typeof Params4 }>['params'], { id: number }>>;
type _entry = Expect<Equal<ValidationErrorEntry, { field: string; message: string; code: string }>>;

// validate() fits everywhere middleware goes, and leaves the route's inline handler typed by the path.
app.use(validate({ query: Query4 }));
router.use(validate({ body: Body3 }));
app.post('/inline/:teamId', validate({ body: Body4 }), (ctx) => {
  type _ctx = Expect<Equal<typeof ctx, RouteContext<'/inline/:teamId'>>>;
  const team: string = ctx.params.teamId;
  void team;
});
new Router({ middleware: [validate({ params: Params4 })] });

// Schemas are checked: only schemas, only the three parts.
// @ts-expect-error -- a number is not a schema
validate({ body: 42 });
// @ts-expect-error -- a JSON-schema-like object is not a schema
validate({ query: { type: 'object' } });
// @ts-expect-error -- unknown part name
validate({ bdy: Body4 });
// @ts-expect-error -- the handler is required
createHandler({ body: Body4 });
createHandler({ body: Body4 }, (ctx) => {
  // @ts-expect-error -- a handler's ctx cannot be given another schema's output
  const wrong: ValidatedContext<{ body: typeof Body3 }> = ctx;
  void wrong;
});

const schemas: ValidationSchema = { body: Body4, query: Body3, params: BodyV };
void schemas;
