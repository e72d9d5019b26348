import { EventEmitter } from 'node:events';
import type { Readable } from 'node:stream';
import type { Metadata, sendUnaryData, UntypedHandleCall } from '@grpc/grpc-js';
import { compose, GRPC_STATUS, type AnyMiddleware, type ComposedMiddleware, type Middleware, type Next } from '@fw/core';
import { GrpcContext, type GrpcContextSettings } from '../context.js';
import { GrpcError } from '../grpc-error.js';
import type { GrpcCall, GrpcMiddleware, GrpcRpcInfo } from '../types.js';

/** A method as the server runs it. */
export interface RunnableMethod {
  rpc: GrpcRpcInfo;
  /** `/<package>.<Service>/<Method>`. */
  path: string;
  /** The user's implementation; undefined answers UNIMPLEMENTED (through the wrappers). */
  impl: ((call: GrpcCall, callback: sendUnaryData<unknown>) => unknown) | undefined;
}

type Respond = sendUnaryData<unknown>;

/** What the stage after the middleware calls: the method's implementation, with the ctx's method attached. */
interface RunningContext extends GrpcContext {
  _method: RunnableMethod;
  _respond: Respond | undefined;
}

const emit = EventEmitter.prototype.emit;

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && typeof value === 'object' && typeof (value as PromiseLike<unknown>).then === 'function';
}

function isIterable(value: unknown): value is AsyncIterable<unknown> | Iterable<unknown> {
  return value !== null && typeof value === 'object' && (Symbol.asyncIterator in value || Symbol.iterator in value);
}

function callbackArity(fn: (...args: never[]) => unknown): boolean {
  return fn.length >= 2;
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
function emitMapped(this: GrpcCall, event: string | symbol, ...args: unknown[]): boolean {
  const ctx = (this as { ctx?: GrpcContext }).ctx;
  // Once the call has finished successfully, a late stream error (a write after end) changes nothing sent.
  if (event === 'error' && ctx !== undefined && args.length > 0 && !(ctx._finished && !ctx._failed)) {
    const error = args[0];
    ctx._fail(error);
    ctx._finished = true;
    args[0] = ctx._statusObject();
    ctx._pending?.(error);
  }
  return emit.call(this, event, ...args);
}

/**
 * `for await (const msg of call)` would destroy the call when the client half-closes (a Readable's
 * iterator destroys its stream on return), which kills the write side of a bidi call before its
 * status is sent. Iterating without destroying keeps the natural loop working.
 */
function iterateKeepingOpen(this: Readable): AsyncIterableIterator<unknown> {
  return this.iterator({ destroyOnReturn: false });
}

/** Runs every call: the app's wrappers, a boundary that records the status, the opted-in middleware, the handler. */
export class CallRunner {
  private readonly chain: ComposedMiddleware<RunningContext>;

  constructor(
    wrappers: readonly AnyMiddleware[],
    middleware: ReadonlyArray<GrpcMiddleware | AnyMiddleware>,
    private readonly settings: GrpcContextSettings,
  ) {
    const stages: Array<Middleware<RunningContext>> = [];
    for (const fn of wrappers) stages.push(fn as unknown as Middleware<RunningContext>);
    // Wrappers (tracing, logging) read ctx.grpcCode after `await next()`, also when it throws:
    // record the status before the error reaches them.
    if (wrappers.length > 0) stages.push(boundary);
    for (const fn of middleware) stages.push(fn as unknown as Middleware<RunningContext>);
    stages.push(runMethod);
    this.chain = stages.length === 1 ? (ctx) => runMethod(ctx) : compose(stages);
  }

  /** The grpc-js handler of one method. */
  handler(method: RunnableMethod): UntypedHandleCall {
    if (method.rpc.type === 'unary' || method.rpc.type === 'clientStream') {
      return ((call: GrpcCall, respond: Respond) => this.runCall(method, call, respond, answer)) as UntypedHandleCall;
    }
    return ((call: GrpcCall) => this.runCall(method, call, undefined, finishStream)) as UntypedHandleCall;
  }

  private start(method: RunnableMethod, call: GrpcCall, respond: Respond | undefined): RunningContext {
    const ctx = new GrpcContext(call, method.rpc, method.path, this.settings) as RunningContext;
    ctx._method = method;
    ctx._respond = respond;
    (call as { ctx: GrpcContext }).ctx = ctx;
    if (method.rpc.type !== 'unary') {
      (call as { emit: typeof emitMapped }).emit = emitMapped;
      if (method.rpc.type !== 'serverStream') (call as { [Symbol.asyncIterator]: typeof iterateKeepingOpen })[Symbol.asyncIterator] = iterateKeepingOpen;
    }
    (call as EventEmitter).once('cancelled', () => ctx._onCancelled());
    return ctx;
  }

  /** Runs the chain for one call, then sends its outcome with `finish` (the answer, or the end of the stream). */
  private runCall(method: RunnableMethod, call: GrpcCall, respond: Respond | undefined, finish: (ctx: RunningContext) => void): void {
    const ctx = this.start(method, call, respond);
    let run: Promise<void>;
    try {
      run = this.chain(ctx);
    } catch (err) {
      run = Promise.reject(err);
    }
    run.then(
      () => this.settle(ctx, finish),
      (err: unknown) => {
        ctx._fail(err);
        this.settle(ctx, finish);
      },
    );
  }

  /** Sends the outcome; a failure there (a call torn down meanwhile) is logged, never left unhandled. */
  private settle(ctx: RunningContext, send: (ctx: RunningContext) => void): void {
    try {
      send(ctx);
    } catch (err) {
      this.settings.log(`Could not send the outcome of ${ctx.path}`, err);
    }
  }
}

async function boundary(ctx: GrpcContext, next: Next): Promise<void> {
  try {
    await next();
  } catch (err) {
    ctx._fail(err);
    throw err;
  }
}

function runMethod(ctx: RunningContext): Promise<void> {
  if (ctx._cancelReason !== undefined) return Promise.reject(ctx._cancelReason);
  const type = ctx.rpc.type;
  return type === 'unary' || type === 'clientStream' ? runAnsweringMethod(ctx) : runStreamingMethod(ctx);
}

function unimplemented(ctx: GrpcContext): GrpcError {
  return new GrpcError(GRPC_STATUS.UNIMPLEMENTED, `The server does not implement the method ${ctx.path}`);
}

/** Unary and client streaming: settles with the callback's answer or the returned value. */
function runAnsweringMethod(ctx: RunningContext): Promise<void> {
  const impl = ctx._method.impl;
  if (impl === undefined) return Promise.reject(unimplemented(ctx));
  return new Promise<void>((resolve, reject) => {
    let settled = false;
    const fail = (error: unknown): void => {
      if (settled) return;
      settled = true;
      ctx._pending = undefined;
      ctx._fail(error);
      reject(error);
    };
    const succeed = (value: unknown): void => {
      if (settled) return;
      settled = true;
      ctx._pending = undefined;
      ctx._succeed(value ?? {});
      resolve();
    };
    ctx._pending = fail;
    const usesCallback = callbackArity(impl);
    const callback: Respond = (error, value, trailer) => {
      if (trailer !== undefined) ctx._trailer = trailer;
      if (error !== null && error !== undefined) fail(error);
      else succeed(value);
    };
    let result: unknown;
    try {
      result = impl(ctx.call, callback);
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
function runStreamingMethod(ctx: RunningContext): Promise<void> {
  const impl = ctx._method.impl;
  if (impl === undefined) return Promise.reject(unimplemented(ctx));
  ctx._flushHeaders();
  const call = ctx.call as GrpcCall & NodeJS.WritableStream & { writableEnded: boolean; end(metadata?: Metadata): void };
  return new Promise<void>((resolve, reject) => {
    let settled = false;
    const done = (error?: unknown): void => {
      if (settled) return;
      settled = true;
      ctx._pending = undefined;
      if (error === undefined) {
        ctx._finished = true;
        ctx._settle(GRPC_STATUS.OK);
        resolve();
      } else {
        ctx._fail(error);
        reject(error);
      }
    };
    ctx._pending = done;
    (call as EventEmitter).once('finish', () => done(ctx._failed ? ctx._error : undefined));
    let result: unknown;
    try {
      result = (impl as (call: GrpcCall) => unknown)(ctx.call);
    } catch (err) {
      done(err);
      return;
    }
    // `(call) => call.end()` returns the call itself, which (a Duplex) is iterable: not a response source.
    if (result !== ctx.call && isIterable(result) && typeof result !== 'string') {
      writeAll(ctx, call, result).then(() => endStream(ctx), done);
    } else if (isThenable(result)) {
      // An async handler has finished its work when its promise resolves: end the stream it left open.
      result.then(() => endStream(ctx), done);
    }
  });
}

async function writeAll(
  ctx: GrpcContext,
  call: NodeJS.WritableStream & { writableEnded: boolean },
  items: AsyncIterable<unknown> | Iterable<unknown>,
): Promise<void> {
  for await (const item of items) {
    if (ctx._cancelReason !== undefined || call.writableEnded) return;
    if (!call.write(item as never)) await writable(call as unknown as EventEmitter);
  }
}

function endStream(ctx: GrpcContext): void {
  const call = ctx.call as GrpcCall & { writableEnded: boolean; end(metadata?: Metadata): void };
  if (call.writableEnded || ctx._cancelReason !== undefined || ctx._finished) return;
  call.end(ctx._trailers);
}

/** After the chain of a unary or client-streaming call: send the response or the status. */
function answer(ctx: RunningContext): void {
  const respond = ctx._respond!;
  if (ctx._finished) return;
  if (ctx._cancelReason !== undefined) {
    // The client is gone; grpc-js has already ended the call. Record why for the wrappers' sake.
    if (!ctx._failed) ctx._fail(ctx._cancelReason);
    ctx._finished = true;
    return;
  }
  if (!ctx._failed && !ctx._hasResponse) {
    const outcome = ctx._answerOutcome();
    if ('error' in outcome) ctx._fail(outcome.error);
    else ctx._succeed(outcome.response);
  }
  ctx._finished = true;
  if (ctx._failed) {
    respond(ctx._statusObject());
    return;
  }
  ctx._flushHeaders();
  respond(null, ctx._response, ctx._trailer);
}

/** After the chain of a streaming call: anything still open is ended with the outcome. */
function finishStream(ctx: RunningContext): void {
  const call = ctx.call as GrpcCall & { writableEnded: boolean; end(metadata?: Metadata): void };
  if (ctx._finished || call.writableEnded || ctx._cancelReason !== undefined) return;
  if (!ctx._failed && ctx.grpcCode === undefined) {
    // Middleware answered without calling next.
    const outcome = ctx._answerOutcome();
    if ('error' in outcome) ctx._fail(outcome.error);
  }
  if (ctx._failed) {
    call.emit('error', ctx._error);
    return;
  }
  ctx._flushHeaders();
  ctx._finished = true;
  ctx._settle(GRPC_STATUS.OK);
  call.end(ctx._trailers);
}
