import type { Metadata } from '@grpc/grpc-js';
import type { ContextKey, RequestContext, TraceAttributes, TraceInfo, TraceSpan } from '@fw/core';
import { clientIp, ContextVariables } from '@fw/core/plugin';
import { deadlineMs, type CallState } from './internal/call-state.js';
import { headersFromMetadata, peerAddress } from './internal/metadata.js';
import { statusFromError } from './internal/status.js';
import type { GrpcCall, GrpcRpcInfo } from './types.js';

declare module '@fw/core' {
  interface ProtocolNames {
    /** gRPC calls, served by `@fw/grpc` on its own port. */
    grpc: true;
  }
}

let open: (ctx: GrpcContext) => CallState;
let make: (state: CallState) => GrpcContext;

/**
 * On a call object made by another transport (Connect, gRPC-Web): the context of the HTTP request
 * that carries the call. Its global middleware ran on that context, so the call's starts with its
 * `user`, `state`, per-call variables and tracing members.
 */
export const CARRIER: unique symbol = Symbol('fw.grpc.carrier');

const TRACE_MEMBERS = ['trace', 'startSpan', 'endSpan', 'addEvent', 'setAttributes'] as const;

/**
 * The per-call context of a gRPC call: core's `RequestContext` (what protocol-neutral middleware
 * relies on; its `procedure` is the called RPC, its `protocolStatus` the gRPC status) plus what
 * gRPC adds (`call`, `metadata`, `request`, `deadline`, and `status()`/`json()`/`text()` for
 * middleware written the HTTP way). Handlers reach it as `call.ctx`; middleware typed on
 * `RequestContext` narrows to it with `ctx instanceof GrpcContext`.
 */
export class GrpcContext<TRequest = unknown> implements RequestContext {
  /** The user set by authentication middleware. */
  declare user?: unknown;
  /** The request's trace and span IDs (while tracing is on). */
  declare trace?: TraceInfo;
  /** Starts a child span (while tracing is on). */
  declare startSpan?: (name: string, attributes?: TraceAttributes) => TraceSpan | undefined;
  /** Ends a span, recording `error` on it (while tracing is on). */
  declare endSpan?: (span: TraceSpan | undefined, error?: unknown) => void;
  /** Adds an event to the current span (while tracing is on). */
  declare addEvent?: (name: string, attributes?: TraceAttributes) => void;
  /** Sets attributes on the current span (while tracing is on). */
  declare setAttributes?: (attributes: TraceAttributes) => void;

  readonly #call: CallState;
  #headers: Record<string, string> | undefined = undefined;
  #state: Record<string, unknown> | undefined = undefined;
  // Made on the first `set`: a call that sets nothing allocates nothing for variables.
  #variables: ContextVariables | undefined = undefined;
  #ip: string | undefined = undefined;
  // The carrying request's context (another transport's call), and the keys set on this call since.
  #carrier: RequestContext | undefined = undefined;
  #own: Set<ContextKey<unknown>> | undefined = undefined;

  private constructor(state: CallState) {
    this.#call = state;
    const carrier = (state.call as { [CARRIER]?: RequestContext })[CARRIER];
    if (carrier !== undefined) {
      this.#carrier = carrier;
      if (carrier.user !== undefined) this.user = carrier.user;
      const from = carrier as unknown as Record<string, unknown>;
      for (const key of TRACE_MEMBERS) if (from[key] !== undefined) (this as Record<string, unknown>)[key] = from[key];
    }
  }

  static {
    open = (ctx) => ctx.#call;
    make = (state) => new GrpcContext(state);
  }

  /** Always `'grpc'`. */
  get protocol(): 'grpc' {
    return 'grpc';
  }

  /** Always `'POST'`: gRPC runs over HTTP/2 POST requests (the called method is in `procedure`). */
  get method(): 'POST' {
    return 'POST';
  }

  /** The full method path, `/<package>.<Service>/<Method>` (what logging and rate limits key on). */
  get path(): string {
    return this.#call.method.path;
  }

  /** The full method path, as `path` (gRPC has no query string). */
  get url(): string {
    return this.#call.method.path;
  }

  /** The called RPC: its service (`<package>.<Service>`), method and kind (`unary`, `serverStream`, ...). */
  get procedure(): GrpcRpcInfo {
    return this.#call.method.rpc;
  }

  /** The grpc-js call object. */
  get call(): GrpcCall {
    return this.#call.call;
  }

  /** Request metadata as headers: lower-case keys, string values (binary `-bin` values base64). */
  get headers(): Record<string, string> {
    return (this.#headers ??= headersFromMetadata(this.#call.call.metadata));
  }

  /** The raw request metadata. */
  get metadata(): Metadata {
    return this.#call.call.metadata;
  }

  /** The request message (unary and server-streaming calls; undefined for client streams). */
  get request(): TRequest | undefined {
    return (this.#call.call as { request?: TRequest }).request;
  }

  /** Scratch storage shared by middleware and the handler of one call. */
  get state(): Record<string, unknown> {
    return (this.#state ??= this.#carrier?.state ?? {});
  }

  set state(value: Record<string, unknown>) {
    this.#state = value;
  }

  /** The client address: the peer's, or from `x-forwarded-for` metadata as far as the app's `trustProxy` allows. */
  get ip(): string {
    return (this.#ip ??= clientIp(peerAddress(this.#call.call.getPeer()), this.headers['x-forwarded-for'], this.#call.settings.trustProxy));
  }

  /** 200 on success, else `httpStatusFromGrpc(protocolStatus)`; 0 while the call runs. */
  get statusCode(): number {
    return this.#call.statusCode;
  }

  /** The gRPC status the call ended (or ends) with: set once it is known, 0 on success; undefined while it runs. */
  get protocolStatus(): number | undefined {
    return this.#call.grpcCode;
  }

  /** The gRPC status this call answers `error` with (for a wrapper that sees it before the call maps it). */
  protocolStatusOf(error: unknown): number {
    return statusFromError(error).code;
  }

  /**
   * When the client's deadline (`grpc-timeout`) passes, in ms since the epoch, as core's
   * `RequestContext.deadline`; undefined when the client set none. An operation's `timeout` that
   * is earlier shows in the view of the context its middleware and handler get.
   */
  get deadline(): number | undefined {
    const ms = deadlineMs(this.#call.call);
    return Number.isFinite(ms) ? ms : undefined;
  }

  /** Milliseconds left until the deadline (0 once passed, Infinity without a deadline). */
  timeRemaining(): number {
    const ms = deadlineMs(this.#call.call);
    return Number.isFinite(ms) ? Math.max(0, ms - Date.now()) : Infinity;
  }

  /** Aborted when the client cancels, the deadline passes or the server cuts the call: stop work then. */
  get signal(): AbortSignal {
    return this.#call.signal;
  }

  /** The `last-event-id` metadata: the id of the last event a client resuming a stream got (`tracked()` ids). */
  get lastEventId(): string | undefined {
    return this.headers['last-event-id'];
  }

  /** Whether the call was cancelled (by the client, the deadline or a forced shutdown). */
  get cancelled(): boolean {
    return this.#call.cancelReason !== undefined;
  }

  /** The value of a per-call variable (declared with `createContextKey`) on this call, else the key's default. */
  get<T>(key: ContextKey<T>): T {
    if (this.#carrier !== undefined && this.#own?.has(key) !== true) return this.#carrier.get(key);
    return this.#variables === undefined ? key.defaultValue : this.#variables.get(key);
  }

  /** Sets a per-call variable for the rest of this call. Chainable. */
  set<T>(key: ContextKey<T>, value: NoInfer<T>): this {
    (this.#variables ??= new ContextVariables()).set(key, value);
    if (this.#carrier !== undefined) (this.#own ??= new Set()).add(key);
    return this;
  }

  /**
   * Sets a response header: sent as initial metadata with the response (unary, client streaming) or
   * when the handler of a streaming call starts; set later on a stream, it is sent as a trailer.
   * A `-bin` key takes bytes (`Buffer`, `Uint8Array`) or base64 text, as `headers` shows it; other
   * keys take text. A value that does not fit its key throws a `TypeError`.
   */
  setHeader(key: string, value: string | number | Uint8Array | ReadonlyArray<string | Uint8Array>): this {
    this.#call.setHeader(key, value);
    return this;
  }

  /** Sets the status of an answer given by middleware that does not call next (≥ 400 fails the call). Chainable. */
  status(code: number): this {
    if (!Number.isInteger(code) || code < 100 || code > 999) throw new TypeError(`Invalid status code: ${code}`);
    this.#call.answer = { status: code, data: this.#call.answer?.data };
    return this;
  }

  /**
   * Answers from middleware instead of calling next, as HTTP middleware does: with a status ≥ 400 the
   * call fails with the mapped gRPC status and `data.message` as details; otherwise `data` is the response.
   */
  json(data: unknown, status?: number): void {
    if (status !== undefined) this.status(status);
    this.#call.answer = { status: this.#call.answer?.status ?? 200, data };
  }

  /** As `json()`, with a text message. */
  text(data: string, status?: number): void {
    this.json(String(data), status);
  }

  /** Whether middleware answered with `status()`/`json()`/`text()`. */
  get responded(): boolean {
    return this.#call.answer !== undefined;
  }
}

/** The context of a call the runner has just started. */
export function contextFor(state: CallState): GrpcContext {
  return make(state);
}

/** The state of the call a context belongs to (for the runner's own stages). */
export function callStateOf(ctx: GrpcContext): CallState {
  return open(ctx);
}
