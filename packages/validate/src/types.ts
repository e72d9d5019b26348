import type {
  AnyMiddleware,
  Context,
  InputOrigin,
  Middleware,
  Next,
  Operation,
  OperationProcedure,
  OperationRest,
  OperationRootField,
  ParamsOf,
  QueryRecord,
  RequestContext,
  ROUTE_SCHEMA,
  StreamEvent,
  Tracked,
} from '@fw/core';

/**
 * The Standard Schema v1 interface (https://standardschema.dev), declared here so that no
 * validation library is a runtime dependency. zod 3.24+, zod 4, valibot 1 and arktype 2 implement it.
 */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  /** The Standard Schema properties. */
  readonly '~standard': StandardSchemaV1.Props<Input, Output>;
}

/** Types belonging to the Standard Schema v1 interface. */
// eslint-disable-next-line @typescript-eslint/no-namespace
export declare namespace StandardSchemaV1 {
  /** The Standard Schema properties. */
  interface Props<Input = unknown, Output = Input> {
    /** The version number of the standard. */
    readonly version: 1;
    /** The vendor name of the schema library. */
    readonly vendor: string;
    /** Validates an unknown value; may answer synchronously or with a promise. */
    readonly validate: (value: unknown, options?: Options) => Result<Output> | Promise<Result<Output>>;
    /** Inferred types associated with the schema. */
    readonly types?: Types<Input, Output> | undefined;
  }
  /** Options passed to `validate`. */
  interface Options {
    /** Vendor-specific parameters. */
    readonly libraryOptions?: Record<string, unknown> | undefined;
  }
  /** The result of `validate`. */
  type Result<Output> = SuccessResult<Output> | FailureResult;
  /** A successful result. */
  interface SuccessResult<Output> {
    /** The typed output value. */
    readonly value: Output;
    /** The absence of issues means success. */
    readonly issues?: undefined;
  }
  /** A failed result. */
  interface FailureResult {
    /** The issues of the failed validation. */
    readonly issues: ReadonlyArray<Issue>;
  }
  /** One issue of a failed validation. */
  interface Issue {
    /** The error message of the issue. */
    readonly message: string;
    /** The path of the issue, if any. */
    readonly path?: ReadonlyArray<PropertyKey | PathSegment> | undefined;
  }
  /** One path segment of an issue. */
  interface PathSegment {
    /** The key of this segment. */
    readonly key: PropertyKey;
  }
  /** The input and output types a schema carries. */
  interface Types<Input = unknown, Output = Input> {
    /** The input type of the schema. */
    readonly input: Input;
    /** The output type of the schema. */
    readonly output: Output;
  }
  /** The input type of a Standard Schema. */
  type InferInput<Schema extends StandardSchemaV1> = NonNullable<Schema['~standard']['types']>['input'];
  /** The output type of a Standard Schema. */
  type InferOutput<Schema extends StandardSchemaV1> = NonNullable<Schema['~standard']['types']>['output'];
}

/** The result of zod's `safeParseAsync` (zod 3 and zod 4 alike), as far as validation reads it. */
export type ZodLikeResult<Output> =
  | { readonly success: true; readonly data: Output }
  | { readonly success: false; readonly error: { readonly issues: ReadonlyArray<ZodLikeIssue> } };

/** A zod issue, as far as validation reads it. */
export interface ZodLikeIssue {
  /** The issue code (`invalid_type`, `too_small`, zod 4 `invalid_format` / zod 3 `invalid_string`, ...). */
  readonly code: string;
  /** The path inside the validated value. */
  readonly path: ReadonlyArray<PropertyKey>;
  /** The human-readable message. */
  readonly message: string;
}

/** A zod schema (3.25+ or 4), recognised by its `safeParseAsync` method. */
export interface ZodLikeSchema<Output = unknown> {
  /** Parses `data`, running async refinements and transforms. */
  safeParseAsync(data: unknown): Promise<ZodLikeResult<Output>>;
}

/** A schema `validate()` accepts: a zod schema or any Standard Schema validator. */
export type Schema = StandardSchemaV1 | ZodLikeSchema;

/** The output type of a schema (what `validate()` stores on the context). */
export type InferOutput<T> = T extends StandardSchemaV1
  ? StandardSchemaV1.InferOutput<T>
  : T extends { readonly _output: infer O }
    ? O
    : T extends ZodLikeSchema<infer O>
      ? O
      : unknown;

/** The schemas `validate()` checks: any of body, query and route params. */
export interface ValidationSchema {
  /** Schema for the parsed request body (`ctx.body`). */
  body?: Schema;
  /** Schema for the parsed query string (`ctx.query`, a null-prototype object of strings / string arrays). */
  query?: Schema;
  /** Schema for the route params (`ctx.params`, strings). */
  params?: Schema;
}

/** The body type after validation: the body schema's output, else `unknown`. */
export type ValidatedBody<S extends ValidationSchema> = S extends { body: infer B } ? InferOutput<B> : unknown;
/** The query type after validation: the query schema's output, else the raw query record. */
export type ValidatedQuery<S extends ValidationSchema> = S extends { query: infer Q } ? InferOutput<Q> : QueryRecord;
/** The params type after validation: the params schema's output, else the raw params. */
export type ValidatedParams<S extends ValidationSchema> = S extends { params: infer P } ? InferOutput<P> : ParamsOf<string>;

/** The context a `createHandler` handler receives: body, query and params typed from the schemas' outputs. */
export type ValidatedContext<S extends ValidationSchema> = Context<ValidatedBody<S>, ValidatedQuery<S>, ValidatedParams<S>>;

/** The part of the request an error entry is about. */
export type ValidationPart = 'body' | 'query' | 'params';

/** One entry of `details.errors` in the 400 answer. */
export interface ValidationErrorEntry {
  /** The part and the path inside it, joined with dots: `body.address.city`, `query.page`; `body` for the root. */
  field: string;
  /** The library's human-readable message. */
  message: string;
  /** The library's issue code, passed through as it is (e.g. `invalid_type`, `too_small`). */
  code: string;
}

/** The `details` of the `ValidationError` (a 400 HTTPError) that `validate()` and an operation's input validation throw. */
export interface ValidationErrorDetails {
  /** Every issue of every part, body first, then query, then params. */
  errors: ValidationErrorEntry[];
}

/** The middleware `validate()` returns; it carries its schemas under `ROUTE_SCHEMA` for `getRoutes()`. */
export interface ValidationMiddleware<S extends ValidationSchema = ValidationSchema> {
  (ctx: Context, next: Next): Promise<void>;
  /** The schemas checked, reported by `getRoutes()` as the route's `schema`. */
  readonly [ROUTE_SCHEMA]: Pick<S, keyof S & keyof ValidationSchema>;
}

/** A `createHandler` handler: receives the validated, typed context. */
export type ValidatedHandler<S extends ValidationSchema> = (ctx: ValidatedContext<S>, next: Next) => unknown;

/**
 * What `createHandler` returns: the validation middleware followed by the handler, to spread into
 * a route. The handler is typed where it is written (`ValidatedHandler<S>`); in the pair it is core's
 * `AnyMiddleware`, because a route's handlers are typed with the raw `RouteContext` the router knows.
 */
export type ValidatedRoute<S extends ValidationSchema> = [validation: ValidationMiddleware<S>, handler: AnyMiddleware];

/**
 * A zod 4 schema (zod 4.x classic or mini, or `zod/v4` of zod 3.25), recognised by `_zod`: where zod
 * keeps a schema's inferred types and its definition.
 */
export interface Zod4Schema<TOutput = unknown, TInput = unknown> {
  /** zod's internals: the inferred types and the definition. */
  readonly _zod: {
    readonly output: TOutput;
    readonly input: TInput;
    readonly def: { readonly type: string };
  };
}

/** A zod 4 object schema (`z.object({ ... })`), the only kind an operation's input may be. */
export interface Zod4ObjectSchema<TOutput = unknown, TInput = unknown> extends Zod4Schema<TOutput, TInput> {
  /** zod's internals: the inferred types and an object definition. */
  readonly _zod: {
    readonly output: TOutput;
    readonly input: TInput;
    readonly def: { readonly type: 'object' };
  };
}

/** The value a zod 4 schema produces (`z.output<S>`). */
export type Zod4Output<S extends Zod4Schema> = S['_zod']['output'];
/** The value a zod 4 schema accepts (`z.input<S>`). */
export type Zod4Input<S extends Zod4Schema> = S['_zod']['input'];

/** The HTTP methods an operation can be served with. */
export type OperationMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Where an operation is served over REST: core's `OperationRest`, with a method an operation can be served with. */
export interface OperationRestDefinition extends OperationRest {
  readonly method: OperationMethod;
}

/** An operation's handler: the validated input (the input schema's output) and the request context; answers the output schema's input. */
export type OperationHandler<I extends Zod4ObjectSchema, O extends Zod4Schema> = (
  input: Zod4Output<I>,
  ctx: RequestContext,
) => Zod4Input<O> | Promise<Zod4Input<O>>;

/**
 * A streaming operation's handler: the validated input and the request context; an async generator
 * (`async function* (input, ctx) { ... }`) or any function returning an async iterable, whose every
 * value is one event, the output schema's input, optionally `tracked(id, value)`. `ctx.signal`
 * aborts when the client leaves, the stream's time is up or the app closes.
 */
export type StreamOperationHandler<I extends Zod4ObjectSchema, O extends Zod4Schema> = (
  input: Zod4Output<I>,
  ctx: RequestContext,
) => AsyncIterable<Zod4Input<O> | Tracked<Zod4Input<O>>>;

/**
 * Where an operation is served over GraphQL (`graphql` of `defineOperation`): core's
 * `OperationRootField`, the binding `@fw/graphql` reads from the operation.
 */
export type OperationGraphQLDefinition = OperationRootField;

/** Where a unary operation is served over GraphQL. */
export interface OperationUnaryGraphQLDefinition extends OperationGraphQLDefinition {
  readonly type: 'query' | 'mutation';
}

/** Where a streaming operation is served over GraphQL: a field of `Subscription`. */
export interface OperationStreamGraphQLDefinition extends OperationGraphQLDefinition {
  readonly type: 'subscription';
}

/** Where a streaming operation is served over REST: server-sent events (`text/event-stream`), always status 200. */
export interface OperationStreamRestDefinition extends Omit<OperationRest, 'method' | 'status'> {
  /** GET and DELETE read the input from the path params and the query; POST, PUT and PATCH from the JSON body. @default 'GET' (what an EventSource sends) */
  readonly method?: OperationMethod;
}

/**
 * Where an operation is served over gRPC (`grpc` of `defineOperation`): core's
 * `OperationProcedure`, the binding `@fw/grpc` reads from the operation.
 */
export type OperationGrpcDefinition = OperationProcedure;

/** What every operation definition takes, unary or streaming: its names and their deprecation. */
export interface OperationDefinitionBase {
  /** The GraphQL field name (`/^[_A-Za-z][_0-9A-Za-z]*$/`); upper-cased first letter, the gRPC method name. */
  name: string;
  /** Shown in the GraphQL schema, the proto file and the OpenAPI document. */
  description?: string;
  /** Clients should stop calling the operation (GraphQL `@deprecated`, proto `option deprecated`, OpenAPI `deprecated`). @default false */
  deprecated?: boolean;
  /** Why the operation is deprecated and what to call instead; given alone, it deprecates the operation. */
  deprecationReason?: string;
  /** Former names the operation is still served under, deprecated: a GraphQL field and a gRPC method of each. @default [] */
  aliases?: readonly string[];
}

/** What `defineOperation` takes for a streaming operation (`stream: true`). */
export interface StreamOperationDefinition<
  I extends Zod4ObjectSchema,
  O extends Zod4Schema,
  R extends OperationStreamRestDefinition | undefined = OperationStreamRestDefinition | undefined,
  G extends OperationStreamGraphQLDefinition | undefined = OperationStreamGraphQLDefinition | undefined,
  P extends OperationGrpcDefinition | undefined = OperationGrpcDefinition | undefined,
> extends OperationDefinitionBase {
  /** The input: a zod 4 object schema, validated once, before the first event. */
  input: I;
  /** The schema of one event: every event is checked and shaped by it. */
  output: O;
  /** The operation is a stream of events. */
  stream: true;
  /** Middleware run once, when the stream opens, on every protocol. @default [] */
  middleware?: ReadonlyArray<Middleware<RequestContext>>;
  /** Yields the events. */
  handler: StreamOperationHandler<I, O>;
  /** Serves the stream as server-sent events; omit to not. */
  rest?: R;
  /** Serves the stream as a field of GraphQL's `Subscription`; omit to not. */
  graphql?: G;
  /** Serves the stream as a gRPC server stream; omit to not. */
  grpc?: P;
}

/** A streaming operation's REST binding as the operation carries it: the method filled in (GET by default). */
export type StreamRestOf<R extends OperationStreamRestDefinition | undefined> = R extends { readonly method: OperationMethod }
  ? R
  : R extends OperationStreamRestDefinition
    ? R & { readonly method: 'GET' }
    : R;

/** What `defineOperation` returns for a streaming operation: core's `Operation` with `stream: true` and `open`, typed by the schemas. */
export interface DefinedStreamOperation<
  I extends Zod4ObjectSchema,
  O extends Zod4Schema,
  R extends OperationStreamRestDefinition | undefined = OperationStreamRestDefinition | undefined,
  G extends OperationStreamGraphQLDefinition | undefined = OperationStreamGraphQLDefinition | undefined,
  P extends OperationGrpcDefinition | undefined = OperationGrpcDefinition | undefined,
> extends Operation<Zod4Output<I>, Zod4Output<O>> {
  readonly stream: true;
  /** Validates the input, calls the handler and yields its events, each checked and shaped by the output. */
  open(raw: unknown, ctx: RequestContext, origin?: InputOrigin): Promise<AsyncIterableIterator<StreamEvent<Zod4Output<O>>>>;
  /** Where the operation is served over REST (server-sent events). */
  readonly rest: StreamRestOf<R>;
  /** Where the operation is served over GraphQL. */
  readonly graphql: G;
  /** Where the operation is served over gRPC. */
  readonly grpc: P;
  /** The schemas the operation was defined with. */
  readonly schemas: { readonly input: I; readonly output: O };
}

/** What `defineOperation` takes. */
export interface OperationDefinition<
  I extends Zod4ObjectSchema,
  O extends Zod4Schema,
  R extends OperationRestDefinition | undefined = OperationRestDefinition | undefined,
  G extends OperationUnaryGraphQLDefinition | undefined = OperationUnaryGraphQLDefinition | undefined,
  P extends OperationGrpcDefinition | undefined = OperationGrpcDefinition | undefined,
> extends OperationDefinitionBase {
  /** The input: a zod 4 object schema. */
  input: I;
  /** The output: any zod 4 schema that can be served (see the README's table). */
  output: O;
  /** A unary operation (one result). @default false */
  stream?: false;
  /** Middleware run before the handler on every protocol. @default [] */
  middleware?: ReadonlyArray<Middleware<RequestContext>>;
  /**
   * The deadline of each call in ms, on every protocol (see `Operation.timeout`): the earlier of it
   * and the client's own is `ctx.deadline`; past it the call ends with `deadline_exceeded` (504). 0: none.
   * @default undefined (none)
   */
  timeout?: number;
  /** Runs the operation. */
  handler: OperationHandler<I, O>;
  /** Serves the operation over REST; omit to not. */
  rest?: R;
  /** Serves the operation over GraphQL; omit to not. */
  graphql?: G;
  /** Serves the operation over gRPC; omit to not. */
  grpc?: P;
}

/**
 * What `defineOperation` takes, unary or streaming as `stream` says: the handler, the REST method
 * (optional for a stream: GET) and the GraphQL root type follow it.
 */
export interface AnyOperationDefinition<
  I extends Zod4ObjectSchema,
  O extends Zod4Schema,
  R extends OperationStreamRestDefinition | undefined,
  G extends OperationGraphQLDefinition | undefined,
  P extends OperationGrpcDefinition | undefined,
  S extends boolean,
> extends OperationDefinitionBase {
  /** The input: a zod 4 object schema (validated before the handler runs, or before a stream's first event). */
  input: I;
  /** The output: any zod 4 schema that can be served (see the README's table); for a stream, the schema of one event. */
  output: O;
  /** `true`: the handler is an async generator, each value it yields one event. @default false */
  stream?: S;
  /** Middleware run before the handler on every protocol (once, when a stream opens). @default [] */
  middleware?: ReadonlyArray<Middleware<RequestContext>>;
  /** The deadline of each call of a unary operation in ms (see `OperationDefinition.timeout`). @default undefined (none) */
  timeout?: number;
  /** Runs the operation (or yields a stream's events). */
  handler: [S] extends [true] ? StreamOperationHandler<I, O> : OperationHandler<I, O>;
  /** Serves the operation over REST (a stream as server-sent events); omit to not. */
  rest?: R & ([S] extends [true] ? unknown : { readonly method: OperationMethod; readonly status?: number });
  /** Serves the operation over GraphQL (a stream as a field of `Subscription`); omit to not. */
  graphql?: G & { readonly type: [S] extends [true] ? 'subscription' : 'query' | 'mutation' };
  /** Serves the operation over gRPC (a stream as a server stream); omit to not. */
  grpc?: P;
}

/** What `defineOperation` returns: core's `Operation`, typed by the schemas, with the definition's protocol fields as given. */
export interface DefinedOperation<
  I extends Zod4ObjectSchema,
  O extends Zod4Schema,
  R extends OperationRestDefinition | undefined = OperationRestDefinition | undefined,
  G extends OperationUnaryGraphQLDefinition | undefined = OperationUnaryGraphQLDefinition | undefined,
  P extends OperationGrpcDefinition | undefined = OperationGrpcDefinition | undefined,
> extends Operation<Zod4Output<I>, Zod4Output<O>> {
  readonly stream: false;
  /** Where the operation is served over REST. */
  readonly rest: R;
  /** Where the operation is served over GraphQL. */
  readonly graphql: G;
  /** Where the operation is served over gRPC. */
  readonly grpc: P;
  /** The schemas the operation was defined with. */
  readonly schemas: { readonly input: I; readonly output: O };
}
