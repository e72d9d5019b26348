import { HTTPError, type Context } from '@fw/core';
import type { Codec } from './messages.js';

/** The protocol a request speaks on a method's path, read from its method and Content-Type. */
export interface CallKind {
  /** Connect unary (POST or GET), a Connect stream, or gRPC-Web (unary or a server stream). */
  readonly protocol: 'connect' | 'connect-stream' | 'grpc-web';
  readonly codec: Codec;
  /** gRPC-Web text: the body is base64, both ways. */
  readonly text: boolean;
  /** The Content-Type of the answer. */
  readonly contentType: string;
}

const KINDS: ReadonlyMap<string, CallKind> = new Map<string, CallKind>([
  ['application/json', { protocol: 'connect', codec: 'json', text: false, contentType: 'application/json' }],
  ['application/proto', { protocol: 'connect', codec: 'proto', text: false, contentType: 'application/proto' }],
  ['application/connect+json', { protocol: 'connect-stream', codec: 'json', text: false, contentType: 'application/connect+json' }],
  ['application/connect+proto', { protocol: 'connect-stream', codec: 'proto', text: false, contentType: 'application/connect+proto' }],
  ['application/grpc-web', { protocol: 'grpc-web', codec: 'proto', text: false, contentType: 'application/grpc-web+proto' }],
  ['application/grpc-web+proto', { protocol: 'grpc-web', codec: 'proto', text: false, contentType: 'application/grpc-web+proto' }],
  ['application/grpc-web+json', { protocol: 'grpc-web', codec: 'json', text: false, contentType: 'application/grpc-web+json' }],
  ['application/grpc-web-text', { protocol: 'grpc-web', codec: 'proto', text: true, contentType: 'application/grpc-web-text+proto' }],
  ['application/grpc-web-text+proto', { protocol: 'grpc-web', codec: 'proto', text: true, contentType: 'application/grpc-web-text+proto' }],
]);

/** The Content-Types a POST may carry, for the 415's `Accept-Post`. */
export const ACCEPTED_TYPES = [...KINDS.keys()].join(', ');

const GET_JSON = KINDS.get('application/json')!;
const GET_PROTO = KINDS.get('application/proto')!;

/** The query of a Connect GET, or undefined for any other request. */
export function getQuery(ctx: Pick<Context, 'method' | 'req'>): URLSearchParams | undefined {
  if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return undefined;
  const url = ctx.req.url ?? '';
  const mark = url.indexOf('?');
  return new URLSearchParams(mark === -1 ? '' : url.slice(mark + 1));
}

/** What a request speaks; undefined when its Content-Type is none of Connect's or gRPC-Web's. */
export function callKindOf(ctx: Pick<Context, 'method' | 'req' | 'headers'>): CallKind | undefined {
  const query = getQuery(ctx);
  if (query !== undefined) return query.get('encoding') === 'proto' ? GET_PROTO : GET_JSON;
  const header = ctx.headers['content-type'];
  if (typeof header !== 'string') return undefined;
  const semi = header.indexOf(';');
  return KINDS.get((semi === -1 ? header : header.slice(0, semi)).trim().toLowerCase());
}

/** `Connect-Timeout-Ms` or `grpc-timeout` as milliseconds; undefined when absent, `invalid_argument` when malformed. */
export function deadlineOf(kind: CallKind, headers: Context['headers']): number | undefined {
  if (kind.protocol === 'grpc-web') {
    const value = headers['grpc-timeout'];
    if (typeof value !== 'string') return undefined;
    const match = /^(\d{1,8})([HMSmun])$/.exec(value.trim());
    if (match === null) throw new HTTPError(400, `Invalid grpc-timeout "${value}": 1 to 8 digits and a unit (H, M, S, m, u, n)`, undefined, { code: 'invalid_argument' });
    const scale = { H: 3_600_000, M: 60_000, S: 1000, m: 1, u: 0.001, n: 0.000001 }[match[2] as 'H'];
    return Number(match[1]) * scale;
  }
  const value = headers['connect-timeout-ms'];
  if (typeof value !== 'string') return undefined;
  if (!/^\d{1,10}$/.test(value.trim())) throw new HTTPError(400, `Invalid Connect-Timeout-Ms "${value}": a positive integer of at most 10 digits`, undefined, { code: 'invalid_argument' });
  return Number(value.trim());
}

/**
 * Refuses a Connect request whose protocol version is not 1 (`connect-protocol-version`, or a
 * GET's `connect` parameter); one without it is served, as the Connect specification allows.
 */
export function checkProtocolVersion(kind: CallKind, headers: Context['headers'], query: URLSearchParams | undefined): void {
  if (kind.protocol === 'grpc-web') return;
  const given = query !== undefined ? query.get('connect') : headers['connect-protocol-version'];
  const expected = query !== undefined ? 'v1' : '1';
  if (given !== undefined && given !== null && given !== expected) {
    const name = query !== undefined ? 'the connect query parameter' : 'connect-protocol-version';
    throw new HTTPError(400, `Unsupported Connect protocol version: ${name} is "${String(given)}", this server speaks "${expected}"`, undefined, { code: 'invalid_argument' });
  }
}
