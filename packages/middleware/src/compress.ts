import { isHttpContext, type Context, type Next } from '@fw/core';
import type { Transform } from 'node:stream';
import type * as Zlib from 'node:zlib';
import { negotiateEncoding } from './internal/accept-encoding.js';
import { compressResponse, type CompressPolicy } from './internal/compress-response.js';
import type { CompressConfig, CompressEncoding } from './types.js';
import { DEFAULT_COMPRESS_ENCODINGS, DEFAULT_COMPRESS_THRESHOLD, DEFAULT_BROTLI_QUALITY } from './defaults.js';


const CODINGS: ReadonlySet<string> = new Set(['zstd', 'br', 'gzip', 'deflate']);
/** Protocols that compress their own messages (Connect, gRPC-Web): their answers are theirs to encode. */
const OWN_COMPRESSION: ReadonlySet<string> = new Set(['connect', 'grpc', 'grpc-web']);
const COMPRESSIBLE =
  /^(?:text\/(?!event-stream$).+|application\/(?:json|javascript|ecmascript|x-javascript|xml|xhtml\+xml|x-www-form-urlencoded|graphql|wasm|x-ndjson|ndjson|x-yaml|yaml|toml|rtf|x-sh|x-tar|.+[+](?:json|xml|yaml))|image\/(?:svg\+xml|x-icon|vnd\.microsoft\.icon|bmp)|font\/(?:ttf|otf|collection)|application\/(?:x-font-ttf|x-font-otf|vnd\.ms-fontobject))$/;

/**
 * Whether `compress()` compresses a media type (`type/subtype`, lower case) by default: text
 * (event streams aside), JSON and `+json`, JavaScript, XML and `+xml`, SVG, form data, YAML,
 * WebAssembly, uncompressed fonts. Images, audio, video, archives and `application/octet-stream`
 * are already compressed or unknown: not by default.
 */
export function isCompressibleType(mediaType: string): boolean {
  return COMPRESSIBLE.test(mediaType);
}

/** The compression middleware `compress()` returns (HTTP only: other protocols' contexts pass through untouched). */
export type CompressMiddleware = (ctx: Context, next: Next) => Promise<void>;

/**
 * Compresses responses with the coding the client's `Accept-Encoding` prefers among `encodings`
 * (brotli, gzip; zstd where Node has it), and adds `Vary: Accept-Encoding` to every answer of a
 * compressible type. Bodies under `threshold`, types that are already compressed, answers that
 * already have a `Content-Encoding`, `Cache-Control: no-transform`, HEAD, 204/206/304, server-sent
 * events, gRPC and Connect answers are sent as they are. Bodies of `ctx.json()`, `ctx.text()`,
 * `ctx.send()` are compressed whole; what a handler writes or pipes into `ctx.res` is compressed
 * as it streams. Install it with `app.use()` before middleware that writes answers.
 * @example
 * app.use(compress({ threshold: 2048 }));
 */
export function compress(config: CompressConfig = {}): CompressMiddleware {
  const zlib = process.getBuiltinModule('node:zlib');
  const hasZstd = typeof (zlib as { createZstdCompress?: unknown }).createZstdCompress === 'function';
  const given: unknown = config.encodings ?? DEFAULT_COMPRESS_ENCODINGS;
  if (!Array.isArray(given)) throw new TypeError('compress: encodings must be an array of "zstd", "br", "gzip" or "deflate"');
  const requested: CompressEncoding[] = [];
  for (const coding of given as unknown[]) {
    if (typeof coding !== 'string' || !CODINGS.has(coding)) {
      throw new TypeError(`compress: unknown encoding "${String(coding)}" in encodings (use "zstd", "br", "gzip" or "deflate")`);
    }
    requested.push(coding as CompressEncoding);
  }
  // zstd where this Node has it (22.15+); elsewhere it is simply not offered.
  const encodings: readonly CompressEncoding[] = Object.freeze(requested.filter((coding, i) => (coding !== 'zstd' || hasZstd) && requested.indexOf(coding) === i));
  const threshold = config.threshold ?? DEFAULT_COMPRESS_THRESHOLD;
  if (typeof threshold !== 'number' || Number.isNaN(threshold) || threshold < 0) {
    throw new TypeError(`compress: threshold must be a number of bytes >= 0, got ${String(threshold)}`);
  }
  const types = config.types ?? isCompressibleType;
  if (!(types instanceof RegExp) && typeof types !== 'function') throw new TypeError('compress: types must be a RegExp or a function (mediaType) => boolean');
  const compressible = types instanceof RegExp ? (media: string): boolean => (types.lastIndex = 0, types.test(media)) : types;

  const { constants } = zlib;
  const brotli: Zlib.BrotliOptions = {
    ...config.brotliOptions,
    params: { [constants.BROTLI_PARAM_QUALITY]: DEFAULT_BROTLI_QUALITY, ...config.brotliOptions?.params },
  };
  const zlibOptions: Zlib.ZlibOptions = { ...config.zlibOptions };
  const zstd = zlib as unknown as { createZstdCompress(): Transform; constants: { ZSTD_e_flush: number } };
  const policy: CompressPolicy = {
    threshold,
    compressible,
    encoder: (coding) => {
      switch (coding) {
        case 'br':
          return zlib.createBrotliCompress(brotli);
        case 'gzip':
          return zlib.createGzip(zlibOptions);
        case 'deflate':
          return zlib.createDeflate(zlibOptions);
        case 'zstd':
          return zstd.createZstdCompress();
      }
    },
    compressWhole: (coding, body) => {
      switch (coding) {
        case 'br':
          return zlib.brotliCompressSync(body, brotli);
        case 'gzip':
          return zlib.gzipSync(body, zlibOptions);
        case 'deflate':
          return zlib.deflateSync(body, zlibOptions);
        case 'zstd':
          return (zlib as unknown as { zstdCompressSync(b: Buffer): Buffer }).zstdCompressSync(body);
      }
    },
    flushKind: (coding) =>
      coding === 'br' ? constants.BROTLI_OPERATION_FLUSH : coding === 'zstd' ? zstd.constants.ZSTD_e_flush : constants.Z_SYNC_FLUSH,
  };

  return function compress(ctx, next) {
    // HEAD has no body to compress; a protocol with its own compression encodes its own answers;
    // an upgrade's answer is a 101 or a refusal.
    if (!isHttpContext(ctx) || ctx.method === 'HEAD' || OWN_COMPRESSION.has(ctx.protocol) || ctx.headers.upgrade !== undefined) return next();
    if (ctx.res.headersSent) return next();
    compressResponse(ctx.res, negotiateEncoding(ctx.headers['accept-encoding'], encodings), policy);
    return next();
  };
}
