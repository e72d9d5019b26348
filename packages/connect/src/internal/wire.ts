import type { IncomingMessage } from 'node:http';
import { brotliCompressSync, brotliDecompressSync, constants as zlibConstants, gunzipSync, gzipSync } from 'node:zlib';
import { HTTPError } from '@fw/core';

/**
 * The bytes of Connect and gRPC-Web: the request body read within a limit, gzip both ways (a
 * decompressed size past the limit is refused, never allocated), length-prefixed envelopes, and
 * gRPC-Web's base64 text form.
 */

/** A message or body larger than the limit: `resource_exhausted`, as Connect and gRPC answer it. */
export function tooLarge(limit: number, what = 'The request message'): HTTPError {
  return new HTTPError(429, `${what} is larger than ${limit} bytes`, undefined, { code: 'resource_exhausted' });
}

/** The whole request body, at most `limit` bytes (refused as soon as it passes them). */
export function readRequest(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(tooLarge(limit, 'The request body'));
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        // The rest is read and dropped, so that the answer reaches a client still sending.
        req.resume();
        reject(tooLarge(limit, 'The request body'));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    };
    const onError = (err: Error): void => {
      cleanup();
      reject(err);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

/** The compressions served: gzip, brotli, and none. */
export type Encoding = 'gzip' | 'br' | 'identity';

/** What a refused compression names as accepted (`Accept-Encoding`, Connect's and gRPC's own headers alike). */
const ACCEPTED = 'gzip, br';

/** The encoding a request names in its Content-Encoding-like header; any other is `unimplemented` (501). */
export function requestEncoding(header: string | undefined): Encoding {
  if (header === undefined || header === '' || header.toLowerCase() === 'identity') return 'identity';
  const coding = header.toLowerCase();
  if (coding === 'gzip' || coding === 'br') return coding;
  throw new HTTPError(501, `Unsupported compression "${header}": this server accepts gzip, br or identity`, undefined, { code: 'unimplemented', headers: { 'accept-encoding': ACCEPTED } });
}

/**
 * The encoding to answer with, from an `Accept-Encoding`-like header (Connect unary's
 * Accept-Encoding, Connect-Accept-Encoding for streams, gRPC-Web's grpc-accept-encoding): gzip when
 * accepted (every client has it), else br, else none. `q=0` refuses a coding.
 */
export function responseEncoding(header: string | string[] | undefined): Encoding {
  const value = Array.isArray(header) ? header.join(',') : header;
  if (value === undefined) return 'identity';
  const accepted = new Set<string>();
  for (const part of value.split(',')) {
    const [name, ...params] = part.trim().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (q !== undefined && Number(q.slice(2)) === 0) continue;
    accepted.add(name!.trim().toLowerCase());
  }
  return accepted.has('gzip') ? 'gzip' : accepted.has('br') ? 'br' : 'identity';
}

/** Decompresses `bytes`; a result past `limit` (a compression bomb) or a corrupt stream is refused. */
export function decompress(bytes: Uint8Array, encoding: Encoding, limit: number): Uint8Array {
  if (encoding === 'identity') return bytes;
  try {
    return encoding === 'br' ? brotliDecompressSync(bytes, { maxOutputLength: limit }) : gunzipSync(bytes, { maxOutputLength: limit });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) throw tooLarge(limit, 'The decompressed request message');
    throw new HTTPError(400, `The request message is not valid ${encoding}: ${(err as Error).message}`, undefined, { code: 'invalid_argument', cause: err });
  }
}

/** Brotli at the quality `compress()` of @fw/middleware uses: not more CPU than gzip for API-sized bodies. */
const BROTLI = { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 4 } };

/** Compresses `bytes` with `encoding` (gzip unless told otherwise). */
export function compress(bytes: Uint8Array, encoding: Exclude<Encoding, 'identity'> = 'gzip'): Buffer {
  return encoding === 'br' ? brotliCompressSync(bytes, BROTLI) : gzipSync(bytes);
}

/** The flag bits of an envelope. */
export const FLAG_COMPRESSED = 0x01;
/** Connect's end-of-stream message. */
export const FLAG_END_STREAM = 0x02;
/** gRPC-Web's trailers frame. */
export const FLAG_TRAILERS = 0x80;

/** One envelope: a flags byte, a 4-byte big-endian length, the payload. */
export function envelope(flags: number, payload: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(5 + payload.byteLength);
  out[0] = flags;
  out.writeUInt32BE(payload.byteLength, 1);
  out.set(payload, 5);
  return out;
}

/**
 * The one message of a request body made of envelopes (a server stream's, a gRPC-Web call's):
 * exactly one, whole, within `limit`, decompressed with `encoding` when its flag says so.
 */
export function readEnvelope(body: Uint8Array, encoding: Encoding, limit: number): Uint8Array {
  if (body.byteLength < 5) throw new HTTPError(400, `The request is not an enveloped message: ${body.byteLength} bytes, fewer than the 5 of an envelope's prefix`, undefined, { code: 'invalid_argument' });
  const flags = body[0]!;
  const length = Buffer.from(body.buffer, body.byteOffset, body.byteLength).readUInt32BE(1);
  if (length > limit) throw tooLarge(limit);
  if (5 + length !== body.byteLength) {
    throw new HTTPError(400, `The request envelope says ${length} bytes and ${body.byteLength - 5} follow: a server stream or unary call takes exactly one message`, undefined, { code: 'invalid_argument' });
  }
  if ((flags & ~FLAG_COMPRESSED) !== 0) throw new HTTPError(400, `The request envelope has unknown flags 0x${flags.toString(16)}`, undefined, { code: 'invalid_argument' });
  const payload = body.subarray(5);
  if ((flags & FLAG_COMPRESSED) === 0) return payload;
  if (encoding === 'identity') throw new HTTPError(400, 'The request envelope is compressed, but no compression was named', undefined, { code: 'invalid_argument' });
  return decompress(payload, encoding, limit);
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * gRPC-Web text: base64, possibly several padded pieces one after another (a client may encode
 * each frame alone). Anything else is `invalid_argument`.
 */
export function decodeBase64Text(text: string): Buffer {
  const compact = text.replace(/\s+/g, '');
  const pieces: Buffer[] = [];
  let rest = compact;
  while (rest.length > 0) {
    const pad = rest.indexOf('=');
    let end = pad === -1 ? rest.length : pad;
    while (end < rest.length && rest[end] === '=') end += 1;
    const piece = rest.slice(0, end);
    if (piece.length % 4 !== 0 || !BASE64.test(piece)) {
      throw new HTTPError(400, 'The grpc-web-text request body is not valid base64', undefined, { code: 'invalid_argument' });
    }
    pieces.push(Buffer.from(piece, 'base64'));
    rest = rest.slice(end);
  }
  return Buffer.concat(pieces);
}
