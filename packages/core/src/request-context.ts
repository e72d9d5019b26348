/**
 * The protocol-neutral request context: what the HTTP `Context` (and, in the gRPC package, the call
 * context) offers to middleware that works on every protocol (authentication, rate limits, tracing).
 */

/** A per-request variable declared by a package or an app: `ctx.get(key)`, `ctx.set(key, value)`. */
export interface ContextKey<T> {
  /** What the key is for, shown in errors and when debugging (`graphql.operationName`). */
  readonly name: string;
  /** What `ctx.get(key)` returns on a request that did not set it. */
  readonly defaultValue: T;
}

/** Options of `createContextKey()`. */
export interface ContextKeyOptions<T> {
  /** What `ctx.get(key)` returns until the request sets a value; shared by every request, so keep it immutable. @default undefined */
  default?: T;
}

/**
 * Declares a typed per-request variable. Each key is its own identity: two keys with the same name
 * never see each other's values, and a package's key is only reachable by code it hands the key to.
 * @example
 * const TENANT = createContextKey<string>('tenant', { default: 'public' });
 * app.use((ctx, next) => { ctx.set(TENANT, ctx.headers['x-tenant'] as string); return next(); });
 * app.get('/', (ctx) => ctx.json({ tenant: ctx.get(TENANT) }));
 */
export function createContextKey<T>(name: string, options: ContextKeyOptions<T> & { default: T }): ContextKey<T>;
export function createContextKey<T>(name: string, options?: ContextKeyOptions<T>): ContextKey<T | undefined>;
export function createContextKey<T>(name: string, options: ContextKeyOptions<T> = {}): ContextKey<T | undefined> {
  if (typeof name !== 'string' || name === '') throw new TypeError('createContextKey needs a non-empty name');
  return Object.freeze({ name, defaultValue: options.default });
}

/**
 * The per-request variables of one context (`ctx.get`/`ctx.set`), keyed by the key object itself,
 * never by its name. Contexts make it on the first `set`, so a request that sets nothing pays nothing.
 */
export class ContextVariables {
  readonly #values = new Map<ContextKey<unknown>, unknown>();

  /** The value set for `key` on this request, else the key's default. */
  get<T>(key: ContextKey<T>): T {
    const values = this.#values;
    return values.has(key) ? (values.get(key) as T) : key.defaultValue;
  }

  /** Sets `key` to `value` for the rest of this request. */
  set<T>(key: ContextKey<T>, value: T): void {
    this.#values.set(key, value);
  }
}

/** A value an attribute of a trace span may hold (OpenTelemetry's `AttributeValue`, declared here by shape). */
export type TraceAttributeValue =
  | string
  | number
  | boolean
  | Array<null | undefined | string>
  | Array<null | undefined | number>
  | Array<null | undefined | boolean>;

/** Attributes of a trace span or event (OpenTelemetry's `Attributes`, by shape). */
export interface TraceAttributes {
  [key: string]: TraceAttributeValue | undefined;
}

/** The part of a span that code holding one through `ctx.startSpan` may use (an OpenTelemetry `Span` fits). */
export interface TraceSpan {
  setAttribute(key: string, value: TraceAttributeValue): unknown;
  setAttributes(attributes: TraceAttributes): unknown;
  addEvent(name: string, attributes?: TraceAttributes): unknown;
  isRecording(): boolean;
  end(): void;
}

/** What `ctx.trace` says about the request's server span while tracing is on. */
export interface TraceInfo {
  /** The trace ID, 32 lower-case hex characters. */
  readonly traceId: string;
  /** The server span's ID, 16 lower-case hex characters. */
  readonly spanId: string;
  /** The protocol of the traced request: `http`, `graphql` or `grpc`. */
  readonly protocol: string;
}

/** The called RPC of a gRPC request. */
export interface RpcInfo {
  /** The full service name, `package.Service`. */
  readonly service: string;
  /** The method name. */
  readonly method: string;
}

/** The protocols fw serves; plugins may add their own names. */
export type ProtocolName = 'http' | 'graphql' | 'grpc' | (string & {});

/**
 * The request context every protocol offers: the HTTP `Context` implements it, and so does the gRPC
 * call context. Middleware typed on it (`Middleware<RequestContext>`) runs on REST, GraphQL and gRPC.
 * The tracing members are present only while tracing is on.
 */
export interface RequestContext {
  /** `http`, `graphql` (the GraphQL endpoint) or `grpc`. */
  readonly protocol: ProtocolName;
  /** The HTTP method, upper case; gRPC calls say `POST` (the called method is in `rpc`). */
  readonly method: string;
  /** The request path (for gRPC `/<package>.<Service>/<Method>`). */
  readonly path: string;
  /** Request headers (HTTP) or call metadata (gRPC), lower-case keys. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The client address: the socket's, or from `X-Forwarded-For` as far as `trustProxy` allows. */
  readonly ip: string;
  /** The authenticated user, once known. */
  user?: unknown;
  /** Scratch storage shared by the middleware of one request. */
  state: Record<string, unknown>;
  /**
   * The status the response has or will have (0 while nothing is decided). After the chain it is
   * exactly the status that is sent: a request nobody answered reads 404.
   */
  readonly statusCode: number;
  /** The called RPC (gRPC only). */
  readonly rpc?: RpcInfo | undefined;
  /** The gRPC status code the call ended with (gRPC only; undefined while it runs). */
  readonly grpcCode?: number | undefined;
  /** Sets a response header (HTTP) or response metadata (gRPC). */
  setHeader(key: string, value: string): unknown;
  /** The value of a per-request variable on this request, else the key's default. */
  get<T>(key: ContextKey<T>): T;
  /** Sets a per-request variable for the rest of this request. */
  set<T>(key: ContextKey<T>, value: NoInfer<T>): unknown;
  /** The request's trace and span IDs (while tracing is on). */
  trace?: TraceInfo;
  /** Starts a child span of the request span (end it with `endSpan`). */
  startSpan?(name: string, attributes?: TraceAttributes): TraceSpan | undefined;
  /** Ends a span; with an error, records it and marks the span failed. */
  endSpan?(span: TraceSpan | undefined, error?: unknown): void;
  /** Adds a named event to the request span. */
  addEvent?(name: string, attributes?: TraceAttributes): void;
  /** Sets attributes on the request span. */
  setAttributes?(attributes: TraceAttributes): void;
}

/**
 * The name of the operation a request runs, for tracing and logs: the GraphQL operation name
 * (set by `@fw/graphql`), or the name of an fw operation on any protocol. Undefined when the
 * request names none.
 */
export const OPERATION_NAME: ContextKey<string | undefined> = createContextKey<string>('fw.operationName');

/**
 * The kind of GraphQL operation a request runs (`query`, `mutation`, `subscription`), set by
 * `@fw/graphql` once the document is known; tracing reads it for `graphql.operation.type`.
 */
export const OPERATION_TYPE: ContextKey<string | undefined> = createContextKey<string>('fw.operationType');
