// Compile-time tests of defineOperation(). Checked by `tsc --noEmit` (the package's typecheck) and by
// types.test.ts, which fails jest when this file stops compiling: each `@ts-expect-error` below
// must meet an error, or the line itself is one. Nothing here runs.
import { Application, tracked, type Operation, type RequestContext, type StreamEvent } from '@fw/core';
import { z } from 'zod';
import * as zm from 'zod/mini';
import { defineOperation, type DefinedOperation, type DefinedStreamOperation, type OperationDefinition } from '../src/index.js';
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
  // @ts-expect-error -- a subscription is a streaming operation (stream: true)
  graphql: { type: 'subscription' },
  handler: () => 'x',
});

// @ts-expect-error -- the handler is required
defineOperation({ name: 'noHandler', input: z.object({}), output: z.string() });

// ---- Streaming operations ----

const OrderEvent = z.object({ orderId: z.string(), at: z.date(), note: z.string().default('') });

// The handler is an async generator: its input and context typed as for a unary handler, each value
// it yields the output's input (the schema of one event), tracked() or not.
const orderEvents = defineOperation({
  name: 'orderEvents',
  input: z.object({ orderId: z.string().optional() }),
  output: OrderEvent,
  stream: true,
  handler: async function* (input, ctx) {
    type _input = Expect<Equal<typeof input, { orderId?: string | undefined }>>;
    type _ctx = Expect<Equal<typeof ctx, RequestContext>>;
    const signal: AbortSignal = ctx.signal;
    void signal;
    yield { orderId: input.orderId ?? 'o1', at: new Date() };
    yield tracked('2', { orderId: 'o1', at: new Date(), note: 'shipped' });
  },
  rest: { path: '/orders/events' },
  graphql: { type: 'subscription' },
  grpc: { service: 'shop.Orders' },
});
type _streams = Expect<Equal<typeof orderEvents.stream, true>>;
type _streamDefined = Expect<Equal<typeof orderEvents extends DefinedStreamOperation<z.ZodObject<{ orderId: z.ZodOptional<z.ZodString> }>, typeof OrderEvent> ? true : false, true>>;
// open() yields the output's output (dates as the schema makes them), as events with an id.
type _opens = Expect<Equal<Awaited<ReturnType<typeof orderEvents.open>>, AsyncIterableIterator<StreamEvent<z.output<typeof OrderEvent>>>>>;
// GET is the method when none is given.
type _streamRest = Expect<Equal<typeof orderEvents.rest, { readonly path: '/orders/events' } & { readonly method: 'GET' }>>;
type _streamGraphql = Expect<Equal<typeof orderEvents.graphql, { readonly type: 'subscription' }>>;
// A unary operation says so.
type _unary = Expect<Equal<typeof getBook.stream, false>>;
new Application().operation(orderEvents);

// A function returning any async iterable serves too.
declare function subscribe(topic: string): AsyncIterable<{ orderId: string; at: Date }>;
defineOperation({ name: 'fromBus', input: z.object({}), output: OrderEvent, stream: true, handler: () => subscribe('orders') });

defineOperation({
  name: 'wrongEvent',
  input: z.object({}),
  output: OrderEvent,
  stream: true,
  // @ts-expect-error -- every value yielded must be the output's input: `at` is a Date
  handler: async function* () {
    yield { orderId: 'o1', at: 'yesterday' };
  },
});

defineOperation({
  name: 'wrongTrackedEvent',
  input: z.object({}),
  output: OrderEvent,
  stream: true,
  // @ts-expect-error -- a tracked() value is checked the same way
  handler: async function* () {
    yield tracked('1', { orderId: 1, at: new Date() });
  },
});

defineOperation({
  name: 'unaryHandler',
  input: z.object({}),
  output: OrderEvent,
  stream: true,
  // @ts-expect-error -- a stream's handler yields; one returning a single value is a unary operation
  handler: () => ({ orderId: 'o1', at: new Date() }),
});

defineOperation({
  name: 'generatorWithoutStream',
  input: z.object({}),
  output: OrderEvent,
  // @ts-expect-error -- without stream: true the handler returns one value
  handler: async function* () {
    yield { orderId: 'o1', at: new Date() };
  },
});

defineOperation({
  name: 'streamAsQuery',
  input: z.object({}),
  output: OrderEvent,
  stream: true,
  // @ts-expect-error -- a stream is a subscription on GraphQL, never a query
  graphql: { type: 'query' },
  handler: async function* () {},
});

defineOperation({
  name: 'unaryWithoutMethod',
  input: z.object({}),
  output: OrderEvent,
  // @ts-expect-error -- a unary operation names its REST method
  rest: { path: '/x' },
  handler: () => ({ orderId: 'o1', at: new Date() }),
});

// How GraphQL takes the arguments is typed, and kept as given.
const addNote = defineOperation({
  name: 'addNote',
  input: z.object({ text: z.string() }),
  output: z.string(),
  graphql: { type: 'mutation', args: 'flat' },
  handler: ({ text }) => text,
});
type _args = Expect<Equal<typeof addNote.graphql, { readonly type: 'mutation'; readonly args: 'flat' }>>;

defineOperation({
  name: 'badArgs',
  input: z.object({}),
  output: z.string(),
  // @ts-expect-error -- graphql.args is 'flat' or 'input'
  graphql: { type: 'query', args: 'nested' },
  handler: () => 'x',
});

// Deprecation and the former names of a renamed operation.
const findBook = defineOperation({
  name: 'findBook',
  input: z.object({ id: z.string() }),
  output: z.string(),
  deprecated: true,
  deprecationReason: 'use book',
  aliases: ['getBookById'],
  handler: ({ id }) => id,
});
type _aliases = Expect<Equal<typeof findBook.aliases, readonly string[] | undefined>>;
type _deprecated = Expect<Equal<typeof findBook.deprecated, boolean | undefined>>;
new Application().operation(addNote).operation(findBook);

defineOperation({
  name: 'badDeprecation',
  input: z.object({}),
  output: z.string(),
  // @ts-expect-error -- the reason goes in deprecationReason
  deprecated: 'use book',
  handler: () => 'x',
});
