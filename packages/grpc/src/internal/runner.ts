import type { EventEmitter } from 'node:events';
import type { Readable } from 'node:stream';
import type { Metadata, sendUnaryData, UntypedHandleCall } from '@grpc/grpc-js';
import { compose, type AnyMiddleware, type ComposedMiddleware, type Middleware, type Next } from '@fw/core';
import type { PluginHost } from '@fw/core/plugin';
import { callStateOf, contextFor, type GrpcContext } from '../context.js';
import { GrpcError } from '../grpc-error.js';
import { GRPC_STATUS } from '../grpc-status.js';
import type { GrpcCall, GrpcMiddleware } from '../types.js';
import { CallState, type CallSettings, type RunnableMethod } from './call-state.js';

type Respond = sendUnaryData<unknown>;
type Stage = Middleware<GrpcContext>;
type StreamCall = GrpcCall & NodeJS.WritableStream & { writableEnded: boolean; end(metadata?: Metadata): void };

/** The gRPC config's `middleware`: functions, and `'global'` where the app's `use()` middleware goes. */
export type ConfiguredMiddleware = ReadonlyArray<GrpcMiddleware | AnyMiddleware | 'global'>;

/** Where the runner reads the app's chain, on every call. */
export type ChainSource = Pick<PluginHost, 'middleware' | 'wrappers'>;

const NONE: readonly AnyMiddleware[] = [];

/**
 * App middleware is typed for the HTTP `Context`; gRPC runs the functions the user opted into with
 * the call context, which offers the protocol-neutral part (and `status`/`json`/`text`).
 */
function asStage(fn: GrpcMiddleware | AnyMiddleware): Stage {
  return fn as Stage;
}

/** Rejects with what a handler or middleware threw, as it is: wrappers and the status mapping see it unchanged. */
function rethrow(reason: unknown): Promise<never> {
  // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- JavaScript code may throw any value, and it must travel unchanged
  return Promise.reject(reason);
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && typeof value === 'object' && typeof (value as PromiseLike<unknown>).then === 'function';
}

function isIterable(value: unknown): value is AsyncIterable<unknown> | Iterable<unknown> {
  return value !== null && typeof value === 'object' && (Symbol.asyncIterator in value || Symbol.iterator in value);
}

/** Resolves when a stream can take more writes, or has closed/cancelled (listeners removed either way). */
function writable(call: EventEmitter): Promise<void> {
  return new Promise((resolve) => {
    const go = (): void => {
      call.removeListener('drain', go);
      call.removeListener('close', go);
      call.removeListener('cancelled', go);
      resolve();
    };
    call.on('drain', go);
    call.on('close', go);
    call.on('cancelled', go);
  });
}

/**
 * Streams call `emit('error', err)` to fail with a status; grpc-js reads `code`/`details` from that
 * value. Installed on stream calls so an HTTPError emitted by a handler maps like a thrown one.
 */
function mapEmittedErrors(state: CallState): void {
  const call = state.call as EventEmitter;
  const emit = call.emit.bind(call);
  call.emit = (event: string | symbol, ...args: unknown[]): boolean => {
    // Once the call has finished successfully, a late stream error (a write after end) changes nothing sent.
    if (event === 'error' && args.length > 0 && !(state.finished && !state.failed)) {
      const error = args[0];
      state.fail(error);
      state.finished = true;
      args[0] = state.statusObject();
      state.pending?.(error);
    }
    return emit(event, ...args);
  };
}

/**
 * `for await (const msg of call)` would destroy the call when the client half-closes (a Readable's
 * iterator destroys its stream on return), which kills the write side of a bidi call before its
 * status is sent. Iterating without destroying keeps the natural loop working.
 */
function iterateKeepingOpen(this: Readable): AsyncIterableIterator<unknown> {
  return this.iterator({ destroyOnReturn: false });
}

/**
 * Runs every call: the app's wrappers, a boundary that records the status, the opted-in middleware,
 * the handler. The app's lists are read per call, so `use()` and `wrap()` after `listen()` apply
 * from the next call; the composed chain is kept until they change.
 */
export class CallRunner {
  #chain: ComposedMiddleware<GrpcContext> | undefined = undefined;
  #wrappers: readonly AnyMiddleware[] = NONE;
  #global: readonly AnyMiddleware[] = NONE;
  readonly #usesGlobal: boolean;

  constructor(
    private readonly source: ChainSource,
    private readonly configured: ConfiguredMiddleware,
    private readonly settings: CallSettings,
  ) {
    this.#usesGlobal = configured.includes('global');
  }

  /** The grpc-js handler of one method. */
  handler(method: RunnableMethod): UntypedHandleCall {
    if (method.rpc.type === 'unary' || method.rpc.type === 'clientStream') {
      return ((call: GrpcCall, respond: Respond) => this.runCall(method, call, respond, answer)) as UntypedHandleCall;
    }
    return ((call: GrpcCall) => this.runCall(method, call, undefined, finishStream)) as UntypedHandleCall;
  }

  /** The chain for the app's current wrappers and middleware, composed again only when they changed. */
  private chain(): ComposedMiddleware<GrpcContext> {
    const wrappers = this.source.wrappers();
    const global = this.#usesGlobal ? this.source.middleware() : NONE;
    // The host hands out the same frozen list until `use()`/`wrap()` change it.
    if (this.#chain !== undefined && wrappers === this.#wrappers && global === this.#global) return this.#chain;
    const stages: Stage[] = wrappers.map(asStage);
    // Wrappers (tracing, logging) read the status after `await next()`, also when it throws:
    // record the status before the error reaches them.
    if (wrappers.length > 0) stages.push(boundary);
    for (const entry of this.configured) {
      if (entry === 'global') stages.push(...global.map(asStage));
      else stages.push(asStage(entry));
    }
    stages.push(runMethod);
    this.#wrappers = wrappers;
    this.#global = global;
    this.#chain = stages.length === 1 ? runMethod : compose(stages);
    return this.#chain;
  }

  private start(method: RunnableMethod, call: GrpcCall, respond: Respond | undefined): CallState {
    const state = new CallState(call, method, respond, this.settings);
    call.ctx = contextFor(state);
    if (method.rpc.type !== 'unary') {
      mapEmittedErrors(state);
      if (method.rpc.type !== 'serverStream') (call as { [Symbol.asyncIterator]: typeof iterateKeepingOpen })[Symbol.asyncIterator] = iterateKeepingOpen;
    }
    (call as EventEmitter).once('cancelled', () => state.onCancelled());
    return state;
  }

  /** Runs the chain for one call, then sends its outcome with `finish` (the answer, or the end of the stream). */
  private runCall(method: RunnableMethod, call: GrpcCall, respond: Respond | undefined, finish: (state: CallState) => void): void {
    const state = this.start(method, call, respond);
    let run: Promise<void>;
    try {
      run = this.chain()(call.ctx);
    } catch (err) {
      run = rethrow(err);
    }
    run.then(
      () => this.settle(state, finish),
      (err: unknown) => {
        state.fail(err);
        this.settle(state, finish);
      },
    );
  }

  /** Sends the outcome; a failure there (a call torn down meanwhile) is logged, never left unhandled. */
  private settle(state: CallState, send: (state: CallState) => void): void {
    try {
      send(state);
    } catch (err) {
      this.settings.log(`Could not send the outcome of ${state.path}`, err);
    }
  }
}

async function boundary(ctx: GrpcContext, next: Next): Promise<void> {
  try {
    await next();
  } catch (err) {
    callStateOf(ctx).fail(err);
    throw err;
  }
}

function runMethod(ctx: GrpcContext): Promise<void> {
  const state = callStateOf(ctx);
  if (state.cancelReason !== undefined) return Promise.reject(state.cancelReason);
  const type = state.method.rpc.type;
  if (state.method.impl === undefined) {
    return Promise.reject(new GrpcError(GRPC_STATUS.UNIMPLEMENTED, `The server does not implement the method ${state.path}`));
  }
  return type === 'unary' || type === 'clientStream' ? runAnsweringMethod(state, state.method.impl) : runStreamingMethod(state, state.method.impl);
}

/** Unary and client streaming: settles with the callback's answer or the returned value. */
function runAnsweringMethod(state: CallState, impl: NonNullable<RunnableMethod['impl']>): Promise<void> {
  return new Promise<void>((resolve) => {
    let settled = false;
    const fail = (error: unknown): void => {
      if (settled) return;
      settled = true;
      state.pending = undefined;
      state.fail(error);
      resolve(rethrow(error));
    };
    const succeed = (value: unknown): void => {
      if (settled) return;
      settled = true;
      state.pending = undefined;
      state.succeed(value ?? {});
      resolve();
    };
    state.pending = fail;
    // The first answer wins: the callback, or a returned value (or promise of one) that is not
    // undefined. A returned undefined waits for the callback only when the handler declares it
    // (two parameters or more); a function declaring fewer, a `(...args)` wrapper among them,
    // answers with an empty message. README "Handlers" states this rule.
    const usesCallback = impl.length >= 2;
    const callback: Respond = (error, value, trailer) => {
      if (trailer !== undefined) state.trailer = trailer;
      if (error !== null && error !== undefined) fail(error);
      else succeed(value);
    };
    let result: unknown;
    try {
      result = impl(state.call, callback);
    } catch (err) {
      fail(err);
      return;
    }
    if (isThenable(result)) {
      result.then((value) => {
        if (!usesCallback || value !== undefined) succeed(value);
      }, fail);
    } else if (!usesCallback || result !== undefined) {
      succeed(result);
    }
  });
}

/** Server streaming and bidi: settles when the call has finished (ended, failed or cancelled). */
function runStreamingMethod(state: CallState, impl: NonNullable<RunnableMethod['impl']>): Promise<void> {
  if (state.method.sendsOwnHeaders !== true) state.flushHeaders();
  const call = state.call as StreamCall;
  return new Promise<void>((resolve) => {
    let settled = false;
    const done = (error?: unknown): void => {
      if (settled) return;
      settled = true;
      state.pending = undefined;
      if (error === undefined) {
        state.finished = true;
        state.settle(GRPC_STATUS.OK);
        resolve();
      } else {
        state.fail(error);
        resolve(rethrow(error));
      }
    };
    state.pending = done;
    (call as EventEmitter).once('finish', () => done(state.failed ? state.error : undefined));
    let result: unknown;
    try {
      result = (impl as (call: GrpcCall) => unknown)(call);
    } catch (err) {
      done(err);
      return;
    }
    // `(call) => call.end()` returns the call itself, which (a Duplex) is iterable: not a response source.
    if (result !== call && isIterable(result) && typeof result !== 'string') {
      writeAll(state, call, result).then(() => endStream(state), done);
    } else if (isThenable(result)) {
      // An async handler has finished its work when its promise resolves: end the stream it left open.
      result.then(() => endStream(state), done);
    }
  });
}

async function writeAll(state: CallState, call: StreamCall, items: AsyncIterable<unknown> | Iterable<unknown>): Promise<void> {
  for await (const item of items) {
    if (state.cancelReason !== undefined || call.writableEnded) return;
    if (!call.write(item as never)) await writable(call);
  }
}

function endStream(state: CallState): void {
  const call = state.call as StreamCall;
  if (call.writableEnded || state.cancelReason !== undefined || state.finished) return;
  call.end(state.trailers);
}

/** After the chain of a unary or client-streaming call: send the response or the status. */
function answer(state: CallState): void {
  const respond = state.respond!;
  if (state.finished) return;
  if (state.cancelReason !== undefined) {
    // The client is gone; grpc-js has already ended the call. Record why for the wrappers' sake.
    if (!state.failed) state.fail(state.cancelReason);
    state.finished = true;
    return;
  }
  if (!state.failed && !state.hasResponse) {
    const outcome = state.answerOutcome();
    if ('error' in outcome) state.fail(outcome.error);
    else state.succeed(outcome.response);
  }
  state.finished = true;
  if (state.failed) {
    respond(state.statusObject());
    return;
  }
  state.flushHeaders();
  respond(null, state.response, state.trailer);
}

/** After the chain of a streaming call: anything still open is ended with the outcome. */
function finishStream(state: CallState): void {
  const call = state.call as StreamCall;
  if (state.finished || call.writableEnded || state.cancelReason !== undefined) return;
  if (!state.failed && state.grpcCode === undefined) {
    // Middleware answered without calling next.
    const outcome = state.answerOutcome();
    if ('error' in outcome) state.fail(outcome.error);
  }
  if (state.failed) {
    call.emit('error', state.error);
    return;
  }
  state.flushHeaders();
  state.finished = true;
  state.settle(GRPC_STATUS.OK);
  call.end(state.trailers);
}
