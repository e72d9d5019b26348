import type { OutgoingHttpHeader, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Transform } from 'node:stream';
import type { CompressEncoding } from '../types.js';
import { appendVary } from './headers.js';

/** What `compress()` resolved once: the policy every response of the app is held to. */
export interface CompressPolicy {
  readonly threshold: number;
  readonly compressible: (mediaType: string) => boolean;
  /** A new encoder for a coding, and the flush kind that pushes out what it holds so far. */
  readonly encoder: (coding: CompressEncoding) => Transform;
  readonly flushKind: (coding: CompressEncoding) => number;
  /** Compresses a small whole body at once (zlib's one-shot call, on this thread). */
  readonly compressWhole: (coding: CompressEncoding, body: Buffer) => Buffer;
}

/**
 * The largest whole body compressed on the main thread. Below it, zlib's one-shot call costs less
 * than half the CPU of a stream (measured on a 10 KB JSON answer: 121 µs against 197 µs through
 * the stream, whose set-up and hand-offs to the thread pool dominate) and blocks the event loop
 * for well under a millisecond; above it, the body goes through a stream, off the main thread.
 */
const SYNC_LIMIT = 32 * 1024;

// The raw methods, as this file calls them (node's overloads say the same more verbosely).
type WriteHead = (this: ServerResponse, status: number, ...rest: unknown[]) => ServerResponse;
type Write = (this: ServerResponse, chunk: unknown, ...rest: unknown[]) => boolean;
type End = (this: ServerResponse, ...rest: unknown[]) => ServerResponse;
type Callback = (error?: Error | null) => void;

const STATE: unique symbol = Symbol('fw.compress');
type Patched = ServerResponse & { [STATE]?: ResponseCompression };

/** Answers with their own compression (gRPC-Web, Connect streams) or that must reach the client event by event. */
const NEVER = /^(?:text\/event-stream|application\/grpc(?:[+-].*)?|application\/connect\+.*)$/;

/**
 * One response's compression. The decision is taken when the status and headers are final (the
 * first `writeHead`, `write` or `end`, whoever calls it: the framework writing `ctx.json()`, a
 * handler writing to `ctx.res`, a stream piped into it), so every kind of body is held to one rule.
 * A body given whole (`end(body)`) is compressed as one buffer; a body written piece by piece is
 * compressed as it comes, what is written in one turn of the event loop flushed at the end of it,
 * so a streamed answer reaches the client while it is still being produced.
 */
class ResponseCompression {
  decided = false;
  encoder: Transform | undefined = undefined;
  compressing = false;
  flushScheduled = false;
  /** A body given whole: the compressed bytes gathered, sent with one `end`. */
  whole: Buffer[] | undefined = undefined;
  endCallback: Callback | undefined = undefined;

  constructor(
    readonly res: Patched,
    readonly coding: CompressEncoding | undefined,
    readonly policy: CompressPolicy,
    readonly writeHead: WriteHead,
    readonly write: Write,
    readonly end: End,
  ) {}

  /** Takes the decision for the response as it stands; `length` is the body's size when known. */
  decide(length: number | undefined): void {
    this.decided = true;
    const res = this.res;
    if (this.#compressible(res)) {
      appendVary(res, 'Accept-Encoding');
      const declared = res.getHeader('content-length');
      const size = declared === undefined ? length : Number(declared);
      if (this.coding !== undefined && (size === undefined || !(size < this.policy.threshold))) {
        res.setHeader('content-encoding', this.coding);
        res.removeHeader('content-length');
        // The encoded bytes differ from the identity ones a strong validator names (nginx does the same).
        const etag = res.getHeader('etag');
        if (typeof etag === 'string' && etag.startsWith('"')) res.setHeader('etag', `W/${etag}`);
        this.compressing = true;
        return;
      }
    }
    // Nothing to do for this response: the raw methods again, so the rest costs nothing.
    res.writeHead = this.writeHead;
    res.write = this.write as ServerResponse['write'];
    res.end = this.end as ServerResponse['end'];
  }

  #compressible(res: ServerResponse): boolean {
    const status = res.statusCode;
    if (status < 200 || status === 204 || status === 206 || status === 304) return false;
    if (res.hasHeader('content-encoding') || res.hasHeader('content-range')) return false;
    const type = res.getHeader('content-type');
    if (type === undefined) return false;
    const text = String(type);
    const semi = text.indexOf(';');
    const media = (semi === -1 ? text : text.slice(0, semi)).trim().toLowerCase();
    if (NEVER.test(media) || !this.policy.compressible(media)) return false;
    const cacheControl = res.getHeader('cache-control');
    return cacheControl === undefined || !/(?:^|[\s,])no-transform(?:$|[\s,])/i.test(String(cacheControl));
  }

  /** The encoder of a body written piece by piece: its output written as it comes, with back-pressure both ways. */
  open(): Transform {
    const res = this.res;
    const encoder = this.#make();
    encoder.on('data', (chunk: Buffer) => {
      if (this.whole !== undefined) this.whole.push(chunk);
      else if (!this.write.call(res, chunk)) encoder.pause();
    });
    // The writer waits for the response's 'drain'; the encoder's is the one that matters to it.
    encoder.on('drain', () => res.emit('drain'));
    res.on('drain', () => encoder.resume());
    return encoder;
  }

  #make(): Transform {
    const res = this.res;
    const encoder = this.policy.encoder(this.coding!);
    this.encoder = encoder;
    encoder.once('end', () => {
      const whole = this.whole;
      if (whole === undefined) this.end.call(res, this.endCallback);
      else this.end.call(res, whole.length === 1 ? whole[0] : Buffer.concat(whole), this.endCallback);
    });
    encoder.once('error', (err) => res.destroy(err));
    // A client that leaves stops the encoding (and frees zlib's memory) at once.
    res.once('close', () => encoder.destroy());
    return encoder;
  }

  /** The whole body at once: compressed in one go, sent with one `end`. */
  endWhole(chunk: unknown, encoding: BufferEncoding | undefined): void {
    this.whole = [];
    const encoder = this.#make();
    encoder.on('data', (out: Buffer) => this.whole!.push(out));
    if (chunk === undefined || chunk === null) encoder.end();
    else if (encoding === undefined) encoder.end(chunk as Buffer);
    else encoder.end(chunk as string, encoding);
  }

  scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(flushPending, this);
  }
}

/** Pushes out what the encoder holds: what was written in the last turn reaches the client now. */
function flushPending(state: ResponseCompression): void {
  state.flushScheduled = false;
  const encoder = state.encoder;
  if (encoder !== undefined && !encoder.destroyed && !encoder.writableEnded) {
    (encoder as Transform & { flush(kind: number): void }).flush(state.policy.flushKind(state.coding!));
  }
}

/**
 * Makes `res` compress its body with `coding` (undefined: only `Vary` is added) when the policy
 * says the answer qualifies, decided when its headers are final.
 */
export function compressResponse(res: ServerResponse, coding: CompressEncoding | undefined, policy: CompressPolicy): void {
  const patched = res as Patched;
  // eslint-disable-next-line @typescript-eslint/unbound-method -- kept to be called with .call(res)
  patched[STATE] = new ResponseCompression(patched, coding, policy, res.writeHead as WriteHead, res.write as Write, res.end as End);
  patched.writeHead = writeHead;
  patched.write = write as ServerResponse['write'];
  patched.end = end as ServerResponse['end'];
}

function writeHead(this: Patched, status: number, reason?: string | OutgoingHttpHeaders | OutgoingHttpHeader[], headers?: OutgoingHttpHeaders | OutgoingHttpHeader[]): ServerResponse {
  const state = this[STATE]!;
  // eslint-disable-next-line prefer-rest-params -- passes the call on as it came
  if (state.decided) return Reflect.apply(state.writeHead, this, arguments) as ServerResponse;
  const message = typeof reason === 'string' ? reason : undefined;
  const list = typeof reason === 'string' ? headers : reason;
  if (list !== undefined) applyHeaders(this, list);
  this.statusCode = status;
  state.decide(undefined);
  return message === undefined ? state.writeHead.call(this, status) : state.writeHead.call(this, status, message);
}

// Its parameters are node's; the call is passed on with `arguments`, as it came.
function write(this: Patched, _chunk: unknown, _encoding?: BufferEncoding | Callback, _callback?: Callback): boolean {
  const state = this[STATE]!;
  if (!state.decided) this.writeHead(this.statusCode);
  // eslint-disable-next-line prefer-rest-params -- passes the call on as it came
  if (!state.compressing) return Reflect.apply(state.write, this, arguments) as boolean;
  const encoder = state.encoder ?? state.open();
  state.scheduleFlush();
  // eslint-disable-next-line @typescript-eslint/unbound-method, prefer-rest-params -- called on the encoder, with the call as it came
  return Reflect.apply(encoder.write, encoder, arguments) as boolean;
}

function end(this: Patched, chunk?: unknown, encodingOrCallback?: BufferEncoding | Callback, callback?: Callback): ServerResponse {
  const state = this[STATE]!;
  let encoding = typeof encodingOrCallback === 'string' ? encodingOrCallback : undefined;
  if (typeof chunk === 'function') {
    callback = chunk as Callback;
    chunk = undefined;
    encoding = undefined;
  } else if (typeof encodingOrCallback === 'function') callback = encodingOrCallback;
  if (!state.decided) {
    const length = this.hasHeader('content-length') ? undefined : byteLength(chunk, encoding);
    state.decide(length);
    state.writeHead.call(this, this.statusCode);
  }
  // eslint-disable-next-line prefer-rest-params -- passes the call on as it came
  if (!state.compressing) return Reflect.apply(state.end, this, arguments) as ServerResponse;
  if (state.endCallback !== undefined || state.encoder?.writableEnded === true) return this;
  state.endCallback = callback;
  if (state.encoder === undefined) {
    const body = chunk === undefined || chunk === null ? undefined : typeof chunk === 'string' ? Buffer.from(chunk, encoding) : (chunk as Buffer);
    if (body !== undefined && body.byteLength <= SYNC_LIMIT) {
      let out: Buffer;
      try {
        out = state.policy.compressWhole(state.coding!, body);
      } catch (err) {
        this.destroy(err as Error);
        return this;
      }
      return callback === undefined ? state.end.call(this, out) : state.end.call(this, out, callback);
    }
    state.endWhole(chunk, encoding);
  }
  else if (chunk === undefined || chunk === null) state.encoder.end();
  else if (encoding === undefined) state.encoder.end(chunk as Buffer);
  else state.encoder.end(chunk as string, encoding);
  return this;
}

function byteLength(chunk: unknown, encoding: BufferEncoding | undefined): number {
  if (chunk === undefined || chunk === null) return 0;
  if (typeof chunk === 'string') return Buffer.byteLength(chunk, encoding);
  return (chunk as Uint8Array).byteLength;
}

/** The headers `writeHead` was given, set as node's `writeHead` sets them over headers already set. */
function applyHeaders(res: ServerResponse, list: OutgoingHttpHeaders | OutgoingHttpHeader[]): void {
  if (!Array.isArray(list)) {
    for (const [name, value] of Object.entries(list)) if (value !== undefined) res.setHeader(name, value);
    return;
  }
  // A flat [name, value, …] list may repeat a name on purpose (Set-Cookie): the later values are appended.
  const seen = new Set<string>();
  for (let i = 0; i + 1 < list.length; i += 2) {
    const name = String(list[i]).toLowerCase();
    const value = list[i + 1] as string | string[];
    if (seen.has(name)) res.appendHeader(name, value);
    else {
      seen.add(name);
      res.setHeader(name, value);
    }
  }
}
