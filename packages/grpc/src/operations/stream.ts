import type { EventEmitter } from 'node:events';
import type { HTTPError, Operation, StreamEvent } from '@fw/core';
import { releaseStream, runStreamOperation, StreamStop, type LogFunction, type PluginHost } from '@fw/core/plugin';
import { callStateOf, type GrpcContext } from '../context.js';
import { GrpcError } from '../grpc-error.js';
import { GRPC_STATUS } from '../grpc-status.js';
import type { CallState } from '../internal/call-state.js';
import type { GrpcCall } from '../types.js';
import type { OperationCodec } from './codec.js';

/** What a streaming operation needs from the app: its stream registry and limits, and its log. */
export interface StreamSupport {
  readonly openStream: PluginHost['openStream'];
  readonly streams: PluginHost['streams'];
  readonly log: LogFunction;
}

/** Why a stream stopped before its events were done. */
type Stop =
  | { readonly kind: 'client' }
  | { readonly kind: 'end'; readonly reason: HTTPError }
  | { readonly kind: 'slow'; readonly message: string };

/** The writable side of a server-streaming call, as the stream writes to it. */
type Writer = EventEmitter & {
  write(chunk: Buffer, callback: () => void): boolean;
  readonly writableEnded: boolean;
};

const noop = (): void => undefined;

/**
 * The implementation of a streaming operation's RPC. The response serializer of the method is the
 * identity: each event is serialized here (`serialize`), so its size is known before it is written.
 */
export function streamImplementation(op: Operation, codec: OperationCodec, serialize: (message: unknown) => Buffer, support: StreamSupport): (call: GrpcCall) => Promise<void> {
  return (call) => new OperationStream(call, support).run(op, codec, serialize);
}

/**
 * One server stream of an operation: registered with the app's stream registry before anything is
 * sent, opened through `runStreamOperation` (its middleware and validation refuse with a status
 * alone), then each event encoded and written with back-pressure. It stops when the events are done,
 * the client cancels or its deadline passes (`ctx.signal`), the registry ends it (UNAVAILABLE: the
 * app closes, `streams.maxDuration`), or the client stops reading (RESOURCE_EXHAUSTED past
 * `streams.maxBufferedBytes` or `streams.stallTimeout`); then the handler's `return()` runs (its
 * `finally`) and the registry slot is given back once it settled.
 */
class OperationStream {
  readonly #call: GrpcCall;
  readonly #ctx: GrpcContext;
  readonly #state: CallState;
  readonly #support: StreamSupport;
  #stopped: Stop | undefined = undefined;
  /** What the loop waits on beside each step of the source and each drain. */
  readonly #stopping = new StreamStop();
  #unsent = 0;

  constructor(call: GrpcCall, support: StreamSupport) {
    this.#call = call;
    this.#ctx = call.ctx;
    this.#state = callStateOf(call.ctx);
    this.#support = support;
  }

  async run(op: Operation, codec: OperationCodec, serialize: (message: unknown) => Buffer): Promise<void> {
    const ctx = this.#ctx;
    // A 429 past the limits or a 503 while the app closes: thrown before anything is sent.
    const handle = this.#support.openStream({ protocol: 'grpc', clientKey: ctx.ip, end: (reason) => this.#stop({ kind: 'end', reason }) });
    const onAbort = (): void => this.#stop({ kind: 'client' });
    const signal = ctx.signal;
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    let events: AsyncIterableIterator<StreamEvent<unknown>>;
    try {
      events = await runStreamOperation(op, ctx, codec.request((this.#call as { request?: unknown }).request));
    } catch (err) {
      signal.removeEventListener('abort', onAbort);
      handle.close();
      throw err;
    }
    let failure: unknown = undefined;
    let failed = false;
    try {
      await this.#send(events, codec, serialize);
    } catch (err) {
      failed = true;
      failure = err;
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
    const stop = this.#stopped;
    // The handler learns through ctx.signal that its stream is over, whatever the reason.
    if (stop !== undefined) this.#state.abort(stop.kind === 'end' ? stop.reason : new GrpcError(GRPC_STATUS.CANCELLED, stopMessage(stop)));
    releaseStream(events, handle, this.#support.streams.stallTimeout, this.#ctx.path, this.#support.log);
    if (failed) throw failure;
    if (stop?.kind === 'end') throw stop.reason;
    if (stop?.kind === 'slow') {
      this.#support.log(`Ended the stream of ${ctx.path}: ${stop.message}`);
      throw new GrpcError(GRPC_STATUS.RESOURCE_EXHAUSTED, `The stream was ended: ${stop.message}`);
    }
    // Done, or the client left: a stream with no message still sends the headers middleware set.
    if (stop === undefined) this.#state.flushHeaders();
  }

  /** Writes every event until the source is done or the stream is stopped. */
  async #send(events: AsyncIterableIterator<StreamEvent<unknown>>, codec: OperationCodec, serialize: (message: unknown) => Buffer): Promise<void> {
    const call = this.#call as unknown as Writer;
    const { maxEventBytes, maxBufferedBytes, stallTimeout } = this.#support.streams;
    let pending: Promise<IteratorResult<StreamEvent<unknown>>> | undefined;
    /** Settles once the last event written was taken by the transport (its write callback). */
    let written: Promise<void> | undefined;
    try {
      for (;;) {
        if (this.#stopped !== undefined) return;
        pending = events.next();
        const step = await this.#stopping.race(pending);
        if (this.#stopped !== undefined) return;
        pending = undefined;
        const result = step as IteratorResult<StreamEvent<unknown>>;
        if (result.done === true) return;
        const bytes = serialize(codec.response(result.value.data));
        if (bytes.length > maxEventBytes) throw new Error(`An event of ${bytes.length} bytes is larger than streams.maxEventBytes (${maxEventBytes})`);
        if (call.writableEnded) return;
        // Past the bound, the client first takes what waits (one that takes nothing for
        // stallTimeout is ended): an event larger than the bound (within maxEventBytes) still
        // reaches a client that reads, and no more than the bound plus one event waits.
        if (this.#unsent > 0 && this.#unsent + bytes.length > maxBufferedBytes) {
          await this.#drained(call, stallTimeout, written, `more than ${maxBufferedBytes} bytes (streams.maxBufferedBytes) were waiting for the client`);
          if (this.#stopped !== undefined) return;
        }
        this.#state.flushHeaders();
        this.#unsent += bytes.length;
        const size = bytes.length;
        let taken: () => void = noop;
        written = new Promise<void>((resolve) => (taken = resolve));
        const flowing = call.write(bytes, () => {
          this.#unsent -= size;
          taken();
        });
        if (!flowing) await this.#drained(call, stallTimeout);
      }
    } finally {
      // A next() given up on may still settle: nothing waits for it any more.
      pending?.then(noop, noop);
    }
  }

  #stop(stop: Stop): void {
    if (this.#stopped !== undefined) return;
    this.#stopped = stop;
    if (stop.kind === 'end') this.#state.abort(stop.reason);
    this.#stopping.stop();
  }

  /** Waits for 'drain' (or `written` to settle), the stream's end, or `stallTimeout` ms (then the stream is stopped for `reason`). */
  async #drained(call: Writer, stallTimeout: number, written?: Promise<void>, reason = `the client read nothing for ${stallTimeout} ms (streams.stallTimeout)`): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    let onDrain: () => void = noop;
    await this.#stopping.race(
      new Promise<void>((resolve) => {
        onDrain = resolve;
        call.once('drain', onDrain);
        void written?.then(resolve);
        timer = setTimeout(() => {
          this.#stop({ kind: 'slow', message: reason });
          resolve();
        }, stallTimeout);
      }),
    );
    clearTimeout(timer);
    call.removeListener('drain', onDrain);
  }

}

function stopMessage(stop: Exclude<Stop, { kind: 'end' }>): string {
  return stop.kind === 'client' ? 'The client cancelled the call' : `The stream was ended: ${stop.message}`;
}
