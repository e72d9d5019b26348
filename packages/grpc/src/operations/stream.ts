import type { EventEmitter } from 'node:events';
import type { Operation, StreamEvent } from '@fw/core';
import http2 from 'node:http2';
import { runStreamOperation, StreamPump, type LogFunction, type PluginHost, type StreamSink } from '@fw/core/plugin';
import { callStateOf } from '../context.js';
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

/** The writable side of a server-streaming call, as the stream writes to it. */
type Writer = EventEmitter & {
  write(chunk: Buffer, callback: () => void): boolean;
  readonly writableEnded: boolean;
};

const noop = (): void => undefined;

/**
 * The implementation of a streaming operation's RPC. The response serializer of the method is the
 * identity: each event is serialized here, so its size is known before it is written.
 */
export function streamImplementation(op: Operation, codec: OperationCodec, serialize: (message: unknown) => Buffer, support: StreamSupport): (call: GrpcCall) => Promise<void> {
  return (call) => runStream(call, op, codec, serialize, support);
}

/**
 * One server stream of an operation: registered with the app's stream registry before anything is
 * sent, opened through `runStreamOperation` (its middleware and validation refuse with a status
 * alone), then pumped by the shared stream policy (`StreamPump`) into the call. It stops when the
 * events are done, the client cancels or its deadline passes (`ctx.signal`), the registry ends it
 * (UNAVAILABLE: the app closes, `streams.maxDuration`), or the client stops reading (the HTTP/2
 * stream is reset, and the handler sees RESOURCE_EXHAUSTED); then the handler's `return()` runs
 * (its `finally`) and the registry slot is given back once it settled.
 */
async function runStream(call: GrpcCall, op: Operation, codec: OperationCodec, serialize: (message: unknown) => Buffer, support: StreamSupport): Promise<void> {
  const ctx = call.ctx;
  const state = callStateOf(ctx);
  // A 429 past the limits or a 503 while the app closes: thrown before anything is sent.
  const slot = support.openStream({ protocol: 'grpc', clientKey: ctx.ip, end: noop });
  const pump = new StreamPump(callSink(call as unknown as Writer, state, support.streams.maxBufferedBytes, (event) => serialize(codec.response(event.data))), { config: support.streams, log: support.log, where: ctx.path, slot });
  const onAbort = (): void => pump.stop({ kind: 'client' });
  const signal = ctx.signal;
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  let events: AsyncIterableIterator<StreamEvent<unknown>>;
  try {
    events = await runStreamOperation(op, ctx, codec.request((call as { request?: unknown }).request));
  } catch (err) {
    signal.removeEventListener('abort', onAbort);
    pump.finish();
    slot.close();
    throw err;
  }
  let failure: unknown = undefined;
  let failed = false;
  try {
    await pump.run(events);
  } catch (err) {
    failed = true;
    failure = err;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  const stop = pump.stopped;
  // The handler learns through ctx.signal that its stream is over, whatever the reason.
  if (stop !== undefined) state.abort(stop.kind === 'end' ? stop.reason : new GrpcError(GRPC_STATUS.CANCELLED, stop.kind === 'client' ? 'The client cancelled the call' : `The stream was ended: ${stop.message}`));
  pump.release(events);
  if (failed) throw failure;
  if (stop?.kind === 'end') throw stop.reason;
  if (stop?.kind === 'slow') throw new GrpcError(GRPC_STATUS.RESOURCE_EXHAUSTED, `The stream was ended: ${stop.message}`);
  // Done, or the client left: a stream with no message still sends the headers middleware set.
  if (stop === undefined) state.flushHeaders();
}

/**
 * The call as a stream sink: unsent bytes counted from each write to its callback (grpc-js took it
 * for the HTTP/2 stream), a wait past the writable's high-water mark or `maxBufferedBytes`, and a
 * client that stopped reading cut with RST_STREAM, so neither its slot nor its buffer outlives it.
 */
function callSink(call: Writer, state: CallState, limit: number, encode: (event: StreamEvent<unknown>) => Buffer): StreamSink<StreamEvent<unknown>> {
  let unsent = 0;
  let needDrain = false;
  const waiting = new Set<() => void>();
  const wake = (): void => {
    for (const listener of [...waiting]) listener();
  };
  call.on('drain', () => {
    needDrain = false;
    wake();
  });
  return {
    encode,
    write(chunk: string | Uint8Array) {
      if (call.writableEnded) return;
      state.flushHeaders();
      const size = chunk.length;
      unsent += size;
      needDrain = !call.write(chunk as Buffer, () => {
        unsent -= size;
        if (waiting.size > 0 && !needDrain && unsent <= limit) wake();
      });
    },
    buffered: () => unsent,
    needsDrain: () => needDrain || unsent > limit,
    onDrain(listener: () => void) {
      const once = (): void => {
        waiting.delete(once);
        listener();
      };
      waiting.add(once);
      return () => waiting.delete(once);
    },
    cut() {
      resetStream(call);
    },
  };
}

/**
 * Resets the call's HTTP/2 stream with ENHANCE_YOUR_CALM (which a gRPC client reads as
 * RESOURCE_EXHAUSTED): a status sent behind data the client never reads would wait as long as the
 * client does, holding the stream and its buffer. grpc-js offers no public way, so the stream is found
 * on its call objects; when it is not there, the status alone ends the call, as before.
 */
function resetStream(call: Writer): void {
  let inner = (call as unknown as { call?: unknown }).call;
  for (let depth = 0; depth < 8 && typeof inner === 'object' && inner !== null; depth += 1) {
    const stream = (inner as { stream?: { close?: (code: number) => void; rstCode?: unknown } }).stream;
    if (stream !== undefined && typeof stream.close === 'function' && 'rstCode' in stream) {
      stream.close(http2.constants.NGHTTP2_ENHANCE_YOUR_CALM);
      return;
    }
    inner = (inner as { nextCall?: unknown }).nextCall;
  }
}
