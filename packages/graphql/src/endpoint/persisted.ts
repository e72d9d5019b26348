import { createHash } from 'node:crypto';
import { LruCache } from '../internal/lru.js';
import { badRequest, type HandlerResponse } from './answer.js';
import type { AcceptedMediaType } from './negotiation.js';

const SHA256_HEX = /^[0-9a-fA-F]{64}$/;

/**
 * Automatic persisted queries (Apollo's APQ): the queries requests sent with their SHA-256, kept
 * once their document validated, so that later requests may send the hash alone. With no bounds
 * (`persistedQueries: false`), every request naming a hash is told they are not supported.
 */
export class PersistedQueries {
  readonly #store: LruCache<string, string> | undefined;

  constructor(bounds: { readonly maxEntries: number; readonly maxSize: number } | false) {
    this.#store = bounds === false ? undefined : new LruCache<string, string>(bounds.maxEntries, bounds.maxSize);
  }

  /** The hash (lower-case hex) a request's `extensions.persistedQuery` names, or the answer refusing it. */
  hashOf(extension: unknown, mediaType: AcceptedMediaType): string | HandlerResponse {
    if (this.#store === undefined) return clientError('PersistedQueryNotSupported', 'PERSISTED_QUERY_NOT_SUPPORTED', mediaType);
    const { version, sha256Hash } = (extension ?? {}) as { version?: unknown; sha256Hash?: unknown };
    if (version !== 1) return badRequest('Unsupported persisted query version');
    if (typeof sha256Hash !== 'string' || !SHA256_HEX.test(sha256Hash)) return badRequest('Invalid persisted query hash: expected the SHA-256 of the query, in hex');
    return sha256Hash.toLowerCase();
  }

  /** The query kept under `hash`, or the answer that tells the client to send it. */
  lookup(hash: string, mediaType: AcceptedMediaType): string | HandlerResponse {
    return this.#store?.get(hash) ?? clientError('PersistedQueryNotFound', 'PERSISTED_QUERY_NOT_FOUND', mediaType);
  }

  /** Keeps `query` under `hash` (its document passed the limits and validation). */
  remember(hash: string, query: string): void {
    this.#store?.set(hash, query, query.length);
  }
}

/** Whether `hash` (lower-case hex) is the SHA-256 of `query`. */
export function hashMatches(query: string, hash: string): boolean {
  return createHash('sha256').update(query).digest('hex') === hash;
}

/** Exactly what Apollo's persisted-query link looks for; 200, as Apollo Server answers. */
function clientError(message: string, code: string, mediaType: AcceptedMediaType): HandlerResponse {
  return [JSON.stringify({ errors: [{ message, extensions: { code } }] }), { status: 200, statusText: 'OK', headers: { 'content-type': `${mediaType}; charset=utf-8` } }];
}
