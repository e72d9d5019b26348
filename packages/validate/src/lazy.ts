// `defineOperation` is this package's own function, and loads its implementation (the definition
// checks and type shapes, most of this package) on its first call: importing @fw/validate, as
// @fw/app's root does for every app, evaluates none of that code.
import type * as Implementation from './internal/implementation.js';
import type {
  AnyOperationDefinition,
  DefinedOperation,
  DefinedStreamOperation,
  OperationGraphQLDefinition,
  OperationGrpcDefinition,
  OperationRestDefinition,
  OperationStreamGraphQLDefinition,
  OperationStreamRestDefinition,
  OperationUnaryGraphQLDefinition,
  Zod4ObjectSchema,
  Zod4Schema,
} from './types.js';

let implementation: typeof Implementation | undefined;
// eslint-disable-next-line @typescript-eslint/no-require-imports -- synchronous on purpose: a definition is checked where it is written
const load = (): typeof Implementation => (implementation ??= require('./internal/implementation.js') as typeof Implementation);

/**
 * Defines an operation once, to serve it on every protocol it names with `app.operation(op)`:
 * the input (a zod 4 object) is validated, the handler runs, and its result is shaped by the output
 * (unknown keys dropped, dates as ISO strings). The definition is checked now: a mistake, or a type
 * that cannot be served on GraphQL or gRPC, is a `TypeError` naming the operation and the path.
 * @example
 * const getBook = defineOperation({
 *   name: 'getBook',
 *   input: z.object({ id: z.string() }),
 *   output: z.object({ id: z.string(), title: z.string() }).meta({ id: 'Book' }),
 *   handler: async ({ id }) => ({ id, title: 'Dune' }),
 *   rest: { method: 'GET', path: '/books/:id' },
 *   graphql: { type: 'query' },
 *   grpc: { service: 'bookstore.Catalog' },
 * });
 * app.operation(getBook);
 *
 * With `stream: true` the handler is an async generator and every value it yields is one event,
 * checked and shaped by the output; served as server-sent events, a GraphQL subscription and a
 * gRPC server stream. The input is validated and the middleware run once, before the first event.
 * @example
 * const orderEvents = defineOperation({
 *   name: 'orderEvents',
 *   input: z.object({ orderId: z.string().optional() }),
 *   output: OrderEvent,
 *   stream: true,
 *   handler: async function* (input, ctx) {
 *     for await (const e of bus.subscribe('orders', { signal: ctx.signal })) yield tracked(e.id, e);
 *   },
 *   rest: { path: '/orders/events' },
 *   graphql: { type: 'subscription' },
 * });
 */
export function defineOperation<
  I extends Zod4ObjectSchema,
  O extends Zod4Schema,
  const R extends OperationStreamRestDefinition | undefined = undefined,
  const G extends OperationGraphQLDefinition | undefined = undefined,
  const P extends OperationGrpcDefinition | undefined = undefined,
  const S extends boolean = false,
>(
  definition: AnyOperationDefinition<I, O, R, G, P, S>,
): [S] extends [true]
  ? DefinedStreamOperation<I, O, R, Extract<G, OperationStreamGraphQLDefinition | undefined>, P>
  : DefinedOperation<I, O, Extract<R, OperationRestDefinition | undefined>, Extract<G, OperationUnaryGraphQLDefinition | undefined>, P>;
export function defineOperation(
  definition: AnyOperationDefinition<Zod4ObjectSchema, Zod4Schema, OperationStreamRestDefinition | undefined, OperationGraphQLDefinition | undefined, OperationGrpcDefinition | undefined, boolean>,
): DefinedOperation<Zod4ObjectSchema, Zod4Schema> | DefinedStreamOperation<Zod4ObjectSchema, Zod4Schema> {
  return load().defineOperation(definition);
}
