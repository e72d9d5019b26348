import { ValidationError, type InputOrigin, type RequestContext, type StreamEvent } from '@fw/core';
import { OPERATION_BRAND, toStreamEvent } from '@fw/core/plugin';
import { hasDatetime, readDates, writeDates } from './internal/dates.js';
import { checkDefinition, errorPrefix } from './internal/definition.js';
import { eagerSchemaRunner, fieldName, pathKey, type FieldNamer, type PartResult } from './internal/schema-runner.js';
import { inputShape, ShapeError, typeShape } from './internal/type-shape.js';
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
  Schema,
  Zod4ObjectSchema,
  Zod4Output,
  Zod4Schema,
} from './types.js';

/** Names an issue by its plain path: `id`, `author.name`; the whole input is `''`. */
const plainField: FieldNamer = (path) => fieldName('', path);

/** The implementation of `defineOperation`: the package exports ./lazy.ts's, which loads this on its first call. */
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
  // The implementation sees no schema types: every output is `unknown` here.
  type O = Zod4Schema;
  const checked = checkDefinition(definition);
  const { name, handler } = checked;
  let input;
  let output;
  try {
    input = inputShape(checked.input);
    output = typeShape(checked.output, 'output', 'output');
  } catch (err) {
    if (err instanceof ShapeError) throw new TypeError(errorPrefix(name) + err.message);
    throw err;
  }
  const validateInput = eagerSchemaRunner(checked.input as unknown as Schema);
  const shapeOutput = eagerSchemaRunner(checked.output as unknown as Schema);
  const datesIn = hasDatetime(input);
  const datesOut = hasDatetime(output);

  // Sync where the schemas and the handler are: a promise is awaited only where one is returned.
  const shaped = (result: PartResult): Zod4Output<O> => {
    if (!result.ok) {
      const mismatches = result.errors.map((entry) => (entry.field === '' ? entry.message : `${entry.field}: ${entry.message}`));
      throw new Error(`Operation "${name}" returned a value that does not match its output: ${mismatches.join('; ')}`);
    }
    return (datesOut ? writeDates(result.value, output) : result.value);
  };
  const finish = (result: unknown): unknown => {
    const checkedOutput = shapeOutput(result, plainField);
    return checkedOutput instanceof Promise ? checkedOutput.then(shaped) : shaped(checkedOutput);
  };
  const run = (parsed: PartResult, ctx: RequestContext): unknown => {
    if (!parsed.ok) throw new ValidationError(parsed.errors);
    const result: unknown = handler(parsed.value, ctx);
    return isThenable(result) ? Promise.resolve(result).then(finish) : finish(result);
  };
  const execute = (raw: unknown, ctx: RequestContext, origin?: InputOrigin): Promise<Zod4Output<O>> => {
    if (checked.stream) return Promise.reject(new TypeError(`Operation "${name}" is a stream: open it (runStreamOperation), not execute`));
    try {
      const parsed = validateInput(datesIn ? readDates(raw, input) : raw, origin === undefined ? plainField : originField(origin));
      return Promise.resolve(parsed instanceof Promise ? parsed.then((p) => run(p, ctx)) : run(parsed, ctx));
    } catch (err) {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- passes on what was thrown, as thrown
      return Promise.reject(err);
    }
  };

  // A stream's events: each checked and shaped as a unary result is.
  const events = (source: AsyncIterator<unknown>): AsyncIterableIterator<StreamEvent<Zod4Output<O>>> => {
    const iterator: AsyncIterableIterator<StreamEvent<Zod4Output<O>>> = {
      async next() {
        const result = await source.next();
        if (result.done === true) return { done: true, value: undefined };
        const event = toStreamEvent(result.value);
        let data: Zod4Output<O>;
        try {
          data = await finish(event.data);
        } catch (err) {
          // A bad event ends the stream: the handler's finally runs now.
          await Promise.resolve(source.return?.()).catch(() => undefined);
          throw err;
        }
        return { done: false, value: { id: event.id, data } };
      },
      async return() {
        await source.return?.();
        return { done: true, value: undefined };
      },
      [Symbol.asyncIterator]() {
        return iterator;
      },
    };
    return iterator;
  };
  const start = (parsed: PartResult, ctx: RequestContext): AsyncIterableIterator<StreamEvent<Zod4Output<O>>> => {
    if (!parsed.ok) throw new ValidationError(parsed.errors);
    const source: unknown = handler(parsed.value, ctx);
    if (!isAsyncIterable(source)) throw new TypeError(`Operation "${name}": a streaming handler must be an async generator function (async function* (input, ctx) { ... }) or return an async iterable`);
    return events(source[Symbol.asyncIterator]());
  };
  const open = (raw: unknown, ctx: RequestContext, origin?: InputOrigin): Promise<AsyncIterableIterator<StreamEvent<Zod4Output<O>>>> => {
    try {
      const parsed = validateInput(datesIn ? readDates(raw, input) : raw, origin === undefined ? plainField : originField(origin));
      return Promise.resolve(parsed instanceof Promise ? parsed.then((p) => start(p, ctx)) : start(parsed, ctx));
    } catch (err) {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- passes on what was thrown, as thrown
      return Promise.reject(err);
    }
  };

  const operation = {
    [OPERATION_BRAND]: true as const,
    name,
    description: checked.description,
    ...(checked.deprecated ? { deprecated: true } : {}),
    ...(checked.deprecationReason === undefined ? {} : { deprecationReason: checked.deprecationReason }),
    ...(checked.aliases === undefined ? {} : { aliases: checked.aliases }),
    input,
    output,
    rest: checked.rest,
    graphql: checked.graphql,
    grpc: checked.grpc,
    middleware: checked.middleware,
    ...(checked.timeout === undefined ? {} : { timeout: checked.timeout }),
    schemas: Object.freeze({ input: definition.input, output: definition.output }),
    execute,
    stream: checked.stream,
    ...(checked.stream ? { open } : {}),
  };
  return Object.freeze(operation) as unknown as DefinedOperation<Zod4ObjectSchema, Zod4Schema>;
}

/**
 * Names an issue by where its top-level key came from: `params.id`, `query.limit`, `body.author.name`.
 * An issue about the whole input (a body that is not an object) is named by the origin of `''`.
 */
function originField(origin: InputOrigin): FieldNamer {
  return (path) => {
    if (path === undefined || path.length === 0) return origin('') ?? '';
    const where = origin(pathKey(path[0]!));
    return fieldName(where ?? '', path);
  };
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function';
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
