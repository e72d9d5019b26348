// Compile-time tests of defineOperation(). Checked by `tsc --noEmit` (the package's typecheck) and by
// types.test.ts, which fails jest when this file stops compiling: each `@ts-expect-error` below
// must meet an error, or the line itself is one. Nothing here runs.
import { Application, type Operation, type RequestContext } from '@fw/core';
import { z } from 'zod';
import * as zm from 'zod/mini';
import { defineOperation, type DefinedOperation, type OperationDefinition } from '../src/index.js';
import type { Equal, Expect } from './type-assert.js';

const Book = z.object({
  id: z.string(),
  title: z.string(),
  year: z.int32().optional(),
  published: z.date(),
  tags: z.array(z.string()).default([]),
});
const GetBookInput = z.object({ id: z.string(), limit: z.coerce.number().default(10), since: z.string().transform((s) => new Date(s)).optional() });

// The handler's input is the input schema's output; its result is the output schema's input.
const getBook = defineOperation({
  name: 'getBook',
  input: GetBookInput,
  output: Book,
  rest: { method: 'GET', path: '/books/:id' },
  graphql: { type: 'query' },
  grpc: { service: 'shop.Catalog' },
  handler: async (input, ctx) => {
    type _input = Expect<Equal<typeof input, { id: string; limit: number; since?: Date | undefined }>>;
    type _ctx = Expect<Equal<typeof ctx, RequestContext>>;
    const id: string = input.id;
    const limit: number = input.limit;
    const protocol: string = ctx.protocol;
    await Promise.resolve();
    // `tags` has a default: the handler may leave it out.
    return { id, title: `#${limit} over ${protocol}`, published: new Date() };
  },
});

// The operation is core's Operation, typed by the schemas' outputs, with its protocol fields kept.
type _operation = Expect<Equal<typeof getBook extends Operation<{ id: string; limit: number; since?: Date | undefined }, z.output<typeof Book>> ? true : false, true>>;
type _executes = Expect<Equal<ReturnType<typeof getBook.execute>, Promise<z.output<typeof Book>>>>;
type _rest = Expect<Equal<typeof getBook.rest, { readonly method: 'GET'; readonly path: '/books/:id' }>>;
type _graphql = Expect<Equal<typeof getBook.graphql, { readonly type: 'query' }>>;
type _grpc = Expect<Equal<typeof getBook.grpc, { readonly service: 'shop.Catalog' }>>;
type _schemas = Expect<Equal<typeof getBook.schemas, { readonly input: typeof GetBookInput; readonly output: typeof Book }>>;
type _defined = Expect<Equal<typeof getBook extends DefinedOperation<typeof GetBookInput, typeof Book> ? true : false, true>>;
// Protocols not named are absent.
const plain = defineOperation({ name: 'plain', input: z.object({}), output: z.string(), handler: () => 'x' });
type _noRest = Expect<Equal<typeof plain.rest, undefined>>;

new Application().operation(getBook).operation(plain);

// Non-object outputs: lists, scalars, nullables.
defineOperation({ name: 'list', input: z.object({}), output: z.array(Book), handler: () => [] });
defineOperation({ name: 'count', input: z.object({}), output: z.int32(), handler: () => 3 });
defineOperation({ name: 'maybe', input: z.object({ id: z.string() }), output: Book.nullable(), handler: () => null });

// zod mini schemas type the handler the same way.
defineOperation({
  name: 'mini',
  input: zm.object({ n: zm.number(), label: zm.optional(zm.string()) }),
  output: zm.object({ n: zm.number() }),
  handler: (input) => {
    type _mini = Expect<Equal<typeof input, { n: number; label?: string | undefined }>>;
    return { n: input.n };
  },
});

// A definition can be written apart and passed in.
const definition: OperationDefinition<typeof GetBookInput, typeof Book> = {
  name: 'apart',
  input: GetBookInput,
  output: Book,
  handler: (input) => ({ id: input.id, title: 't', published: new Date() }),
};
defineOperation(definition);

// ---- What must not compile ----

defineOperation({
  name: 'readsMissing',
  input: GetBookInput,
  output: Book,
  handler: (input) => {
    // @ts-expect-error -- the input has no `isbn` field
    const isbn: string = input.isbn;
    return { id: isbn, title: 't', published: new Date() };
  },
});

defineOperation({
  name: 'wrongInputType',
  input: GetBookInput,
  output: Book,
  handler: (input) => {
    // @ts-expect-error -- `limit` is a number after coercion, not a string
    const limit: string = input.limit;
    // @ts-expect-error -- `id` is a string
    Math.abs(input.id);
    return { id: limit, title: 't', published: new Date() };
  },
});

defineOperation({
  name: 'missingOutputField',
  input: GetBookInput,
  output: Book,
  // @ts-expect-error -- the result lacks the required `title`
  handler: () => ({ id: '1', published: new Date() }),
});

defineOperation({
  name: 'wrongOutputType',
  input: GetBookInput,
  output: Book,
  // @ts-expect-error -- `year` must be a number
  handler: async () => ({ id: '1', title: 't', year: '1965', published: new Date() }),
});

defineOperation({
  name: 'wrongDate',
  input: GetBookInput,
  output: Book,
  // @ts-expect-error -- `published` is a Date in the handler (the operation sends it as an ISO string)
  handler: () => ({ id: '1', title: 't', published: '2020-01-01' }),
});

defineOperation({
  name: 'notAnObject',
  // @ts-expect-error -- the input must be an object schema
  input: z.string(),
  output: Book,
  handler: () => ({ id: '1', title: 't', published: new Date() }),
});

defineOperation({
  name: 'badMethod',
  input: z.object({}),
  output: z.string(),
  // @ts-expect-error -- HEAD is not an operation method
  rest: { method: 'HEAD', path: '/x' },
  handler: () => 'x',
});

defineOperation({
  name: 'badType',
  input: z.object({}),
  output: z.string(),
  // @ts-expect-error -- subscriptions are not operations
  graphql: { type: 'subscription' },
  handler: () => 'x',
});

// @ts-expect-error -- the handler is required
defineOperation({ name: 'noHandler', input: z.object({}), output: z.string() });
