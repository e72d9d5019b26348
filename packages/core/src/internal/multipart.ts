import type { IncomingMessage } from 'node:http';
import { PassThrough, type Readable } from 'node:stream';
import type { BusboyConfig, Busboy, FileInfo, FieldInfo } from 'busboy';
import { markClientGone } from '../client-gone.js';
import { HTTPError } from '../http-error.js';
import type { MultipartPart, ResolvedMultipartConfig } from '../multipart.js';
import { parseMediaType } from './media-type.js';

/**
 * Reads a `multipart/form-data` body with busboy, loaded on the first such body (an app that takes
 * none never loads it), as a queue of parts that the reader pulls from: a file's stream must be
 * read before the next part is parsed, so a body is never buffered whole. Every limit is busboy's
 * or counted here, and each ends the parse at once with a 413 that names it; malformed input is a
 * 400; a client that leaves ends it with an error marked as its doing (not a server error).
 */

type BusboyFactory = (config: BusboyConfig) => Busboy;

let loading: Promise<BusboyFactory> | undefined;

/** busboy, required once, on the first multipart body. */
function loadBusboy(): Promise<BusboyFactory> {
  return (loading ??= import('busboy').then((module) => {
    const loaded = module as unknown as { default?: BusboyFactory } & BusboyFactory;
    return typeof loaded.default === 'function' ? loaded.default : loaded;
  }));
}

/** Whether a Content-Type is `multipart/form-data` (with or without its boundary). */
export function isMultipart(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  return parseMediaType(contentType)?.essence === 'multipart/form-data';
}

/** A 413 naming the limit; the rest of the body is drained (up to `totalSize`), so the client reads the answer. */
function limitError(message: string): HTTPError {
  return new HTTPError(413, message);
}

/** A part's file name as metadata: its last path segment, without control characters; never a path. */
export function sanitizeFilename(name: string | undefined): string {
  if (name === undefined) return '';
  // eslint-disable-next-line no-control-regex -- control characters (NUL among them) are what is removed
  const clean = name.replace(/[\u0000-\u001f\u007f]/g, '');
  const base = clean.slice(Math.max(clean.lastIndexOf('/'), clean.lastIndexOf('\\')) + 1).trim();
  if (base === '.' || base === '..') return '';
  return base.length > 255 ? base.slice(0, 255) : base;
}

interface Waiter {
  resolve(result: IteratorResult<MultipartPart>): void;
  reject(error: unknown): void;
}

/**
 * The parts of one request's multipart body, in order. `next()` skips what is left of a file the
 * reader did not read; `return()` (a `break` out of `for await`) stops parsing and drains the rest.
 */
export class MultipartReader implements AsyncIterableIterator<MultipartPart> {
  readonly #req: IncomingMessage;
  readonly #limits: ResolvedMultipartConfig;
  readonly #queue: MultipartPart[] = [];
  #waiter: Waiter | undefined;
  #error: unknown = undefined;
  #failed = false;
  #done = false;
  #parser: Busboy | undefined;
  #current: Readable | undefined;
  #received = 0;
  #started: Promise<void> | undefined;

  constructor(req: IncomingMessage, limits: ResolvedMultipartConfig) {
    this.#req = req;
    this.#limits = limits;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  async next(): Promise<IteratorResult<MultipartPart>> {
    await (this.#started ??= this.#start());
    const current = this.#current;
    if (current !== undefined) {
      this.#current = undefined;
      // A file the reader left unread is skipped, so that parsing goes on.
      if (!current.readableEnded && !current.destroyed) current.resume();
    }
    if (this.#failed) throw this.#error;
    const part = this.#queue.shift();
    if (part !== undefined) return this.#hand(part);
    if (this.#done) return { done: true, value: undefined };
    return new Promise<IteratorResult<MultipartPart>>((resolve, reject) => {
      this.#waiter = { resolve: (result) => resolve(result.done === true ? result : this.#hand(result.value)), reject };
    });
  }

  async return(): Promise<IteratorResult<MultipartPart>> {
    if (!this.#done && !this.#failed) this.#stop();
    this.#done = true;
    return { done: true, value: undefined };
  }

  #hand(part: MultipartPart): IteratorResult<MultipartPart> {
    if (part.type === 'file') this.#current = part.stream;
    return { done: false, value: part };
  }

  async #start(): Promise<void> {
    const req = this.#req;
    const limits = this.#limits;
    const contentType = req.headers['content-type'];
    if (!isMultipart(contentType)) throw new HTTPError(415, `Expected a multipart/form-data body, got ${contentType === undefined ? 'no Content-Type' : 'another Content-Type'}`);
    const encoding = req.headers['content-encoding'];
    if (encoding !== undefined && encoding.toLowerCase() !== 'identity') throw new HTTPError(415, `Unsupported Content-Encoding: ${encoding}`);
    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) > limits.totalSize) {
      throw new HTTPError(413, `Multipart body larger than multipart.totalSize (${limits.totalSize} bytes)`, undefined, { headers: { connection: 'close' } });
    }
    if (req.readableEnded) throw new HTTPError(400, 'The request body was already read');
    const create = await loadBusboy();
    let parser: Busboy;
    try {
      parser = create({
        headers: req.headers,
        defParamCharset: 'utf8',
        // busboy reports a limit when a size reaches it; one byte more lets a value of exactly the limit through.
        limits: { fileSize: limits.fileSize + 1, fieldSize: limits.fieldSize + 1, files: limits.files, fields: limits.fields, parts: limits.parts },
      });
    } catch (err) {
      throw malformed(err as Error);
    }
    this.#parser = parser;
    parser.on('file', (name: string, stream: Readable, info: FileInfo) => this.#file(name, stream, info));
    // Failures found inside busboy's own events are acted on after them: destroying the parser from
    // within its write would leave it writing to what it just released.
    const fail = (error: unknown): void => process.nextTick(() => this.#fail(error));
    parser.on('field', (name: string, value: string, info: FieldInfo) => {
      if (info.valueTruncated) fail(limitError(`Field "${name}" larger than multipart.fieldSize (${limits.fieldSize} bytes)`));
      else this.#push({ type: 'field', fieldname: name, value, mimeType: info.mimeType, encoding: info.encoding });
    });
    parser.on('filesLimit', () => fail(limitError(`More files than multipart.files (${limits.files})`)));
    parser.on('fieldsLimit', () => fail(limitError(`More fields than multipart.fields (${limits.fields})`)));
    parser.on('partsLimit', () => fail(limitError(`More parts than multipart.parts (${limits.parts})`)));
    parser.on('error', (err: Error) => fail(this.#gone() ? clientLeft() : malformed(err)));
    parser.on('close', () => this.#end());
    req.on('data', this.#count);
    req.on('aborted', this.#left);
    req.on('close', this.#closed);
    req.on('error', this.#left);
    req.pipe(parser);
  }

  #file(name: string, source: Readable, info: FileInfo): void {
    const limits = this.#limits;
    const filename = sanitizeFilename(info.filename);
    // The reader gets a stream of its own, so that what ends it early is one of ours: a 413 past
    // the limit, a 400 for a body cut short, the client's leaving (busboy's own are plain Errors).
    const stream = new PassThrough();
    // The parse's failure is thrown to the reader; a file stream no one reads must not also be an unhandled 'error'.
    stream.on('error', ignore);
    source.on('error', (err: Error) => {
      const error = this.#failed ? this.#error : this.#gone() ? clientLeft() : malformed(err);
      stream.destroy(error as Error);
      process.nextTick(() => this.#fail(error));
    });
    source.once('limit', () => process.nextTick(() => this.#fail(limitError(`File "${filename || name}" larger than multipart.fileSize (${limits.fileSize} bytes)`))));
    source.pipe(stream);
    this.#push({ type: 'file', fieldname: name, filename, mimeType: info.mimeType, encoding: info.encoding, stream });
  }

  readonly #count = (chunk: Buffer): void => {
    this.#received += chunk.length;
    if (this.#received > this.#limits.totalSize && !this.#failed) {
      this.#fail(new HTTPError(413, `Multipart body larger than multipart.totalSize (${this.#limits.totalSize} bytes)`, undefined, { headers: { connection: 'close' } }));
    }
  };

  /** Whether the client left before its body was complete. */
  #gone(): boolean {
    const req = this.#req;
    return !req.complete && (req.destroyed || req.socket?.destroyed === true);
  }

  readonly #left = (): void => {
    if (!this.#req.complete) this.#fail(clientLeft());
  };

  readonly #closed = (): void => {
    if (!this.#req.complete && !this.#done) this.#fail(clientLeft());
  };

  #push(part: MultipartPart): void {
    if (this.#failed || this.#done) {
      if (part.type === 'file') part.stream.resume();
      return;
    }
    const waiter = this.#waiter;
    if (waiter !== undefined) {
      this.#waiter = undefined;
      waiter.resolve({ done: false, value: part });
    } else this.#queue.push(part);
  }

  #end(): void {
    if (this.#failed || this.#done) return;
    this.#done = true;
    this.#detach();
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.resolve({ done: true, value: undefined });
  }

  #fail(error: unknown): void {
    if (this.#failed || this.#done) return;
    this.#failed = true;
    this.#error = error;
    for (const part of this.#queue) if (part.type === 'file') part.stream.destroy(error as Error);
    this.#queue.length = 0;
    // The file being read fails with the same error, so that a pipe from it rejects with the 413.
    const current = this.#current;
    if (current !== undefined && !current.readableEnded) current.destroy(error as Error);
    this.#stop();
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.reject(error);
  }

  /**
   * Stops parsing. Unless the client left or the body is past `totalSize` (answered with
   * `Connection: close`), the rest of the body is read and dropped, so that the client, still
   * sending, reads the answer instead of a reset connection.
   */
  #stop(): void {
    const req = this.#req;
    const parser = this.#parser;
    if (parser !== undefined) {
      req.unpipe(parser);
      parser.removeAllListeners('file').removeAllListeners('field');
      // busboy's own error on destroy is not ours to report.
      parser.on('error', () => undefined);
      parser.destroy();
    }
    const tooMuch = this.#received > this.#limits.totalSize;
    if (tooMuch) {
      req.removeListener('data', this.#count);
      req.pause();
    } else if (!req.readableEnded && !req.destroyed) {
      req.on('data', this.#drainCount);
      req.resume();
    }
  }

  readonly #drainCount = (): void => {
    // Drained past the total: stop reading; the answer closes the connection.
    if (this.#received > this.#limits.totalSize) {
      this.#req.removeListener('data', this.#drainCount);
      this.#req.pause();
    }
  };

  #detach(): void {
    const req = this.#req;
    req.removeListener('data', this.#count);
    req.removeListener('aborted', this.#left);
    req.removeListener('close', this.#closed);
    req.removeListener('error', this.#left);
  }
}

function ignore(): void {}

/** A 400 for what busboy found wrong in the body. */
function malformed(err: Error): HTTPError {
  return new HTTPError(400, `Malformed multipart/form-data body: ${err.message}`, undefined, { cause: err });
}

/** The error a multipart body ends with when its client leaves mid-upload: the client's doing, not logged. */
function clientLeft(): Error {
  const error = new Error('The client left before its multipart body was complete');
  error.name = 'AbortError';
  return markClientGone(error);
}
