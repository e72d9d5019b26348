import type { Metadata, sendUnaryData } from '@grpc/grpc-js';
import { ERROR_CODE_STATUS, HTTPError, statusText } from '@fw/core';
import { GRPC_STATUS, httpStatusFromGrpc } from '../grpc-status.js';
import { markClientGone, type LogFunction, type TrustProxy } from '@fw/core/plugin';
import { GrpcError } from '../grpc-error.js';
import type { GrpcCall, GrpcRpcInfo } from '../types.js';
import { grpcJs } from './libraries.js';
import { setMetadataHeader, type HeaderValue } from './metadata.js';
import { badRequestStatus, STATUS_DETAILS_KEY } from './rich-status.js';
import { ERROR_DETAILS_KEY, errorDetailsTrailer, statusFromError, type ErrorStatus } from './status.js';

/** A method as the server runs it. */
export interface RunnableMethod {
  rpc: GrpcRpcInfo;
  /** `/<package>.<Service>/<Method>`. */
  path: string;
  /** The user's implementation; undefined answers UNIMPLEMENTED (through the wrappers). */
  impl: ((call: GrpcCall, callback: sendUnaryData<unknown>) => unknown) | undefined;
  /**
   * A streaming implementation that sends the initial metadata itself (with its first message or
   * its end): the runner does not send it when the handler starts, so headers set by middleware
   * that runs inside the implementation (an operation's) still go out as headers, and a refusal
   * before the first message is a status alone.
   */
  sendsOwnHeaders?: boolean;
}

/** What every call needs from the application. */
export interface CallSettings {
  /** The app's `trustProxy`: which `x-forwarded-for` hops `ctx.ip` believes. */
  readonly trustProxy: TrustProxy;
  /** Where server errors are reported. */
  readonly log: LogFunction;
}

/** The status sent for a failed call, in grpc-js's shape. */
export interface StatusObject {
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

/** The deadline of a call in ms since the epoch (Infinity without one). */
export function deadlineMs(call: GrpcCall): number {
  const deadline = call.getDeadline();
  return deadline instanceof Date ? deadline.getTime() : deadline;
}

/**
 * Everything the server tracks about one call: how it ends, what has been sent, what is pending.
 * Created and driven by the runner; the call's context reads it and records answers and headers.
 */
export class CallState {
  /** Set once the call's outcome has been sent (or grpc-js is sending it). */
  finished = false;
  failed = false;
  error: unknown = undefined;
  /** The gRPC status the call ended (or ends) with: set once it is known, 0 on success. */
  grpcCode: number | undefined = undefined;
  /** 200 on success, else `httpStatusFromGrpc(grpcCode)`; 0 while the call runs. */
  statusCode = 0;
  hasResponse = false;
  response: unknown = undefined;
  /** Trailers the handler passed to its callback. */
  trailer: Metadata | undefined = undefined;
  /** Headers set with setHeader, not yet sent. */
  headers: Metadata | undefined = undefined;
  headersSent = false;
  /** Headers set after the initial metadata went out: sent as trailers. */
  trailers: Metadata | undefined = undefined;
  /** What middleware answered instead of calling next (status()/json()/text()). */
  answer: { status: number; data: unknown } | undefined = undefined;
  cancelReason: GrpcError | HTTPError | undefined = undefined;
  /** Settles the running handler stage early (cancellation, an emitted error). */
  pending: ((error?: unknown) => void) | undefined = undefined;
  #status: ErrorStatus | undefined = undefined;
  #controller: AbortController | undefined = undefined;

  constructor(
    readonly call: GrpcCall,
    readonly method: RunnableMethod,
    readonly respond: sendUnaryData<unknown> | undefined,
    readonly settings: CallSettings,
  ) {}

  /** `/<package>.<Service>/<Method>`. */
  get path(): string {
    return this.method.path;
  }

  /** Aborted when the call is cancelled; made on first use. */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.cancelReason !== undefined) this.#controller.abort(this.cancelReason);
    }
    return this.#controller.signal;
  }

  /**
   * Aborts the call's signal while the call goes on to send its status (a stream the server ends:
   * the app closing, the stream's time up, a client that stopped reading). Nothing once aborted.
   */
  abort(reason: unknown): void {
    const controller = (this.#controller ??= new AbortController());
    if (!controller.signal.aborted) controller.abort(reason);
  }

  /** Records the failure (first mapping wins per error) and the status it sends. */
  fail(error: unknown): void {
    if (this.failed && this.error === error) return;
    this.failed = true;
    this.error = error;
    const status = statusFromError(error);
    this.#status = status;
    this.settle(status.code);
    if (status.log && this.cancelReason === undefined) this.settings.log(`Error on ${this.path}`, error);
  }

  /** Records a successful response. */
  succeed(response: unknown): void {
    this.hasResponse = true;
    this.response = response;
    this.settle(GRPC_STATUS.OK);
  }

  /** Records the gRPC status and its HTTP equivalent. */
  settle(code: number): void {
    this.grpcCode = code;
    this.statusCode = code === GRPC_STATUS.OK ? 200 : httpStatusFromGrpc(code);
  }

  /** Sets a response header: initial metadata until it has been sent, trailers after. */
  setHeader(key: string, value: HeaderValue): void {
    const { Metadata } = grpcJs();
    const target = this.headersSent ? (this.trailers ??= new Metadata()) : (this.headers ??= new Metadata());
    setMetadataHeader(target, key, value);
  }

  /** Sends the headers set so far as initial metadata; later ones become trailers. */
  flushHeaders(): void {
    if (this.headersSent) return;
    this.headersSent = true;
    if (this.headers !== undefined && !this.call.cancelled) this.call.sendMetadata(this.headers);
  }

  /** The failure as grpc-js status, with the headers set so far and the error's own. Never throws. */
  statusObject(): StatusObject {
    const status = this.#status ?? statusFromError(this.error);
    const metadata = new (grpcJs().Metadata)();
    try {
      const own = this.headersSent ? this.trailers : this.headers;
      if (own !== undefined) metadata.merge(own);
      if (this.trailer !== undefined) metadata.merge(this.trailer);
      if (status.metadata !== undefined) metadata.merge(status.metadata);
      if (status.headers !== undefined) {
        for (const [key, value] of Object.entries(status.headers)) {
          try {
            setMetadataHeader(metadata, key, value);
          } catch (err) {
            this.settings.log(`Could not send header "${key}" with the error status of ${this.path}`, err);
          }
        }
      }
      if (status.errorDetails !== undefined) {
        try {
          const trailer = errorDetailsTrailer(status.errorDetails);
          if (trailer !== undefined) metadata.set(ERROR_DETAILS_KEY, trailer);
        } catch {
          // Details that do not serialise are left out rather than failing the error response.
        }
      }
      if (status.fieldViolations !== undefined) metadata.set(STATUS_DETAILS_KEY, badRequestStatus(status.code, status.details, status.fieldViolations));
    } catch (err) {
      // Metadata that cannot be read (a hostile error's headers) is dropped; the status still goes out.
      this.settings.log(`Could not send the metadata of the error status of ${this.path}`, err);
    }
    return { code: status.code, details: status.details, metadata };
  }

  /** What middleware that did not call next answered, as an outcome. */
  answerOutcome(): { response: unknown } | { error: unknown } {
    const answer = this.answer;
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

  /**
   * The call was cancelled (client, deadline, forced shutdown) or has ended; grpc-js says 'cancelled'
   * for both. A cancellation is the client's doing unless its deadline passed: its reason is marked
   * so (`markClientGone`), which keeps it out of the logs, the server errors of metrics and failed spans.
   */
  onCancelled(): void {
    if (this.finished || this.cancelReason !== undefined) return;
    // A stream the handler has ended is finishing with its own status ('finish' settles it).
    if ((this.call as { writableEnded?: boolean }).writableEnded === true && this.method.rpc.type !== 'unary') return;
    // Classified from the call's deadline and the clock at the moment the cancellation arrives.
    const ms = deadlineMs(this.call);
    const reason =
      Number.isFinite(ms) && Date.now() >= ms - DEADLINE_TOLERANCE_MS
        ? // The reason every transport gives a deadline that passed (as an operation's timeout does here too).
          new HTTPError(ERROR_CODE_STATUS.deadline_exceeded, 'Deadline exceeded', undefined, { code: 'deadline_exceeded' })
        : markClientGone(new GrpcError(GRPC_STATUS.CANCELLED, 'Call cancelled'));
    this.cancelReason = reason;
    this.#controller?.abort(reason);
    this.pending?.(reason);
  }
}
