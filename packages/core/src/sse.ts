import type { ServerResponse } from 'node:http';
import type { Context } from './context.js';
import { errorBody, toHTTPError, type HTTPError } from './http-error.js';
import type { StreamHost } from './internal/stream-host.js';
import { ABORT } from './internal/symbols.js';
import { releaseStream, type OpenStream } from './stream-registry.js';
import { StreamStop } from './stream-stop.js';
import type { StreamEvent } from './stream.js';

/** Options of `ctx.sse()`. */
export interface SSEOptions {
  /** Turns an event's value into its `data:` text (line breaks become several `data:` lines). @default JSON.stringify */
  serialize?: (data: unknown) => string;
}

/** Why a stream stopped before its source was done. */
type Stop =
  | { readonly kind: 'client' }
  | { readonly kind: 'end'; readonly reason: HTTPError }
  | { readonly kind: 'slow'; readonly message: string };

const HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' };
const HEARTBEAT = ':\n\n';
const noop = (): void => undefined;

/**
 * One server-sent event stream over a response (`text/event-stream`): `id:` from `tracked()`,
 * `retry:` first and when the registry ends the stream, comment heartbeats, back-pressure, and the
 * rules of when a failure is still a status. Nothing is written until the first event, the first
 * heartbeat or the end: a failure before that (the handler throws before its first yield) rejects
 * `run`, so the route answers it with a real status and the JSON error body. A failure after it
 * is an `event: error` carrying the same body, then the end.
 */
export class SseStream {
  readonly #ctx: Context;
  readonly #res: ServerResponse;
  readonly #host: StreamHost;
  readonly #handle: OpenStream;
  readonly #serialize: (data: unknown) => string;
  #stopped: Stop | undefined = undefined;
  /** What the loop waits on beside each step of the source and each drain. */
  readonly #stopping = new StreamStop();
  #headersSent = false;
  #lastWrite = 0;

  /** Registers the stream with the app's registry: throws its 429 or 503 before anything is sent. */
  constructor(ctx: Context, host: StreamHost, options: SSEOptions = {}) {
    if (options.serialize !== undefined && typeof options.serialize !== 'function') throw new TypeError('sse() expects serialize to be a function');
    this.#ctx = ctx;
    this.#res = ctx.res;
    this.#host = host;
    this.#serialize = options.serialize ?? JSON.stringify;
    this.#handle = host.registry.open({ protocol: ctx.protocol, clientKey: ctx.ip, end: (reason) => this.#stop({ kind: 'end', reason }) });
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
    const onClose = (): void => {
      if (!res.writableFinished) this.#stop({ kind: 'client' });
    };
    res.once('close', onClose);
    if (res.destroyed) onClose();
    const heartbeat = config.heartbeat > 0 ? setInterval(() => this.#beat(config.heartbeat), config.heartbeat) : undefined;
    heartbeat?.unref();
    let failure: unknown = undefined;
    let failed = false;
    let pending: Promise<IteratorResult<StreamEvent<unknown>>> | undefined;
    try {
      if (this.#ctx.method === 'HEAD') {
        this.#start();
      } else {
        // A client already gone never starts the source.
        while (this.#stopped === undefined) {
          pending = source.next();
          const step = await this.#stopping.race(pending);
          if (this.#stopped !== undefined) break;
          pending = undefined;
          const result = step as IteratorResult<StreamEvent<unknown>>;
          if (result.done === true) break;
          const chunk = this.#frame(result.value, config.maxEventBytes);
          this.#start();
          const flowing = res.write(chunk);
          this.#lastWrite = Date.now();
          // Nothing more is pulled from the source while the client has not taken what waits: at
          // most one event past the bound is ever held. An event larger than the bound still
          // reaches a client that reads; one that takes nothing for stallTimeout is ended, with the
          // bound as the reason when it was passed.
          if (!flowing) {
            const over = res.writableLength > config.maxBufferedBytes;
            await this.#drained(config.stallTimeout, over ? `more than ${config.maxBufferedBytes} bytes (streams.maxBufferedBytes) were waiting for the client` : undefined);
          }
          if (this.#stopped !== undefined) break;
        }
      }
    } catch (err) {
      failure = err;
      failed = true;
    } finally {
      if (heartbeat !== undefined) clearInterval(heartbeat);
      res.removeListener('close', onClose);
    }
    const stop = this.#stopped;
    this.#ctx[ABORT](stop?.kind === 'end' ? stop.reason : streamEnded(stop));
    // A pending next() that was given up on may still settle: nothing waits for it any more.
    if (pending !== undefined) pending.then(noop, noop);
    releaseStream(source, this.#handle, config.stallTimeout, `${this.#ctx.method} ${this.#ctx.path}`, this.#host.log);
    if (failed && !this.#headersSent) throw failure;
    this.#finishWire(stop, failed, failure, config.retry);
  }

  /** Writes the headers and the `retry:` line, once. */
  #start(): void {
    if (this.#headersSent) return;
    this.#headersSent = true;
    const res = this.#res;
    res.writeHead(200, HEADERS);
    if (this.#ctx.method === 'HEAD') return;
    res.write(`retry: ${this.#host.registry.config.retry}\n\n`);
    this.#lastWrite = Date.now();
  }

  /** A heartbeat tick: the headers if still unsent, else a comment line when nothing was written for a while. */
  #beat(interval: number): void {
    if (this.#stopped !== undefined || this.#res.destroyed) return;
    if (!this.#headersSent) {
      this.#start();
      return;
    }
    // Data still queued keeps the connection busy enough; and it must not grow while the client does not read.
    if (this.#res.writableLength > 0 || Date.now() - this.#lastWrite < interval / 2) return;
    this.#res.write(HEARTBEAT);
    this.#lastWrite = Date.now();
  }

  #stop(stop: Stop): void {
    if (this.#stopped !== undefined) return;
    this.#stopped = stop;
    this.#stopping.stop();
  }

  /** Waits for 'drain', the stream's end, or `stallTimeout` ms (then the stream is stopped as stalled, saying `reason` when given). */
  async #drained(stallTimeout: number, reason?: string): Promise<void> {
    const res = this.#res;
    let timer: NodeJS.Timeout | undefined;
    let onDrain: () => void = noop;
    await this.#stopping.race(
      new Promise<void>((resolve) => {
        onDrain = resolve;
        res.once('drain', onDrain);
        timer = setTimeout(() => {
          this.#stop({ kind: 'slow', message: reason ?? `the client read nothing for ${stallTimeout} ms (streams.stallTimeout)` });
          resolve();
        }, stallTimeout);
      }),
    );
    clearTimeout(timer);
    res.removeListener('drain', onDrain);
  }

  /** One event's lines: `id:` when tracked, one `data:` line per line of the serialised value. */
  #frame(event: StreamEvent<unknown>, maxEventBytes: number): string {
    const text = this.#serialize(event.data);
    if (typeof text !== 'string') throw new TypeError('An event could not be serialised (serialize returned no string)');
    let frame = event.id === undefined ? '' : `id: ${event.id}\n`;
    frame += text.includes('\n') || text.includes('\r') ? `data: ${text.split(/\r\n|\r|\n/).join('\ndata: ')}\n\n` : `data: ${text}\n\n`;
    if (frame.length * 3 > maxEventBytes) {
      const bytes = Buffer.byteLength(frame);
      if (bytes > maxEventBytes) throw new Error(`An event of ${bytes} bytes is larger than streams.maxEventBytes (${maxEventBytes})`);
    }
    return frame;
  }


  /** Ends the response: an error event, a reconnect hint, or the plain end; cut for a client that does not read. */
  #finishWire(stop: Stop | undefined, failed: boolean, failure: unknown, retry: number): void {
    const res = this.#res;
    if (stop?.kind === 'client' || res.destroyed) return;
    if (stop?.kind === 'slow') {
      this.#host.log(`Ended the stream of ${this.#ctx.method} ${this.#ctx.path}: ${stop.message}`);
      res.destroy();
      return;
    }
    this.#start();
    if (failed) {
      const error = toHTTPError(failure);
      if (error.statusCode >= 500) this.#host.log(`Error in the stream of ${this.#ctx.method} ${this.#ctx.path}`, failure);
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
function streamEnded(stop: Stop | undefined): Error {
  const error = new Error(stop?.kind === 'client' ? 'The client closed the stream' : stop?.kind === 'slow' ? `The stream was ended: ${stop.message}` : 'The stream ended');
  error.name = 'AbortError';
  return error;
}
