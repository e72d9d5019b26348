import { statusText, type Context, type ErrorCodeSource, type HTTPError } from '@fw/core';
import { GraphQLError, type ExecutionResult } from 'graphql';
import { MASKED_MESSAGE, graphqlErrorCode, type ErrorFormatter } from '../internal/errors.js';
import type { AcceptedMediaType } from './negotiation.js';

/** The status line and headers of an answer. */
export interface AnswerInit {
  readonly status: number;
  readonly statusText: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** An answer not yet written: its body (null: none) and init, the tuple graphql-http's handler returns. */
export type HandlerResponse = readonly [body: string | null, init: AnswerInit];

/** Writes `response` on `ctx`. */
export function send(ctx: Context, [body, init]: HandlerResponse): void {
  const headers = init.headers;
  if (headers !== undefined) for (const key of Object.keys(headers)) ctx.setHeader(key, headers[key]!);
  ctx.send(body ?? '', init.status);
}

/** Writes the JSON text of a result that has nothing but data: no replacer needed, and no response object to build. */
export function sendData(ctx: Context, json: string, mediaType: AcceptedMediaType): void {
  ctx.send(json, 200, mediaType === 'application/json' ? 'application/json; charset=utf-8' : 'application/graphql-response+json; charset=utf-8');
}

/** A response carrying GraphQL errors, with an explicit status. */
export function errorResponse(
  status: number,
  errors: ReadonlyArray<GraphQLError | { message: string; extensions?: Record<string, unknown> }>,
  mediaType: AcceptedMediaType | undefined,
  headers?: Readonly<Record<string, string>>,
): HandlerResponse {
  return [
    JSON.stringify({ errors }),
    {
      status,
      statusText: statusText(status),
      headers: { ...headers, 'content-type': `${mediaType ?? 'application/json'}; charset=utf-8` },
    },
  ];
}

/**
 * A GraphQL error for a request refused before execution, with `extensions: { code, status }`: for
 * an HTTP status, or for an error (its code and status).
 */
export function requestError(refusal: number | ErrorCodeSource, message: string, extra?: Record<string, unknown>): GraphQLError {
  const status = typeof refusal === 'number' ? refusal : refusal.statusCode;
  return new GraphQLError(message, { extensions: { code: graphqlErrorCode(refusal), status, ...extra } });
}

/** A 400 refusing the request's parameters, as JSON. */
export function badRequest(message: string): HandlerResponse {
  return errorResponse(400, [requestError(400, message)], 'application/json');
}

/**
 * The answer for `thrown` (as `error`, its HTTPError) thrown before execution, by middleware or the
 * context factory: its status, headers and (when it may be shown) details; its message unless it
 * is unexpected and `maskErrors` is on.
 */
export function thrownResponse(thrown: unknown, error: HTTPError, maskErrors: boolean, mediaType: AcceptedMediaType | undefined): HandlerResponse {
  const message = error.expose || !maskErrors ? (thrown instanceof Error ? thrown.message : error.message) : MASKED_MESSAGE;
  const extra = error.expose && error.details !== undefined ? { details: error.details } : undefined;
  return errorResponse(error.statusCode, [requestError(error, message, extra)], mediaType, error.headers);
}

/**
 * graphql-http's answer for what a step produced: a thrown non-GraphQL error (400, JSON), GraphQL
 * errors (200 under application/json, 400 under application/graphql-response+json) or an execution
 * result (200), each error through `formatError`; serialised as graphql-http does (an `Error`
 * inside shown by its message alone).
 */
export function resultResponse(value: unknown, mediaType: AcceptedMediaType, formatError: ErrorFormatter): HandlerResponse {
  const contentType = `${mediaType}; charset=utf-8`;
  if (value instanceof Error && !(value instanceof GraphQLError)) {
    return [JSON.stringify({ errors: [formatError(value)] }, errorReplacer), { status: 400, statusText: 'Bad Request', headers: { 'content-type': 'application/json; charset=utf-8' } }];
  }
  const errors = value instanceof GraphQLError ? [value] : isGraphQLErrors(value) ? value : undefined;
  if (errors !== undefined) {
    const init = mediaType === 'application/json' ? { status: 200, statusText: 'OK' } : { status: 400, statusText: 'Bad Request' };
    return [JSON.stringify({ errors: errors.map((error) => formatError(error)) }, errorReplacer), { ...init, headers: { 'content-type': contentType } }];
  }
  const { errors: resultErrors, ...rest } = value as { errors?: readonly GraphQLError[] };
  // `errors` first, as graphql-js builds a result (graphql-jit puts `data` first).
  const body = resultErrors ? { errors: resultErrors.map((error) => formatError(error)), ...rest } : value;
  return [JSON.stringify(body, errorReplacer), { status: 200, statusText: 'OK', headers: { 'content-type': contentType } }];
}

/**
 * The answer for a result with errors and no `data` (variables that do not coerce), a request
 * error: the GraphQL-over-HTTP spec wants 400 for it under application/graphql-response+json.
 * Undefined for any other result.
 */
export function requestFailure(result: ExecutionResult, mediaType: AcceptedMediaType, formatError: ErrorFormatter): HandlerResponse | undefined {
  if ('data' in result || result.errors === undefined || result.errors.length === 0) return undefined;
  if (mediaType !== 'application/graphql-response+json') return undefined;
  return errorResponse(400, result.errors.map((error) => formatError(error)), mediaType);
}

/** An answer tuple (body, init), by graphql-http's own test: a context value passing it is answered as one. */
export function isResponse(value: unknown): value is HandlerResponse {
  if (!Array.isArray(value) || (typeof value[0] !== 'string' && value[0] !== null)) return false;
  const init = value[1] as { status?: unknown; statusText?: unknown; headers?: unknown } | null;
  if (typeof init !== 'object' || init === null) return false;
  if (init.status && typeof init.status !== 'number') return false;
  if (init.statusText && typeof init.statusText !== 'string') return false;
  return !init.headers || typeof init.headers === 'object';
}

function isGraphQLErrors(value: unknown): value is readonly GraphQLError[] {
  return Array.isArray(value) && value.length > 0 && value.some((item) => item instanceof GraphQLError);
}

/** An `Error` that is not a GraphQLError (which has its own `toJSON`) is written as its message. */
function errorReplacer(_key: string, value: unknown): unknown {
  return value instanceof Error && !(value instanceof GraphQLError) ? { message: value.message } : value;
}
