import type { ServerResponse } from 'node:http';
import type { Context } from './context.js';
import { errorBody, toHTTPError, type HTTPError } from './http-error.js';
import type { StreamHost } from './internal/stream-host.js';
import { ABORT } from './internal/symbols.js';
import { responseSink } from './response-sink.js';
import { isServerFault } from './server-fault.js';
import type { OpenStream } from './stream-registry.js';
import { StreamPump, type StreamStopReason } from './stream-pump.js';
import type { StreamEvent } from './stream.js';

/** Options of `ctx.sse()`. */
export interface SSEOptions {
  /** Turns an event's value into its `data:` text (line breaks become several `data:` lines). @default JSON.stringify */
  serialize?: (data: unknown) => string;
}

const noop = (): void => undefined;
const HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' };

/**
 * One server-sent event stream over a response (`text/event-stream`): the status line, the headers
 * and `retry:` as soon as the stream runs (after middleware and validation, whose refusals are
 * real statuses), `id:` from `tracked()`, and the shared stream policy (`StreamPump`: back-pressure,
 * stalled clients, heartbeats, event size, fairness). A failure once the stream runs is an
 * `event: error` carrying the JSON error body, then the end.
 */
export class SseStream {
  readonly #ctx: Context;
  readonly #res: ServerResponse;
  readonly #host: StreamHost;
  readonly #handle: OpenStream;
  readonly #serialize: (data: unknown) => string;
  #headersSent = false;

  /** Registers the stream with the app's registry: throws its 429 or 503 before anything is sent. */
  constructor(ctx: Context, host: StreamHost, options: SSEOptions = {}) {
    if (options.serialize !== undefined && typeof options.serialize !== 'function') throw new TypeError('sse() expects serialize to be a function');
    this.#ctx = ctx;
    this.#res = ctx.res;
    this.#host = host;
    this.#serialize = options.serialize ?? JSON.stringify;
    // The pump watches the slot's signal: the registry ending the stream stops it.
    this.#handle = host.registry.open({ protocol: ctx.protocol, clientKey: ctx.ip, end: noop });
  }

  /** Gives the registry slot back when the stream never ran (its operation refused to open). */
  abandon(): void {
    this.#handle.close();
  }

  /**
   * Sends `source`'s events until it is done, the client leaves, the registry ends the stream or
   * the client stops reading; then ends the response and runs the source's `return()`. Rejects
   * only while nothing was sent.
   */
  async run(source: AsyncIterator<StreamEvent<unknown>>): Promise<void> {
    const res = this.#res;
    const config = this.#host.registry.config;
    const where = `${this.#ctx.method} ${this.#ctx.path}`;
    const pump = new StreamPump(responseSink(res, (event: StreamEvent<unknown>) => this.#frame(event)), { config, log: this.#host.log, where, slot: this.#handle });
    const onClose = (): void => {
      if (!res.writableFinished) pump.stop({ kind: 'client' });
    };
    res.once('close', onClose);
    if (res.destroyed) onClose();
    let failure: unknown = undefined;
    let failed = false;
    try {
      // A client already gone never starts the source.
      if (pump.stopped === undefined) this.#start();
      if (this.#ctx.method !== 'HEAD') await pump.run(source);
    } catch (err) {
      failure = err;
      failed = true;
    } finally {
      res.removeListener('close', onClose);
    }
    const stop = pump.stopped;
    this.#ctx[ABORT](stop?.kind === 'end' ? stop.reason : streamEnded(stop));
    const error = failed ? toHTTPError(failure) : undefined;
    pump.finish(error === undefined ? undefined : { error: failure, serverFault: isServerFault(error) });
    pump.release(source);
    if (failed && !this.#headersSent) throw failure;
    this.#finishWire(stop, error, config.retry);
  }

  /** Writes the headers and the `retry:` line, once. */
  #start(): void {
    if (this.#headersSent) return;
    this.#headersSent = true;
    const res = this.#res;
    res.writeHead(200, HEADERS);
    if (this.#ctx.method === 'HEAD') return;
    res.write(`retry: ${this.#host.registry.config.retry}\n\n`);
  }

  /** One event's lines: `id:` when tracked, one `data:` line per line of the serialised value. */
  #frame(event: StreamEvent<unknown>): string {
    const text = this.#serialize(event.data);
    if (typeof text !== 'string') throw new TypeError('An event could not be serialised (serialize returned no string)');
    const frame = event.id === undefined ? '' : `id: ${event.id}\n`;
    return text.includes('\n') || text.includes('\r') ? `${frame}data: ${text.split(/\r\n|\r|\n/).join('\ndata: ')}\n\n` : `${frame}data: ${text}\n\n`;
  }

  /** Ends the response: an error event, a reconnect hint, or the plain end; nothing for a client that left or was cut. */
  #finishWire(stop: StreamStopReason | undefined, error: HTTPError | undefined, retry: number): void {
    const res = this.#res;
    if (stop?.kind === 'client' || stop?.kind === 'slow' || res.destroyed) return;
    this.#start();
    if (error !== undefined) {
      let data: string;
      try {
        data = JSON.stringify(errorBody(error));
      } catch {
        data = JSON.stringify({ error: true, message: 'Internal Server Error', code: 500 });
      }
      res.end(`event: error\ndata: ${data}\n\n`);
      return;
    }
    if (stop?.kind === 'end') res.end(`retry: ${retry}\n\n`);
    else res.end();
  }
}

/** The reason `ctx.signal` aborts with when a stream ends for a reason other than the registry's. */
function streamEnded(stop: StreamStopReason | undefined): Error {
  const error = new Error(stop?.kind === 'client' ? 'The client closed the stream' : stop?.kind === 'slow' ? `The stream was ended: ${stop.message}` : 'The stream ended');
  error.name = 'AbortError';
  return error;
}
