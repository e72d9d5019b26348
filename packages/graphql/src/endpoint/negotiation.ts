import type { Context } from '@fw/core';
import type { HandlerResponse } from './answer.js';

/** The media type a GraphQL response is sent as. */
export type AcceptedMediaType = 'application/graphql-response+json' | 'application/json';

/**
 * The media type a GraphQL response is sent as: the first acceptable entry of `Accept` (none or
 * empty: `application/json`), graphql-http's rule; undefined when nothing is acceptable (406).
 */
export function acceptedMediaType(accept: string | undefined): AcceptedMediaType | undefined {
  if (accept === undefined || accept === '') return 'application/json';
  // Clients send the same Accept header on every request: the last answer is kept.
  if (accept === lastAccept) return lastMediaType;
  const mediaType = parseAccept(accept);
  lastAccept = accept;
  lastMediaType = mediaType;
  return mediaType;
}

let lastAccept: string | undefined;
let lastMediaType: AcceptedMediaType | undefined;

function parseAccept(accept: string): AcceptedMediaType | undefined {
  for (const entry of accept.replace(/\s/g, '').toLowerCase().split(',')) {
    const [type, ...params] = entry.split(';');
    const charset = params.find((p) => p.includes('charset=')) ?? 'charset=utf-8';
    if (type === 'application/graphql-response+json' && charset === 'charset=utf-8') return 'application/graphql-response+json';
    if ((type === 'application/json' || type === 'application/*' || type === '*/*') && (charset === 'charset=utf-8' || charset === 'charset=utf8')) {
      return 'application/json';
    }
  }
  return undefined;
}

/** The media type `ctx`'s request accepts an answer in (see `acceptedMediaType`). */
export function mediaTypeOf(ctx: Context): AcceptedMediaType | undefined {
  return acceptedMediaType(headerValue(ctx.headers.accept));
}

/** The answer when nothing in `Accept` is a type GraphQL answers in: 406, naming the types that are. */
export const NOT_ACCEPTABLE: HandlerResponse = Object.freeze([
  null,
  Object.freeze({
    status: 406,
    statusText: 'Not Acceptable',
    headers: Object.freeze({ accept: 'application/graphql-response+json; charset=utf-8, application/json; charset=utf-8' }),
  }),
] as const);

/** The answer for a POST whose body is not JSON (see `isJsonContentType`): 415. */
export const UNSUPPORTED_MEDIA_TYPE: HandlerResponse = Object.freeze([null, Object.freeze({ status: 415, statusText: 'Unsupported Media Type' })] as const);

/** `application/json`, with no charset or UTF-8: the only body a GraphQL POST may have (else 415). */
export function isJsonContentType(value: string | undefined): boolean {
  if (value === 'application/json') return true;
  const [type, charset = 'charset=utf-8'] = (value ?? '').replace(/\s/g, '').toLowerCase().split(';');
  return type === 'application/json' && charset === 'charset=utf-8';
}

/** A browser navigating to the endpoint asks for HTML; GraphQL clients never do. */
export function acceptsHtml(ctx: Context): boolean {
  const accept = headerValue(ctx.headers.accept);
  return accept !== undefined && accept.includes('text/html');
}

/** A header's value, repeated ones joined as one list. */
export function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(',') : value;
}
