import type { IncomingMessage } from 'node:http';
import type { Transform } from 'node:stream';
import { HTTPError } from '../http-error.js';
import { parseJSON } from './json.js';
import { parseQuery } from './query.js';

/** Default largest request body, in bytes (1 MiB). */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

export type BodyKind = 'json' | 'form' | 'text' | undefined;

/** Which parser a Content-Type selects; undefined means the body is left unread for the handler. */
export function bodyKind(contentType: string | undefined): BodyKind {
  if (contentType === undefined) return undefined;
  const semi = contentType.indexOf(';');
  const type = (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
  if (type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'))) return 'json';
  if (type === 'application/x-www-form-urlencoded') return 'form';
  if (type.startsWith('text/')) return 'text';
  return undefined;
}

/** Whether the request says it carries a body. */
export function hasBody(req: IncomingMessage): boolean {
  const headers = req.headers;
  if (headers['transfer-encoding'] !== undefined) return true;
  const length = headers['content-length'];
  return length !== undefined && length !== '0';
}

const EMPTY = Buffer.alloc(0);

/** What `readBody` does with a request's Content-Encoding. */
export type BodyCoding = 'decode' | 'refuse' | 'as-sent';

/** Whether a Content-Encoding header names a coding other than identity. */
export function isEncoded(encoding: string | undefined): encoding is string {
  if (encoding === undefined) return false;
  const coding = encoding.trim().toLowerCase();
  return coding !== 'identity' && coding !== '';
}

/**
 * Decodes a body read `'as-sent'` by its Content-Encoding, held to `limit` decoded bytes (413) as
 * `readBody` holds a body decoded while it arrives; `decode` false (the app's `decompressBody`
 * off) refuses any coding with 415, as `readBody` does.
 */
export function decodeBody(raw: Buffer, encoding: string | undefined, limit: number, decode: boolean): Promise<Buffer> {
  if (!isEncoded(encoding)) return Promise.resolve(raw);
  const decoder = decode ? decoderFor(encoding.trim().toLowerCase()) : undefined;
  if (decoder === undefined) return Promise.reject(unsupportedEncoding(encoding, decode));
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    decoder.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > limit) {
        done = true;
        decoder.destroy();
        reject(tooLarge(limit));
      } else chunks.push(chunk);
    });
    decoder.once('end', () => {
      if (done) return;
      done = true;
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    });
    decoder.once('error', (err) => {
      if (done) return;
      done = true;
      reject(new HTTPError(400, `Request body is not valid ${encoding}`, undefined, { cause: err }));
    });
    decoder.end(raw);
  });
}

/**
 * Reads the whole body into a Buffer, refusing more than `limit` bytes with 413: at once when
 * Content-Length says so, otherwise as soon as the stream passes the limit (chunked bodies).
 * A body with a `Content-Encoding` of gzip, deflate or br is decompressed as it arrives when
 * `decompress` is on, the limit holding for the decompressed bytes too; any other coding (or a
 * compressed body with `decompress` off) is a 415, as RFC 9110 §15.5.16 says.
 * A body the HTTP parser has already received whole (`req.complete`: read after middleware that
 * waited on something, such as a session lookup) is taken from the stream's buffer at once: no
 * listeners, no flowing mode, no promise to wait on. Read as the request arrives, the body is
 * parsed after the headers' callback returns, so it is streamed. `coding` says what to do with a
 * Content-Encoding: `'decode'` it (gzip, deflate, br), `'refuse'` it (415, the app's
 * `decompressBody: false`), or keep the bytes `'as-sent'` (for a fingerprint over the bytes, or a
 * protocol that decodes them itself; `decodeBody` decodes them later).
 */
export function readBody(req: IncomingMessage, limit: number, coding: BodyCoding = 'decode'): Promise<Buffer> | Buffer {
  const declared = req.headers['content-length'];
  if (declared !== undefined) {
    const n = Number(declared);
    if (!Number.isFinite(n) || n < 0) return Promise.reject(new HTTPError(400, 'Invalid Content-Length'));
    if (n > limit) return Promise.reject(tooLarge(limit));
  }
  const encoding = req.headers['content-encoding'];
  if (coding !== 'as-sent' && isEncoded(encoding)) {
    const decoder = coding === 'decode' ? decoderFor(encoding.trim().toLowerCase()) : undefined;
    if (decoder === undefined) return Promise.reject(unsupportedEncoding(encoding, coding === 'decode'));
    return inflate(req, decoder, limit);
  }
  if (req.complete && !req.readableFlowing && !req.destroyed) {
    const size = req.readableLength;
    if (size > limit) return Promise.reject(tooLarge(limit));
    // read() hands over everything buffered as one Buffer; the stream then ends as usual ('end'
    // on the next tick), so Node's server sees the body consumed and keeps the connection.
    return (req.read() as Buffer | null) ?? EMPTY;
  }
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (err: Error | null, value?: Buffer): void => {
      if (done) return;
      done = true;
      detach();
      if (err) reject(err);
      else resolve(value!);
    };
    const detach = watchBody(
      req,
      (chunk) => {
        size += chunk.length;
        if (size > limit) {
          // Stop buffering; the connection is closed after the 413 so the rest is never read.
          req.pause();
          finish(tooLarge(limit));
          return;
        }
        chunks.push(chunk);
      },
      () => finish(null, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)),
      finish,
    );
  });
}

/**
 * Listens to a request body: `onData` per chunk, `onEnd` at its end, `fail` with a 400 when the
 * stream errors, the client aborts, or the request closes before its body was complete (a socket
 * cut by a time-out gives neither 'aborted' nor 'error': without this, the read would wait for
 * ever). Returns what removes the listeners.
 */
function watchBody(req: IncomingMessage, onData: (chunk: Buffer) => void, onEnd: () => void, fail: (err: HTTPError) => void): () => void {
  const onError = (err: Error): void => fail(new HTTPError(400, 'Request body could not be read', undefined, { cause: err }));
  const onAborted = (): void => fail(new HTTPError(400, 'Request aborted by the client'));
  const onClose = (): void => {
    if (!req.complete) fail(new HTTPError(400, 'Request closed before its body was complete'));
  };
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('error', onError);
  req.on('aborted', onAborted);
  req.on('close', onClose);
  return () => {
    req.removeListener('data', onData);
    req.removeListener('end', onEnd);
    req.removeListener('error', onError);
    req.removeListener('aborted', onAborted);
    req.removeListener('close', onClose);
  };
}

/** The decoders of the request codings read (zstd where Node has it); undefined for any other coding. */
function decoderFor(coding: string): Transform | undefined {
  const zlib = process.getBuiltinModule('node:zlib');
  switch (coding) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip();
    case 'deflate':
      return zlib.createInflate();
    case 'br':
      return zlib.createBrotliDecompress();
    case 'zstd': {
      const create = (zlib as { createZstdDecompress?: () => Transform }).createZstdDecompress;
      return create === undefined ? undefined : create();
    }
    default:
      return undefined;
  }
}

function unsupportedEncoding(encoding: string, decompress: boolean): HTTPError {
  const accepted = decompress ? 'gzip, deflate, br' : 'identity';
  return new HTTPError(415, `Unsupported Content-Encoding: ${encoding}`, undefined, { headers: { 'accept-encoding': accepted } });
}

/**
 * Reads a compressed body through `decoder`. Both sides are held to `limit`: the bytes received
 * (a chunked body has no Content-Length to refuse at once) and the bytes decoded, counted as the
 * decoder produces them, so a small body that inflates to gigabytes (a "zip bomb") is refused
 * with 413 once it passes the limit, having held no more than the limit and one chunk.
 */
function inflate(req: IncomingMessage, decoder: Transform, limit: number): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let size = 0;
    let done = false;
    const finish = (err: Error | null, value?: Buffer): void => {
      if (done) return;
      done = true;
      detach();
      if (err) {
        req.pause();
        decoder.destroy();
        reject(err);
      } else resolve(value!);
    };
    const detach = watchBody(
      req,
      (chunk) => {
        received += chunk.length;
        if (received > limit) finish(tooLarge(limit));
        // The decoder's back-pressure: the request waits while it works through what it holds.
        else if (!decoder.write(chunk)) {
          req.pause();
          decoder.once('drain', () => {
            if (!done) req.resume();
          });
        }
      },
      () => decoder.end(),
      finish,
    );
    decoder.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) finish(tooLarge(limit));
      else chunks.push(chunk);
    });
    decoder.once('end', () => finish(null, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
    decoder.once('error', (err) => finish(new HTTPError(400, `Request body is not valid ${String(req.headers['content-encoding'])}`, undefined, { cause: err })));
  });
}

function tooLarge(limit: number): HTTPError {
  return new HTTPError(413, `Request body is larger than ${limit} bytes`, undefined, { headers: { connection: 'close' } });
}

/** Parses a body of the given kind. Malformed input throws a 400 HTTPError. */
export function parseBody(kind: Exclude<BodyKind, undefined>, raw: Buffer, maxKeys: number, maxJsonDepth: number): unknown {
  const text = raw.toString('utf8');
  switch (kind) {
    case 'json':
      if (text.trim() === '') return undefined;
      return parseJSON(text, { maxDepth: maxJsonDepth });
    case 'form':
      return parseQuery(text, maxKeys, 'request body');
    case 'text':
      return text;
  }
}
