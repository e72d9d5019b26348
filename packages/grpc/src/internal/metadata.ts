import type { Metadata } from '@grpc/grpc-js';

/** HTTP's connection-specific headers: about the hop, never about the call. */
export const CONNECTION_HEADERS: readonly string[] = ['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te'];

/**
 * Headers a middleware may set for HTTP but that must not reach an HTTP/2 gRPC response: node's
 * http2 rejects connection-specific headers, and the gRPC ones belong to the transport.
 */
const RESERVED = new Set([
  ...CONNECTION_HEADERS,
  'content-type',
  'content-length',
  'grpc-status',
  'grpc-message',
  'grpc-status-details-bin',
  'grpc-encoding',
  'grpc-accept-encoding',
  'grpc-timeout',
]);

/** Request metadata as HTTP-style headers: lower-case keys, values joined with ", ", binary as base64. */
export function headersFromMetadata(metadata: Metadata): Record<string, string> {
  const headers: Record<string, string> = Object.create(null) as Record<string, string>;
  const json = metadata.toJSON();
  for (const key of Object.keys(json)) {
    const values = json[key]!;
    let joined = '';
    for (let i = 0; i < values.length; i++) {
      const value = values[i]!;
      joined += (i === 0 ? '' : ', ') + (typeof value === 'string' ? value : value.toString('base64'));
    }
    headers[key] = joined;
  }
  return headers;
}

/** A value `setHeader` takes: text, a number, bytes (on `-bin` keys), or a list of them. */
export type HeaderValue = string | number | Uint8Array | ReadonlyArray<string | Uint8Array>;

// Standard or URL-safe alphabet, padded or not: what grpc-js and the C core accept for -bin values.
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/**
 * The bytes of one value of a `-bin` key: bytes as they are, a string as the base64 `ctx.headers`
 * shows, so a value read can be written back unchanged. Several values read from one key are
 * joined with ", " and are split again (base64 has neither character).
 */
function binaryValues(name: string, value: string | number | Uint8Array): Buffer[] {
  if (value instanceof Uint8Array) return [Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength)];
  const parts = typeof value === 'string' ? value.split(',').map((part) => part.trim()) : [];
  if (parts.length === 0 || !parts.every((part) => BASE64.test(part) && part.replace(/=+$/, '').length % 4 !== 1)) {
    throw new TypeError(`Metadata "${name}" is binary: give its value as a Buffer or Uint8Array, or as base64 (as ctx.headers shows it)`);
  }
  return parts.map((part) => Buffer.from(part, 'base64'));
}

function textValue(name: string, value: string | number | Uint8Array): string {
  if (value instanceof Uint8Array) throw new TypeError(`Metadata "${name}" is text: binary values need a key ending in "-bin"`);
  return String(value);
}

/**
 * Sets a header on response metadata (replacing earlier values); reserved transport headers are
 * ignored. A `-bin` key takes bytes, or base64 text; other keys take text (numbers as their digits).
 */
export function setMetadataHeader(metadata: Metadata, key: string, value: HeaderValue): void {
  const name = key.toLowerCase();
  if (RESERVED.has(name) || name.startsWith(':')) return;
  const items: ReadonlyArray<string | number | Uint8Array> = typeof value === 'object' && !(value instanceof Uint8Array) ? value : [value];
  // Checked before anything is set: a refused value leaves the earlier ones in place.
  const values: Array<string | Buffer> = name.endsWith('-bin') ? items.flatMap((item) => binaryValues(name, item)) : items.map((item) => textValue(name, item));
  metadata.remove(name);
  for (const item of values) metadata.add(name, item);
}

/** The address part of grpc-js's `getPeer()` (`127.0.0.1:5000`, `::1:5000`, `unknown`). */
export function peerAddress(peer: string): string {
  if (peer === 'unknown') return '';
  const colon = peer.lastIndexOf(':');
  if (colon === -1) return peer;
  const port = peer.slice(colon + 1);
  // getPeer() appends the port only for TCP peers; anything else is the address itself.
  if (port.length === 0 || !/^\d+$/.test(port)) return peer;
  const address = peer.slice(0, colon);
  return address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
}
