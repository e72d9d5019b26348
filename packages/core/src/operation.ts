import { compose, type ComposedMiddleware } from './compose.js';
import { isHttpContext, type Context } from './context.js';
import { withDeadline } from './deadline.js';
import { HTTPError } from './http-error.js';
import { hasBody } from './internal/body.js';
import { admittedBodyType } from './internal/media-type.js';
import { isMultipart } from './internal/multipart.js';
import { SSE_STREAM } from './internal/symbols.js';
import { readsBody } from './internal/operation-rules.js';
import { createContextKey, OPERATION_NAME, type RequestContext } from './request-context.js';
import { metaOf, ROUTE_META, ROUTE_SCHEMA, schemaOf } from './route-meta.js';
import type { StreamEvent } from './stream.js';
import { readFormInMemory } from './internal/multipart-form.js';
import type { MultipartConfig } from './multipart.js';
import type { TraceAttributes } from './request-context.js';
import type { AnyMiddleware, HTTPMethod, Middleware, RouteDefinition, RouteMeta, RouteSchema } from './types.js';

/**
 * Operations: one definition (input and output types, middleware, a handler) served on every
 * protocol that names it. Core owns the protocol-neutral contract and the REST binding; a schema
 * package (`@fw/validate`'s `defineOperation`) makes operations, and each protocol package declares
 * its own binding on `Operation` (declaration merging) and generates its types from the shapes below.
 */

/**
 * The scalar kinds a field can have. `int32` is an integer bounded to 32 bits, `int` any safe
 * integer. `file` is an uploaded file (a web `File`), on the input side only: a part of a
 * `multipart/form-data` body on REST; each protocol package says how it carries one, or refuses it.
 */
export type ScalarKind = 'string' | 'boolean' | 'float' | 'int' | 'int32' | 'datetime' | 'file';

/** A field of an object shape. */
export interface FieldShape {
  /** The key, as the schema names it. */
  readonly name: string;
  readonly type: TypeShape;
  /** The key may be absent. */
  readonly optional: boolean;
  readonly description?: string | undefined;
  /** Clients should stop using the field (`deprecationReason` says why, when given). */
  readonly deprecated?: boolean | undefined;
  readonly deprecationReason?: string | undefined;
  /** On the input side, the value the field takes when it is left out, when that is a constant JSON value. */
  readonly default?: { readonly value: unknown } | undefined;
  /**
   * JSON Schema annotations of the field's own wrappers, outside its type (`.optional().describe('...')`,
   * `.default(0).meta({ examples })`, `readOnly` of `.readonly()`): keywords as JSON Schema spells them,
   * written over the type's in documents that carry JSON Schema (the outer wrapper wins).
   */
  readonly annotations?: Readonly<Record<string, unknown>> | undefined;
}

/**
 * What every type shape may carry for documents that describe types with JSON Schema (OpenAPI):
 * the `.meta()` of the type's own schema. Protocols without such keywords ignore them.
 */
export interface ShapeAnnotations {
  readonly description?: string | undefined;
  readonly title?: string | undefined;
  /** Example values (`.meta({ examples })`). */
  readonly examples?: readonly unknown[] | undefined;
  /** The type is deprecated (`.meta({ deprecated: true })` on the type itself). */
  readonly deprecated?: boolean | undefined;
  /** Any other `.meta()` keys (a JSON Schema keyword, an `x-` extension), in their order, as given. */
  readonly annotations?: Readonly<Record<string, unknown>> | undefined;
}

/**
 * The checks of a scalar as JSON Schema states them (what the validator enforces), for documents
 * that carry JSON Schema. On a file, `minLength`/`maxLength` bound its size in bytes.
 */
export interface ScalarConstraints {
  readonly minLength?: number | undefined;
  readonly maxLength?: number | undefined;
  /** Regular expression sources (JavaScript syntax, unanchored) the string must all match. */
  readonly patterns?: readonly string[] | undefined;
  /** The JSON Schema `format` (`email`, `uuid`, `uri`, `date-time`, `date`, `ipv4`, ...). */
  readonly format?: string | undefined;
  /** `base64` or `base64url` for an encoded string. */
  readonly contentEncoding?: string | undefined;
  /** A file's allowed media types. */
  readonly mime?: readonly string[] | undefined;
  readonly minimum?: number | undefined;
  readonly maximum?: number | undefined;
  readonly exclusiveMinimum?: number | undefined;
  readonly exclusiveMaximum?: number | undefined;
  /** Divisors the number must all be a multiple of (each greater than 0). */
  readonly multipleOf?: readonly number[] | undefined;
}

/**
 * The protocol-neutral description of a type, from which each protocol's types (schema types,
 * messages, JSON Schema) are generated. `source` is the schema object the shape came from: two shapes with the same
 * source are one named type.
 */
export type TypeShape =
  | ({
      readonly kind: 'scalar';
      readonly scalar: ScalarKind;
      /** A string that identifies something, opaque to clients (a protocol may have a type of its own for it). */
      readonly identifier?: boolean | undefined;
    } & ScalarConstraints &
      ShapeAnnotations)
  | ({
      readonly kind: 'enum';
      readonly name: string | undefined;
      readonly values: readonly string[];
      readonly source: object;
    } & ShapeAnnotations)
  | ({
      readonly kind: 'object';
      readonly name: string | undefined;
      readonly fields: readonly FieldShape[];
      readonly source: object;
      /** Unknown keys are refused on input (`z.strictObject()`); on output they are always dropped. */
      readonly strict?: boolean | undefined;
    } & ShapeAnnotations)
  | ({ readonly kind: 'list'; readonly of: TypeShape; readonly minItems?: number | undefined; readonly maxItems?: number | undefined } & ShapeAnnotations)
  | ({ readonly kind: 'nullable'; readonly of: TypeShape } & ShapeAnnotations)
  /** `key`: the key's string shape, when it has checks or annotations of its own. */
  | ({ readonly kind: 'map'; readonly of: TypeShape; readonly key?: TypeShape | undefined } & ShapeAnnotations);

/** An object shape (an operation's input is always one). */
export type ObjectShape = Extract<TypeShape, { kind: 'object' }>;

/** A kind of request body an operation's REST route can take: JSON, an HTML form (URL-encoded), or a form with files (`multipart/form-data`). */
export type OperationBodyType = 'json' | 'form' | 'multipart';

/**
 * Where an operation is served over REST: one route. `defineOperation` takes it with its method
 * narrowed to the methods an operation can be served with.
 */
export interface OperationRest {
  /** GET and DELETE read the input from the path params and the query; POST, PUT and PATCH from the path params and the JSON body. */
  readonly method: HTTPMethod;
  /** The route path, starting with `/`; each `:param` is a field of the input. */
  readonly path: string;
  /** The status of a successful answer, 200 to 299. @default 200 */
  readonly status?: number;
  /**
   * The request bodies a POST, PUT or PATCH route takes; any other Content-Type is answered 415
   * before the operation's middleware runs. `'form'` (URL-encoded) lets a cross-site HTML form
   * call the operation: add it only for operations that are meant to be called that way; so can
   * `'multipart'` (`multipart/form-data`: fields by name, files as `File`s), which an input with a
   * file field takes by default.
   * @default ['multipart'] when the input has a file field, else ['json']
   */
  readonly accepts?: readonly OperationBodyType[];
  /** Limits of a `multipart/form-data` body for this route, over the app's `multipart` settings. */
  readonly multipart?: MultipartConfig | undefined;
}

/**
 * Where an operation is served as a remote procedure, by the protocols that call procedures by
 * name: the binding their package declares on `Operation`, and `defineOperation` takes.
 */
export interface OperationProcedure {
  /** `<package>.<Service>`. */
  readonly service: string;
  /** The method name. @default the operation name with its first letter upper-cased */
  readonly method?: string | undefined;
}

/**
 * Where an operation is served as a field of a schema's root type, by the protocols that query a
 * schema: the binding their package declares on `Operation`, and `defineOperation` takes.
 */
export interface OperationRootField {
  /** The root type the operation's field is on: `subscription` for a streaming operation (and only for one). */
  readonly type: 'query' | 'mutation' | 'subscription';
  /**
   * How the field takes the operation's input: `'flat'`, an argument per input field
   * (`book(id: ID!)`), or `'input'`, one argument `input` of the input type
   * (`addBook(input: AddBookInput!)`).
   * @default 'flat' for a query or a subscription, 'input' for a mutation
   */
  readonly args?: 'flat' | 'input' | undefined;
}

/** Where one top-level input key came from on REST: `params`, `query` or `body`. */
export type InputOrigin = (key: string) => string | undefined;

/**
 * The protocol-neutral operation that `app.operation()` serves; made by `defineOperation`. Core
 * declares the REST binding (`rest`); each protocol package declares its own binding by
 * declaration merging, with the same type parameters.
 */
export interface Operation<TInput = unknown, TOutput = unknown> {
  readonly [OPERATION_BRAND]: true;
  /** The operation's name, from which each protocol names it (a field, a method). */
  readonly name: string;
  readonly description?: string | undefined;
  /** Clients should stop calling the operation: each protocol's generated schema marks it deprecated. */
  readonly deprecated?: boolean | undefined;
  /** Why the operation is deprecated and what to call instead. */
  readonly deprecationReason?: string | undefined;
  /**
   * Former names the operation is still served under, deprecated (`renamed to <name>`), by the
   * protocols that name it after its name, so that clients of the old name keep working.
   */
  readonly aliases?: readonly string[] | undefined;
  /** The input's shape (an object). */
  readonly input: ObjectShape;
  /** The output's shape. */
  readonly output: TypeShape;
  readonly rest?: OperationRest | undefined;
  /** Middleware run before the handler on every protocol. */
  readonly middleware: readonly Middleware<RequestContext>[];
  /**
   * The deadline of each call, in ms from when it starts, on every protocol (the REST route's
   * `timeout`; on the others, from when the operation runs): the earlier of it and the client's
   * deadline is `ctx.deadline`, and the call ends with `deadline_exceeded` when it passes. Unary
   * operations only; streams are bounded by `streams.maxDuration`. Undefined or 0: none.
   */
  readonly timeout?: number | undefined;
  /** The schemas the operation was defined with (for documents such as OpenAPI). */
  readonly schemas: { readonly input: unknown; readonly output: unknown };
  /**
   * Validates `raw` against the input (a `ValidationError` naming each field, prefixed by
   * `origin` when given), runs the handler, and returns its result shaped by the
   * output (unknown keys dropped, dates as ISO strings). A result that does not match the output is
   * an internal error, thrown as a plain `Error`. Does not run the middleware: `runOperation` does.
   */
  execute(raw: unknown, ctx: RequestContext, origin?: InputOrigin): Promise<TOutput>;
  /**
   * Whether the operation is a stream of events (its handler an async generator): served as
   * server-sent events on REST and as each protocol's stream. Absent or false for unary operations.
   */
  readonly stream?: boolean;
  /**
   * A streaming operation's events: validates `raw` against the input first (rejecting with a
   * `ValidationError` before any event), calls the handler, and yields each event checked and
   * shaped by the output as `execute` shapes a result (a mismatch: a plain `Error`, internal on every
   * protocol); a value yielded `tracked(id, v)` becomes `{ id, data: v }`. `return()` on the iterator
   * runs the handler's `return()` (its `finally`). Does not run the middleware: `runStreamOperation`
   * does. Present when `stream` is true.
   */
  open?(raw: unknown, ctx: RequestContext, origin?: InputOrigin): Promise<AsyncIterableIterator<StreamEvent<TOutput>>>;
  /** Type-only: the handler's input. */
  readonly __input?: TInput;
}

/** Brands operation objects, so that `isOperation` tells them from look-alikes. */
export const OPERATION_BRAND: unique symbol = Symbol.for('fw.operation');

/** Whether `value` is an operation made by `defineOperation`. */
export function isOperation(value: unknown): value is Operation {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[OPERATION_BRAND] === true;
}

const chains = new WeakMap<Operation, ComposedMiddleware<RequestContext>>();

/** The operation's middleware, composed once; each call passes its own final step. */
function chainOf(op: Operation): ComposedMiddleware<RequestContext> {
  let chain = chains.get(op);
  if (chain === undefined) {
    chain = compose<RequestContext>(op.middleware);
    chains.set(op, chain);
  }
  return chain;
}

/**
 * Runs an operation, the one way every protocol does (REST's route, a field of a query, a procedure
 * call): its middleware, then validation, the handler and output shaping, inside a child span
 * `operation <name>` while tracing is on. Names the operation for tracing and logs unless the
 * request already has a name, and tells the request's observers (`observeOperations`) how the call
 * ended. Rejects with what the middleware or handler threw (an `HTTPError`
 * maps on every protocol by the status table). Middleware that ends without calling `next()` leaves
 * the operation with no result: an error on every protocol, except that a REST middleware which
 * answered the request itself (`ctx.json(..., 401)`) keeps that answer.
 */
export function runOperation<T>(op: Operation<unknown, T>, ctx: RequestContext, raw: unknown, origin?: InputOrigin): Promise<T> {
  const timeout = op.timeout;
  if (timeout !== undefined && timeout !== 0) return withDeadline(ctx, timeout, (scoped) => runUnderDeadline(op, scoped, raw, origin));
  return runUnderDeadline(op, ctx, raw, origin);
}

/** `runOperation` once its deadline, if any, is in place. */
function runUnderDeadline<T>(op: Operation<unknown, T>, ctx: RequestContext, raw: unknown, origin: InputOrigin | undefined): Promise<T> {
  let observers: readonly OperationObserver[] | undefined;
  try {
    // The first name stays: a request that names its operation itself (a query document's
    // operation name), or one running several operations at once, keeps the name it was given.
    if (ctx.get(OPERATION_NAME) === undefined) ctx.set(OPERATION_NAME, op.name);
    observers = ctx.get(OBSERVERS);
    // No middleware, no tracing and no observer: nothing to wrap the call in.
    if (op.middleware.length === 0 && ctx.startSpan === undefined && observers === undefined) return execute(op, ctx, raw, origin);
  } catch (err) {
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- passes on what was thrown, as thrown
    return Promise.reject(err);
  }
  return runWrapped(op, ctx, raw, origin, observers);
}

/**
 * An operation call's result as middleware records or replays it (`captureOperation`): `replay`
 * answers the call with a value instead of running `execute` (its input validation and handler);
 * `result` is set to what `execute` returned (the validated output) once it has.
 */
export interface OperationCapture {
  replay: { readonly value: unknown } | undefined;
  result: { readonly value: unknown } | undefined;
}

const CAPTURE = createContextKey<OperationCapture>('fw.operationCapture');

/**
 * For middleware around one procedure call (a protocol's per-call middleware, an operation's own) that
 * keeps or replays the operation's result, as `idempotency()` does: returns the call's capture,
 * made on first use. Set `replay` before `await next()` to answer the call with that value (the
 * operation's middleware still runs; its input validation and handler do not); read `result`
 * after it for the output the handler gave. Only for contexts that run one operation (a
 * procedure call): the fields of a query document share theirs.
 * @example
 * const capture = captureOperation(ctx);
 * await next();
 * if (capture.result !== undefined) await store.save(key, capture.result.value);
 */
export function captureOperation(ctx: RequestContext): OperationCapture {
  let capture = ctx.get(CAPTURE);
  if (capture === undefined) {
    capture = { replay: undefined, result: undefined };
    ctx.set(CAPTURE, capture);
  }
  return capture;
}

/** `op.execute`, unless middleware asked for the result to be captured or replayed (`captureOperation`). */
function execute<T>(op: Operation<unknown, T>, ctx: RequestContext, raw: unknown, origin: InputOrigin | undefined): Promise<T> {
  const capture = ctx.get(CAPTURE);
  if (capture === undefined) return op.execute(raw, ctx, origin);
  if (capture.replay !== undefined) return Promise.resolve(capture.replay.value as T);
  return op.execute(raw, ctx, origin).then((value) => {
    capture.result = { value };
    return value;
  });
}

/**
 * Told once when each operation call a request makes has ended (a stream: when it is over, however
 * it ended): the operation as defined, the request's context, whether it failed and with what. A
 * REST call whose middleware answered the request itself fails with an `HTTPError` of the status it
 * answered (it succeeded when that status is below 400).
 */
export type OperationObserver = (operation: Operation, ctx: RequestContext, failed: boolean, error: unknown) => void;

/** The observers of a request's operation calls (`observeOperations`), in the order added. */
const OBSERVERS = createContextKey<readonly OperationObserver[]>('fw.operationObservers');

/**
 * Calls `observer` when each operation call `ctx` makes from now on ends (`runOperation`,
 * `runStreamOperation`): every operation field of a query document, every call of a procedure,
 * once each. Observers added to one request are told in the order added; one that throws is
 * ignored, never failing the call.
 */
export function observeOperations(ctx: RequestContext, observer: OperationObserver): void {
  if (typeof observer !== 'function') throw new TypeError('observeOperations expects a function');
  const current = ctx.get(OBSERVERS);
  if (current === undefined) ctx.set(OBSERVERS, alone(observer));
  else if (!current.includes(observer)) ctx.set(OBSERVERS, [...current, observer]);
}

// The list of one observer, made once per observer: a plugin that observes every request (metrics)
// adds no array per request. Lists are never changed in place (adding one makes a new list).
const ALONE = new WeakMap<OperationObserver, readonly OperationObserver[]>();
let lastAlone: readonly OperationObserver[] = [];
function alone(observer: OperationObserver): readonly OperationObserver[] {
  if (lastAlone[0] === observer) return lastAlone;
  let list = ALONE.get(observer);
  if (list === undefined) ALONE.set(observer, (list = Object.freeze([observer])));
  return (lastAlone = list);
}

/** Tells each of `observers` how a call ended; never throws. */
function tell(observers: readonly OperationObserver[], op: Operation, ctx: RequestContext, failed: boolean, error: unknown): void {
  let outcome = error;
  let failure = failed;
  if (failed && error instanceof HandlerNotRunError && isHttpContext(ctx) && ctx.responded) {
    // REST keeps what the middleware answered: that answer is the call's outcome.
    const status = ctx.statusCode;
    failure = status >= 400;
    outcome = failure ? new HTTPError(status, undefined, undefined, { cause: error }) : undefined;
  }
  for (const observer of observers) {
    try {
      observer(op, ctx, failure, outcome);
    } catch {
      // An observer cannot fail the call it observes, nor keep the others from being told.
    }
  }
}

/**
 * Opens a streaming operation, the one way every protocol does: names it, runs its middleware once
 * (what it throws rejects the promise, so the transport can still answer with a real status; one that
 * ends without calling `next()` is the same error as for `runOperation`), validates the input and
 * calls the handler. While tracing is on, the child span `operation <name>` stays open for the
 * stream's life and records the number of events (`fw.stream.events`) and how it ended; the
 * request's observers (`observeOperations`) are told when it is over.
 */
export async function runStreamOperation<T>(
  op: Operation<unknown, T>,
  ctx: RequestContext,
  raw: unknown,
  origin?: InputOrigin,
): Promise<AsyncIterableIterator<StreamEvent<T>>> {
  if (op.stream !== true || typeof op.open !== 'function') throw new TypeError(`Operation "${op.name}" is not a stream: run it with runOperation`);
  if (ctx.get(OPERATION_NAME) === undefined) ctx.set(OPERATION_NAME, op.name);
  const observers = ctx.get(OBSERVERS);
  const span = ctx.startSpan?.(`operation ${op.name}`, { 'fw.operation.name': op.name });
  let events: AsyncIterableIterator<StreamEvent<T>> | typeof NO_RESULT = NO_RESULT;
  try {
    if (op.middleware.length === 0) events = await op.open(raw, ctx, origin);
    else {
      await chainOf(op)(ctx, async () => {
        events = await op.open!(raw, ctx, origin);
      });
    }
    if (events === NO_RESULT) throw new HandlerNotRunError(op.name);
  } catch (err) {
    ctx.endSpan?.(span, err);
    if (observers !== undefined) tell(observers, op, ctx, true, err);
    throw err;
  }
  if (span === undefined && observers === undefined) return events;
  return counted(events, (count, failed, error) => {
    if (span !== undefined) {
      const attributes: TraceAttributes = { 'fw.stream.events': count };
      span.setAttributes(attributes);
      ctx.endSpan?.(span, failed ? error : undefined);
    }
    if (observers !== undefined) tell(observers, op, ctx, failed, error);
  });
}

/** `events`, telling `done` how many it yielded and whether (and with what) it failed, once, however it ends. */
function counted<T>(events: AsyncIterableIterator<StreamEvent<T>>, done: (count: number, failed: boolean, error: unknown) => void): AsyncIterableIterator<StreamEvent<T>> {
  let count = 0;
  let over = false;
  const finish = (failed: boolean, error?: unknown): void => {
    if (over) return;
    over = true;
    done(count, failed, error);
  };
  const iterator: AsyncIterableIterator<StreamEvent<T>> = {
    async next() {
      try {
        const result = await events.next();
        if (result.done === true) finish(false);
        else count++;
        return result;
      } catch (err) {
        finish(true, err);
        throw err;
      }
    },
    async return(value?: unknown) {
      try {
        const result = await (events.return?.(value) ?? { done: true as const, value: undefined });
        finish(false);
        return result;
      } catch (err) {
        finish(true, err);
        throw err;
      }
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}

/** `runOperation` with its middleware and a child span around the call, telling `observers` how it ended. */
async function runWrapped<T>(
  op: Operation<unknown, T>,
  ctx: RequestContext,
  raw: unknown,
  origin: InputOrigin | undefined,
  observers: readonly OperationObserver[] | undefined,
): Promise<T> {
  const span = ctx.startSpan?.(`operation ${op.name}`, { 'fw.operation.name': op.name });
  // The input and result live in this call, not on the context: a query protocol resolves sibling
  // fields concurrently on one request context.
  let result: T | typeof NO_RESULT = NO_RESULT;
  const run = async (): Promise<void> => {
    result = await execute(op, ctx, raw, origin);
  };
  try {
    await chainOf(op)(ctx, run);
    if (result === NO_RESULT) throw new HandlerNotRunError(op.name);
    ctx.endSpan?.(span);
    if (observers !== undefined) tell(observers, op, ctx, false, undefined);
    return result;
  } catch (err) {
    ctx.endSpan?.(span, err);
    if (observers !== undefined) tell(observers, op, ctx, true, err);
    throw err;
  }
}
const NO_RESULT = Symbol('no result');

/** The operation's middleware ended without calling `next()`: the handler never ran, there is no result. */
class HandlerNotRunError extends Error {
  constructor(name: string) {
    super(`Operation "${name}": its middleware ended the request without running the handler`);
    this.name = 'HandlerNotRunError';
  }
}

/**
 * The REST route of an operation: a handler that merges route params with the query (GET, DELETE,
 * HEAD, OPTIONS) or the JSON body (POST, PUT, PATCH) into the input, runs the operation with
 * `runOperation`, as every protocol does (its middleware, the span, validation, the handler), and
 * answers its result as JSON. A route that reads a body first refuses a media type the operation
 * does not take.
 */
export function operationRoute(op: Operation): RouteDefinition {
  const rest = op.rest;
  if (rest === undefined) throw new TypeError(`Operation "${op.name}" names no REST route`);
  const fromBody = readsBody(rest.method);
  const status = rest.status ?? 200;
  const where = fromBody ? 'body' : 'query';
  const fromSource: InputOrigin = () => where;
  const accepts = fromBody ? acceptedTypes(op, rest.accepts) : DEFAULT_ACCEPTS;
  const guard = fromBody ? bodyGuard(op, rest, accepts) : undefined;
  const multipart = accepts.includes('multipart') ? multipartReader(op, rest) : undefined;
  const streaming = op.stream === true;
  const handler: AnyMiddleware = async (ctx: Context) => {
    const params = ctx.params as Record<string, unknown>;
    const source: unknown = !fromBody ? ctx.query : multipart !== undefined && isMultipart(ctx.headers['content-type']) ? await multipart(ctx) : await ctx.parseBody();
    let input: unknown = source;
    let origin = fromSource;
    if (hasKeys(params)) {
      // A body that is not a JSON object (an array, a string) goes to validation as it is, and fails there.
      if (source === undefined || source === null || (typeof source === 'object' && !Array.isArray(source))) {
        input = Object.assign(Object.create(null) as Record<string, unknown>, source, params);
      }
      origin = (key) => (Object.prototype.hasOwnProperty.call(params, key) ? 'params' : where);
    } else if (source === undefined || source === null) {
      input = Object.create(null) as Record<string, unknown>;
    }
    if (streaming) return serveStream(op, ctx, input, origin);
    let result: unknown;
    try {
      result = await runOperation(op, ctx, input, origin);
    } catch (err) {
      // A middleware that answered the request itself (a 401 with ctx.json, the spec's conventional
      // short-circuit) keeps its answer on REST; one that answered nothing is the same error as on
      // every other protocol.
      if (err instanceof HandlerNotRunError && ctx.responded) return;
      throw err;
    }
    ctx.json(result, status);
  };
  return {
    method: rest.method,
    path: rest.path,
    // The route enforces it from the start of the request; the operation's run then finds it set.
    ...(op.timeout !== undefined ? { timeout: op.timeout } : {}),
    middleware: guard === undefined ? [] : [guard],
    handler: describedBy(handler, op.middleware),
    meta: { operation: op, ...(op.description !== undefined ? { description: op.description } : {}) },
  };
}

/**
 * A streaming operation's REST answer: server-sent events. The stream is registered first (its
 * limits answer 429 before anything of the operation runs), then opened (middleware, validation:
 * their refusals are real statuses), then served.
 */
async function serveStream(op: Operation, ctx: Context, input: unknown, origin: InputOrigin): Promise<void> {
  const stream = ctx[SSE_STREAM]();
  let events: AsyncIterableIterator<StreamEvent<unknown>>;
  try {
    events = await runStreamOperation(op, ctx, input, origin);
  } catch (err) {
    stream.abandon();
    if (err instanceof HandlerNotRunError && ctx.responded) return;
    throw err;
  }
  await stream.run(events);
}

/**
 * `handler` carrying the route meta and schemas of the operation's middleware, which runs inside
 * it: the route reports them (authentication, rate limits, descriptions) as if the middleware were
 * in its chain, the first one's keys winning as there.
 */
function describedBy(handler: AnyMiddleware, middleware: readonly Middleware<RequestContext>[]): AnyMiddleware {
  let meta: RouteMeta | undefined;
  let schema: RouteSchema | undefined;
  for (const fn of middleware) {
    const attachedMeta = metaOf(fn);
    if (attachedMeta !== undefined) meta = { ...attachedMeta, ...meta };
    const attachedSchema = schemaOf(fn);
    if (attachedSchema !== undefined) schema = { ...attachedSchema, ...schema };
  }
  if (meta !== undefined) Object.defineProperty(handler, ROUTE_META, { value: Object.freeze(meta) });
  if (schema !== undefined) Object.defineProperty(handler, ROUTE_SCHEMA, { value: schema });
  return handler;
}

/** Whether `value` has an own enumerable key (route params: most routes have none). */
function hasKeys(value: Record<string, unknown>): boolean {
  for (const key in value) if (Object.prototype.hasOwnProperty.call(value, key)) return true;
  return false;
}

const BODY_TYPES: readonly OperationBodyType[] = ['json', 'form', 'multipart'];
const DEFAULT_ACCEPTS: readonly OperationBodyType[] = ['json'];
const FILE_ACCEPTS: readonly OperationBodyType[] = ['multipart'];

/** Whether a shape is, or holds at its top (a list, a nullable), a file. */
function isFileShape(shape: TypeShape): boolean {
  if (shape.kind === 'scalar') return shape.scalar === 'file';
  return (shape.kind === 'list' || shape.kind === 'nullable') && isFileShape(shape.of);
}

/** Whether an operation's input has a file field (uploaded as `multipart/form-data` on REST). */
export function hasFileInput(op: Operation): boolean {
  return op.input.fields.some((field) => isFileShape(field.type));
}

/**
 * The request bodies an operation's REST route takes, its default applied: `rest.accepts`, else
 * `['multipart']` for an input with a file field, else `['json']` (what documents such as OpenAPI describe).
 */
export function restBodyTypes(op: Operation): readonly OperationBodyType[] {
  return acceptedTypes(op, op.rest?.accepts);
}

/** The body types of `rest.accepts`, checked. */
function acceptedTypes(op: Operation, accepts: unknown): readonly OperationBodyType[] {
  if (accepts === undefined) return hasFileInput(op) ? FILE_ACCEPTS : DEFAULT_ACCEPTS;
  const fail = (got: string): never => {
    throw new TypeError(`Operation "${op.name}": rest.accepts may hold "json", "form" and "multipart", got ${got}`);
  };
  if (!Array.isArray(accepts) || accepts.length === 0) return fail(Array.isArray(accepts) ? 'an empty list' : typeof accepts);
  for (const type of accepts as unknown[]) if (!BODY_TYPES.includes(type as OperationBodyType)) fail(typeof type === 'string' ? JSON.stringify(type) : typeof type);
  return accepts as OperationBodyType[];
}

/**
 * The first middleware of a route that reads a body: a request whose Content-Type the operation
 * does not take (`admittedBodyType`, the rule every transport shares) is answered 415 before
 * anything of the operation runs. A form (or a body with no type) is what a cross-site page can
 * send without asking, so JSON alone is the default, as on the other protocols served over HTTP.
 * A request with neither a body nor a Content-Type carries no input to refuse.
 */
function bodyGuard(op: Operation, rest: OperationRest, accepts: readonly OperationBodyType[]): AnyMiddleware {
  const takes = describeAccepts(accepts);
  const route = `${rest.method} ${rest.path}`;
  return function acceptsBody(ctx: Context, next) {
    const type = ctx.headers['content-type'];
    if (type === undefined) {
      if (!hasBody(ctx.req)) return next();
      throw new HTTPError(415, `${route} takes ${takes}, and this one has no Content-Type`);
    }
    if (admittedBodyType(type, accepts) !== undefined) return next();
    throw new HTTPError(415, `${route} takes ${takes}, not ${mediaType(type)}`);
  };
}

const BODY_NAMES: Record<OperationBodyType, readonly [string, string]> = {
  json: ['JSON', 'application/json'],
  form: ['form', 'application/x-www-form-urlencoded'],
  multipart: ['multipart form', 'multipart/form-data'],
};

/** `a JSON or form body (Content-Type: application/json or application/x-www-form-urlencoded)`. */
function describeAccepts(accepts: readonly OperationBodyType[]): string {
  const names = accepts.map((type) => BODY_NAMES[type]);
  const join = (list: string[]): string => (list.length <= 2 ? list.join(' or ') : `${list.slice(0, -1).join(', ')} or ${list.at(-1)!}`);
  return `a ${join(names.map(([name]) => name))} body (Content-Type: ${join(names.map(([, type]) => type))})`;
}

/** Where each list field of the input is: a single part sent under its name still reads as a list of one. */
function listFields(op: Operation): ReadonlySet<string> {
  const names = new Set<string>();
  for (const field of op.input.fields) {
    let type = field.type;
    while (type.kind === 'nullable') type = type.of;
    if (type.kind === 'list') names.add(field.name);
  }
  return names;
}

/**
 * Reads an operation's `multipart/form-data` body into its input: each field by name (a string),
 * each file as a web `File`, held in memory within the route's limits (`rest.multipart` over the
 * app's); a list field always reads as a list.
 */
function multipartReader(op: Operation, rest: OperationRest): (ctx: Context) => Promise<Record<string, unknown>> {
  const lists = listFields(op);
  const options = rest.multipart;
  return async (ctx) => {
    const input = await readFormInMemory(ctx.multipart(options));
    for (const name of lists) {
      const value = input[name];
      if (value !== undefined && !Array.isArray(value)) input[name] = [value];
    }
    return input;
  };
}

/** The media type of a Content-Type header, without parameters, bounded for the message. */
function mediaType(contentType: string): string {
  const semi = contentType.indexOf(';');
  const type = (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
  return type === '' ? 'an empty Content-Type' : type.length > 100 ? `${type.slice(0, 100)}…` : type;
}
