import type { Context } from '@fw/core';
import { admittedBodyType, negotiate } from '@fw/core/plugin';
import type { HandlerResponse } from './answer.js';

/** The media type a GraphQL response is sent as. */
export type AcceptedMediaType = 'application/graphql-response+json' | 'application/json';

/** What a request to the endpoint is answered in: a GraphQL response, an event stream (GraphQL over SSE) or the playground page. */
export type ResponseMediaType = AcceptedMediaType | 'text/event-stream' | 'text/html';

/**
 * The types a GraphQL response is offered in, as core's `negotiate` takes them: `application/json`
 * first, so that `*\/*`, `application/*` and no `Accept` get it (graphql-http's choice), and with
 * `charset=utf8` too, which graphql-http (the reference) takes for JSON alongside `utf-8`.
 */
const JSON_OFFERS = ['application/json; charset=utf-8', 'application/json; charset=utf8', 'application/graphql-response+json; charset=utf-8'] as const;
const STREAM_OFFER = 'text/event-stream; charset=utf-8';
const PAGE_OFFER = 'text/html; charset=utf-8';

/**
 * One offer list and the last answer for it: clients send the same Accept header on every
 * request, so the last one is kept.
 */
class Negotiator {
  readonly #offers: readonly string[];
  #lastAccept: string | undefined = undefined;
  #lastType: ResponseMediaType | undefined = undefined;
  #answered = false;

  constructor(offers: readonly string[]) {
    this.#offers = Object.freeze([...offers]);
  }

  typeOf(accept: string | undefined): ResponseMediaType | undefined {
    if (this.#answered && accept === this.#lastAccept) return this.#lastType;
    const offer = negotiate(accept, this.#offers);
    const type = offer === undefined ? undefined : (offer.slice(0, offer.indexOf(';')) as ResponseMediaType);
    this.#lastAccept = accept;
    this.#lastType = type;
    this.#answered = true;
    return type;
  }
}

/** By what may be offered besides JSON. */
const JSON_ONLY = new Negotiator(JSON_OFFERS);
const WITH_STREAM = new Negotiator([...JSON_OFFERS, STREAM_OFFER]);
const WITH_PAGE = new Negotiator([...JSON_OFFERS, PAGE_OFFER]);
const WITH_BOTH = new Negotiator([...JSON_OFFERS, STREAM_OFFER, PAGE_OFFER]);

/**
 * What a request with `accept` is answered in, by core's `negotiate` (q-values, then specificity,
 * then the order listed; `q=0` refuses a type): a GraphQL response type, or, when offered, an
 * event stream (`stream`: GraphQL over SSE is on) or the playground (`page`: a GET with the
 * playground on). Undefined when nothing offered is acceptable (406). Every transport of the
 * endpoint decides by this one function.
 */
export function responseTypeOf(accept: string | undefined, stream: boolean, page: boolean): ResponseMediaType | undefined {
  const negotiator = stream ? (page ? WITH_BOTH : WITH_STREAM) : page ? WITH_PAGE : JSON_ONLY;
  return negotiator.typeOf(accept);
}

/**
 * The media type a GraphQL response is sent as (see `responseTypeOf`; none or an empty `Accept`:
 * `application/json`); undefined when nothing is acceptable (406).
 */
export function acceptedMediaType(accept: string | undefined): AcceptedMediaType | undefined {
  return responseTypeOf(accept, false, false) as AcceptedMediaType | undefined;
}

/** Whether `ctx`'s request prefers an event stream to a GraphQL response (GraphQL over SSE's distinct mode, or a reservation's stream). */
export function prefersEventStream(ctx: Context): boolean {
  return responseTypeOf(headerValue(ctx.headers.accept), true, false) === 'text/event-stream';
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

/** The answer for a POST whose body is not JSON (see `isJsonContentType`): 415, as graphql-http answers it. */
export const UNSUPPORTED_MEDIA_TYPE: HandlerResponse = Object.freeze([null, Object.freeze({ status: 415, statusText: 'Unsupported Media Type' })] as const);

/** The one body a GraphQL POST takes: JSON (core's admission rule, shared with REST operations). */
const JSON_BODY = ['json'] as const;

/** Whether a POST with this Content-Type may be read (else 415): core's admission rule for a JSON body. */
export function isJsonContentType(value: string | undefined): boolean {
  return admittedBodyType(value, JSON_BODY) === 'json';
}

/** Whether a GET is for the playground: a browser navigating to the endpoint prefers HTML; GraphQL clients never do. */
export function prefersPage(ctx: Context, stream: boolean): boolean {
  return responseTypeOf(headerValue(ctx.headers.accept), stream, true) === 'text/html';
}

/** A header's value, repeated ones joined as one list. */
export function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(',') : value;
}
