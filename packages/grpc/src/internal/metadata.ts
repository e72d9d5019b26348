import type { Metadata } from '@grpc/grpc-js';

/**
 * Headers a middleware may set for HTTP but that must not reach an HTTP/2 gRPC response: node's
 * http2 rejects connection-specific headers, and the gRPC ones belong to the transport.
 */
const RESERVED = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
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

/** Sets a header on response metadata (replacing earlier values); reserved transport headers are ignored. */
export function setMetadataHeader(metadata: Metadata, key: string, value: string | number | readonly string[]): void {
  const name = key.toLowerCase();
  if (RESERVED.has(name) || name.startsWith(':')) return;
  if (typeof value === 'string' || typeof value === 'number') {
    const text = String(value);
    metadata.set(name, name.endsWith('-bin') ? Buffer.from(text) : text);
    return;
  }
  metadata.remove(name);
  for (const item of value) metadata.add(name, name.endsWith('-bin') ? Buffer.from(item) : item);
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
