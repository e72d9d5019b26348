/**
 * The protocol-neutral request context: what the HTTP `Context` (and each protocol package's own
 * context) offers to middleware that works on every protocol (authentication, rate limits, tracing).
 * Protocol packages add their members by declaration merging into `RequestContext`; core names none.
 */

/** A per-request variable declared by a package or an app: `ctx.get(key)`, `ctx.set(key, value)`. */
export interface ContextKey<T> {
  /** What the key is for, shown in errors and when debugging (`tenant`, `fw.operationName`). */
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
  // Most requests set one or two variables (the operation's name, a plugin's own): those live in
  // two slots, and a Map is made only for a third key. A Map and its table per request were most
  // of what measuring a request with `@fw/metrics` cost.
  #key0: ContextKey<unknown> | undefined = undefined;
  #value0: unknown = undefined;
  #key1: ContextKey<unknown> | undefined = undefined;
  #value1: unknown = undefined;
  #more: Map<ContextKey<unknown>, unknown> | undefined = undefined;

  /** The value set for `key` on this request, else the key's default. */
  get<T>(key: ContextKey<T>): T {
    if (this.#key0 === key) return this.#value0 as T;
    if (this.#key1 === key) return this.#value1 as T;
    const more = this.#more;
    return more !== undefined && more.has(key) ? (more.get(key) as T) : key.defaultValue;
  }

  /** Sets `key` to `value` for the rest of this request. */
  set<T>(key: ContextKey<T>, value: T): void {
    if (this.#key0 === key || this.#key0 === undefined) {
      this.#key0 = key;
      this.#value0 = value;
    } else if (this.#key1 === key || this.#key1 === undefined) {
      this.#key1 = key;
      this.#value1 = value;
    } else (this.#more ??= new Map()).set(key, value);
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
  /** The protocol of the traced request (`RequestContext['protocol']`). */
  readonly protocol: string;
}

/** The remote procedure a request calls, on protocols that call procedures by name. */
export interface ProcedureInfo {
  /** The full service name, `package.Service`. */
  readonly service: string;
  /** The method name. */
  readonly method: string;
}

/**
 * The protocols fw serves, as keys: core serves `http`, and each protocol package adds its name by
 * declaration merging (`declare module '@fw/core' { interface ProtocolNames { mqtt: true } }`).
 */
export interface ProtocolNames {
  /** REST over HTTP, served by core. */
  http: true;
}

/** The name of a protocol: one `ProtocolNames` declares, or a plugin's own. */
export type ProtocolName = keyof ProtocolNames | (string & {});

/**
 * The request context every protocol offers: the HTTP `Context` implements it, and so does each
 * protocol package's context. Middleware typed on it (`Middleware<RequestContext>`) runs on every
 * protocol. The tracing members are present only while tracing is on.
 */
export interface RequestContext {
  /** `http`, or the name of the protocol serving the request (a plugin that claimed the path, or its own server). */
  readonly protocol: ProtocolName;
  /** The HTTP method, upper case (`POST` for protocols that call procedures over HTTP POST; the called one is in `procedure`). */
  readonly method: string;
  /** The request path (for a procedure call, `/<package>.<Service>/<Method>`). */
  readonly path: string;
  /** Request headers, or the protocol's request metadata, lower-case keys. */
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
  /** The remote procedure the request calls, on protocols that call procedures by name (undefined on HTTP). */
  readonly procedure?: ProcedureInfo | undefined;
  /**
   * The status code in the protocol's own terms, on protocols whose codes are not HTTP's: the code
   * the request ended with, undefined while it runs (and on HTTP, whose code is `statusCode`).
   */
  readonly protocolStatus?: number | undefined;
  /**
   * The code in the protocol's own terms that the protocol answers `error` with, for code that sees
   * an error before the protocol has answered it (a wrapper, tracing). Absent on HTTP.
   */
  protocolStatusOf?(error: unknown): number;
  /**
   * Aborts when the work for the request should stop: the client left, the deadline passed, or (for
   * a stream) the app is closing or the stream ended. Streaming handlers pass it on to what they await.
   */
  readonly signal: AbortSignal;
  /**
   * When the work for the request must be done, in milliseconds since the epoch; undefined without
   * a deadline. The earliest of the route's or operation's `timeout`, the app's default `timeout`,
   * and the deadline the client sent (a remote procedure protocol's timeout header). When
   * it passes, `signal` aborts and the call ends with `deadline_exceeded` (504 on HTTP). Pass it on
   * to the calls the handler makes (`{ deadline: ctx.deadline }` for an RPC client).
   */
  readonly deadline?: number | undefined;
  /** Milliseconds left until `deadline`: 0 once it passed, `Infinity` without one (see also core's `timeRemaining(ctx)`). */
  timeRemaining?(): number;
  /**
   * The id of the last event a reconnecting stream client saw (server-sent events' `Last-Event-ID`,
   * or the protocol's equivalent): resume after it. Undefined on a first connection.
   */
  readonly lastEventId?: string | undefined;
  /** Sets a response header, or the protocol's response metadata. */
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
 * The name of the operation a request runs, for tracing and logs: the name the request gives itself
 * (a protocol whose requests name their operation sets it), else the name of the fw operation it
 * runs. Undefined when the request names none.
 */
export const OPERATION_NAME: ContextKey<string | undefined> = createContextKey<string>('fw.operationName');

/**
 * The kind of operation a request runs (`query`, `mutation`, `subscription`), set by the protocol
 * package once it knows; tracing reads it for the span's name and attributes.
 */
export const OPERATION_TYPE: ContextKey<string | undefined> = createContextKey<string>('fw.operationType');
