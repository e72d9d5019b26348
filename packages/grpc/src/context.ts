import { Metadata } from '@grpc/grpc-js';
import { GRPC_STATUS, HTTPError, httpStatusFromGrpc, statusText, type TrustProxy } from '@fw/core';
import { GrpcError } from './grpc-error.js';
import { clientIp, headersFromMetadata, peerAddress, setMetadataHeader } from './internal/metadata.js';
import { ERROR_DETAILS_KEY, statusFromError, type ErrorStatus } from './internal/status.js';
import type { GrpcCall, GrpcRpcInfo } from './types.js';

/** What the context needs from the application. */
export interface GrpcContextSettings {
  /** The app's `trustProxy`: which `x-forwarded-for` hops `ctx.ip` believes. */
  trustProxy: TrustProxy;
  /** Where server errors are reported. */
  log: (message: string, error?: unknown) => void;
}

/** The trace context tracing puts on a context. */
export interface GrpcTraceContext {
  traceId: string;
  spanId: string;
  protocol: string;
}

/** The status sent for a failed call, in grpc-js's shape. */
export interface GrpcStatusObject {
  code: number;
  details: string;
  metadata: Metadata;
}

/**
 * How close to the deadline a cancellation counts as the deadline. The server's deadline is its own
 * copy: the time the headers arrived plus grpc-timeout. A client ends the call when its deadline
 * passes (RST_STREAM CANCEL, the same frame as a deliberate cancel), which is earlier than the
 * server's copy by the time the headers took to arrive and be read — under load, tens of ms.
 */
const DEADLINE_TOLERANCE_MS = 50;

/**
 * The per-call context of a gRPC call: the cross-protocol shape middleware relies on (`headers`,
 * `state`, `user`, `ip`, `method`, `path`, `protocol`, `setHeader`, `statusCode`) plus what gRPC adds
 * (`rpc`, `call`, `deadline`, `signal`, `grpcCode`). Handlers reach it as `call.ctx`.
 */
export class GrpcContext<TRequest = unknown> {
  /** Always `'grpc'`. */
  readonly protocol = 'grpc' as const;
  /** The full method path, `/<package>.<Service>/<Method>` (what logging and rate limits key on). */
  readonly method: string;
  /** The full method path, as `method`. */
  readonly path: string;
  /** The full method path, as `method`. */
  readonly url: string;
  /** The service, method and kind of the call. */
  readonly rpc: GrpcRpcInfo;
  /** The grpc-js call object. */
  readonly call: GrpcCall;
  /** The user set by authentication middleware. */
  user?: unknown;
  /** The gRPC status the call ended (or ends) with: set once it is known, 0 on success. */
  grpcCode: number | undefined = undefined;
  /** 200 on success, else `httpStatusFromGrpc(grpcCode)`; 0 while the call runs. */
  statusCode = 0;
  /** Present when tracing is enabled. */
  trace?: GrpcTraceContext;
  /** Starts a child span (present when tracing is enabled). */
  startSpan?: (name: string, attributes?: Record<string, unknown>) => unknown;
  /** Ends a span, recording `error` on it (present when tracing is enabled). */
  endSpan?: (span: unknown, error?: unknown) => void;
  /** Adds an event to the current span (present when tracing is enabled). */
  addEvent?: (name: string, attributes?: Record<string, unknown>) => void;
  /** Sets attributes on the current span (present when tracing is enabled). */
  setAttributes?: (attributes: Record<string, unknown>) => void;

  /** @internal */ _settings: GrpcContextSettings;
  /** @internal Set once the call's outcome has been sent (or grpc-js is sending it). */ _finished = false;
  /** @internal */ _failed = false;
  /** @internal */ _error: unknown = undefined;
  /** @internal */ _status: ErrorStatus | undefined = undefined;
  /** @internal */ _hasResponse = false;
  /** @internal */ _response: unknown = undefined;
  /** @internal Trailers the handler passed to its callback. */ _trailer: Metadata | undefined = undefined;
  /** @internal Headers set with setHeader, not yet sent. */ _headers: Metadata | undefined = undefined;
  /** @internal */ _headersSent = false;
  /** @internal Headers set after the initial metadata went out: sent as trailers. */ _trailers: Metadata | undefined = undefined;
  /** @internal What middleware answered instead of calling next (status()/json()/text()). */ _answer: { status: number; data: unknown } | undefined = undefined;
  /** @internal */ _cancelReason: GrpcError | undefined = undefined;
  /** @internal Settles the running handler stage early (cancellation, an emitted error). */ _pending: ((error?: unknown) => void) | undefined = undefined;
  private _headerView: Record<string, string> | undefined = undefined;
  private _state: Record<string, unknown> | undefined = undefined;
  private _ip: string | undefined = undefined;
  private _controller: AbortController | undefined = undefined;

  constructor(call: GrpcCall, rpc: GrpcRpcInfo, path: string, settings: GrpcContextSettings) {
    this.call = call;
    this.rpc = rpc;
    this.method = path;
    this.path = path;
    this.url = path;
    this._settings = settings;
  }

  /** Request metadata as headers: lower-case keys, string values (binary `-bin` values base64). */
  get headers(): Record<string, string> {
    return (this._headerView ??= headersFromMetadata(this.call.metadata));
  }

  /** The raw request metadata. */
  get metadata(): Metadata {
    return this.call.metadata;
  }

  /** The request message (unary and server-streaming calls; undefined for client streams). */
  get request(): TRequest | undefined {
    return (this.call as { request?: TRequest }).request;
  }

  /** Scratch storage shared by middleware and the handler of one call. */
  get state(): Record<string, unknown> {
    return (this._state ??= {});
  }

  set state(value: Record<string, unknown>) {
    this._state = value;
  }

  /** The client address: the peer's, or from `x-forwarded-for` metadata as far as the app's `trustProxy` allows. */
  get ip(): string {
    if (this._ip === undefined) {
      const socketAddress = peerAddress(this.call.getPeer());
      const trust = this._settings.trustProxy;
      this._ip = trust === false ? socketAddress : clientIp(socketAddress, this.headers['x-forwarded-for'], trust);
    }
    return this._ip;
  }

  /** When the client's deadline passes; undefined when the client set none. */
  get deadline(): Date | undefined {
    const deadline = this.call.getDeadline();
    if (deadline instanceof Date) return deadline;
    return Number.isFinite(deadline) ? new Date(deadline) : undefined;
  }

  /** Milliseconds left until the deadline (0 once passed, Infinity without a deadline). */
  timeRemaining(): number {
    const deadline = this.call.getDeadline();
    const ms = deadline instanceof Date ? deadline.getTime() : deadline;
    return Number.isFinite(ms) ? Math.max(0, ms - Date.now()) : Infinity;
  }

  /** Aborted when the client cancels, the deadline passes or the server cuts the call: stop work then. */
  get signal(): AbortSignal {
    if (this._controller === undefined) {
      this._controller = new AbortController();
      if (this._cancelReason !== undefined) this._controller.abort(this._cancelReason);
    }
    return this._controller.signal;
  }

  /** Whether the call was cancelled (by the client, the deadline or a forced shutdown). */
  get cancelled(): boolean {
    return this._cancelReason !== undefined;
  }

  /**
   * Sets a response header: sent as initial metadata with the response (unary, client streaming) or
   * when the handler of a streaming call starts; set later on a stream, it is sent as a trailer.
   */
  setHeader(key: string, value: string | number | readonly string[]): this {
    let target: Metadata;
    if (this._headersSent) target = this._trailers ??= new Metadata();
    else target = this._headers ??= new Metadata();
    setMetadataHeader(target, key, value);
    return this;
  }

  /** Sets the status of an answer given by middleware that does not call next (≥ 400 fails the call). Chainable. */
  status(code: number): this {
    if (!Number.isInteger(code) || code < 100 || code > 999) throw new TypeError(`Invalid status code: ${code}`);
    this._answer = { status: code, data: this._answer?.data };
    return this;
  }

  /**
   * Answers from middleware instead of calling next, as HTTP middleware does: with a status ≥ 400 the
   * call fails with the mapped gRPC status and `data.message` as details; otherwise `data` is the response.
   */
  json(data: unknown, status?: number): void {
    if (status !== undefined) this.status(status);
    this._answer = { status: this._answer?.status ?? 200, data };
  }

  /** As `json()`, with a text message. */
  text(data: string, status?: number): void {
    this.json(String(data), status);
  }

  /** Whether middleware answered with `status()`/`json()`/`text()`. */
  get responded(): boolean {
    return this._answer !== undefined;
  }

  /** @internal Records the failure (first mapping wins per error) and the status it sends. */
  _fail(error: unknown): void {
    if (this._failed && this._error === error) return;
    this._failed = true;
    this._error = error;
    const status = statusFromError(error);
    this._status = status;
    this._settle(status.code);
    if (status.log && this._cancelReason === undefined) this._settings.log(`Error on ${this.path}`, error);
  }

  /** @internal Records a successful response. */
  _succeed(response: unknown): void {
    this._hasResponse = true;
    this._response = response;
    this._settle(GRPC_STATUS.OK);
  }

  /** @internal */
  _settle(code: number): void {
    this.grpcCode = code;
    this.statusCode = code === GRPC_STATUS.OK ? 200 : httpStatusFromGrpc(code);
  }

  /** @internal The failure as grpc-js status, with the headers set so far and the error's own. Never throws. */
  _statusObject(): GrpcStatusObject {
    const status = this._status ?? statusFromError(this._error);
    const metadata = new Metadata();
    try {
      const own = this._headersSent ? this._trailers : this._headers;
      if (own !== undefined) metadata.merge(own);
      if (this._trailer !== undefined) metadata.merge(this._trailer);
      if (status.metadata !== undefined) metadata.merge(status.metadata);
      if (status.headers !== undefined) {
        for (const [key, value] of Object.entries(status.headers)) {
          try {
            setMetadataHeader(metadata, key, value);
          } catch (err) {
            this._settings.log(`Could not send header "${key}" with the error status of ${this.path}`, err);
          }
        }
      }
      if (status.errorDetails !== undefined) {
        try {
          metadata.set(ERROR_DETAILS_KEY, Buffer.from(JSON.stringify(status.errorDetails)));
        } catch {
          // Details that do not serialise are left out rather than failing the error response.
        }
      }
    } catch (err) {
      // Metadata that cannot be read (a hostile error's headers) is dropped; the status still goes out.
      this._settings.log(`Could not send the metadata of the error status of ${this.path}`, err);
    }
    return { code: status.code, details: status.details, metadata };
  }

  /** @internal Sends the headers set so far as initial metadata; later ones become trailers. */
  _flushHeaders(): void {
    if (this._headersSent) return;
    this._headersSent = true;
    if (this._headers !== undefined && !this.call.cancelled) this.call.sendMetadata(this._headers);
  }

  /** @internal What middleware that did not call next answered, as an outcome. */
  _answerOutcome(): { response: unknown } | { error: unknown } {
    const answer = this._answer;
    if (answer === undefined) {
      return { error: new Error(`The middleware for ${this.path} neither called next() nor answered the call`) };
    }
    if (answer.status >= 400) {
      const data = answer.data as { message?: unknown; error?: unknown } | string | undefined;
      const message =
        typeof data === 'string'
          ? data
          : typeof data?.message === 'string'
            ? data.message
            : typeof data?.error === 'string'
              ? data.error
              : statusText(answer.status);
      return { error: new HTTPError(answer.status, message) };
    }
    return { response: answer.data ?? {} };
  }

  /** @internal The call was cancelled (client, deadline, forced shutdown) or has ended; grpc-js says 'cancelled' for both. */
  _onCancelled(): void {
    if (this._finished || this._cancelReason !== undefined) return;
    // A stream the handler has ended is finishing with its own status ('finish' settles it).
    if ((this.call as { writableEnded?: boolean }).writableEnded === true && this.rpc.type !== 'unary') return;
    // Classified from the call's deadline and the clock at the moment the cancellation arrives.
    const now = Date.now();
    const deadline = this.call.getDeadline();
    const ms = deadline instanceof Date ? deadline.getTime() : deadline;
    const reason =
      Number.isFinite(ms) && now >= ms - DEADLINE_TOLERANCE_MS
        ? new GrpcError(GRPC_STATUS.DEADLINE_EXCEEDED, 'Deadline exceeded')
        : new GrpcError(GRPC_STATUS.CANCELLED, 'Call cancelled');
    this._cancelReason = reason;
    this._controller?.abort(reason);
    this._pending?.(reason);
  }
}
