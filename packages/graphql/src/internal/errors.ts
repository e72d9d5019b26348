import { errorCodeOf, statusText, toHTTPError, type ErrorCode } from '@fw/core';
import { GraphQLError } from 'graphql';
import type { Response } from 'graphql-http';
import type { GraphQLLogger } from '../types.js';

/** GraphQL's column of the status table: the `extensions.code` each of core's error codes becomes. */
export const GRAPHQL_CODE_OF_CODE: Readonly<Record<ErrorCode, string>> = Object.freeze({
  invalid_argument: 'BAD_REQUEST',
  unauthenticated: 'UNAUTHENTICATED',
  permission_denied: 'FORBIDDEN',
  not_found: 'NOT_FOUND',
  method_not_allowed: 'METHOD_NOT_ALLOWED',
  request_timeout: 'REQUEST_TIMEOUT',
  conflict: 'CONFLICT',
  payload_too_large: 'PAYLOAD_TOO_LARGE',
  unsupported_media_type: 'UNSUPPORTED_MEDIA_TYPE',
  unprocessable_entity: 'UNPROCESSABLE_ENTITY',
  too_many_requests: 'TOO_MANY_REQUESTS',
  internal: 'INTERNAL_SERVER_ERROR',
  not_implemented: 'NOT_IMPLEMENTED',
  unavailable: 'SERVICE_UNAVAILABLE',
  deadline_exceeded: 'GATEWAY_TIMEOUT',
});

/** The `extensions.code` of an error with HTTP status `status`: its row of the status table (`INTERNAL_SERVER_ERROR` without one). */
export function graphqlErrorCode(status: number): string {
  return GRAPHQL_CODE_OF_CODE[errorCodeOf(status)];
}

/** What clients see instead of the message of an unexpected error. */
export const MASKED_MESSAGE = 'Internal server error';

const NON_NULL = 'Cannot return null for non-nullable field ';

/** Formats one error of a response; graphql-http calls it for every error it sends. */
export type ErrorFormatter = (error: Readonly<GraphQLError | Error>) => GraphQLError | Error;

/** Errors an operation field refused its arguments with (its input validation): `BAD_USER_INPUT`. */
const userInputErrors = new WeakSet<object>();

/** Marks `error` as a refusal of the field's arguments: it is formatted with `code: BAD_USER_INPUT`. */
export function markUserInputError(error: object): void {
  userInputErrors.add(error);
}

/**
 * Graphql's " Did you mean …?" ending, as `didYouMean()` writes it: up to five quoted names,
 * optionally after "the enum value" or "to use an inline fragment on". Anchored at the end so a
 * name quoted earlier in the message (user input) is never cut.
 */
const NAME = '"[_A-Za-z][_0-9A-Za-z]*"';
const SUGGESTION = new RegExp(` Did you mean (?:the enum value |to use an inline fragment on )?${NAME}(?:, ${NAME})*(?:,? or ${NAME})?\\?$`);

/** `message` without graphql's closing suggestion of names, if it has one. */
export function withoutSuggestion(message: string): string {
  if (!message.endsWith('?')) return message;
  return message.replace(SUGGESTION, '');
}

/**
 * Maps errors for the response. Resolver errors (with a `path`): an HTTPError (or an error carrying
 * a 4xx `statusCode`) keeps its message and gets `extensions: { code, status }` from core's
 * protocol table (`BAD_USER_INPUT` for an operation's refused input, see `markUserInputError`);
 * any other thrown error is logged with its stack and, unless `maskErrors` is false, shown as
 * "Internal server error". Request, syntax, validation and variable errors (no
 * `path`) keep graphql's message, but the message of an unexpected error inside them (a custom
 * scalar's TypeError) is cut off and logged. GraphQLErrors thrown on purpose pass through. With
 * `suggestions: false` (introspection off), graphql's "Did you mean …?" hints are dropped.
 */
export function createErrorFormatter(options: { maskErrors: boolean; onLog: GraphQLLogger; suggestions?: boolean }): ErrorFormatter {
  const { maskErrors, onLog, suggestions = true } = options;
  const unexpected = (error: Readonly<Error>): GraphQLError | Error => {
    const http = toHTTPError(error);
    if (http.statusCode >= 500) onLog(`GraphQL error: ${messageOf(error)}`, error);
    if (http.expose) return error;
    const status = http.statusCode;
    return new GraphQLError(maskErrors ? MASKED_MESSAGE : messageOf(error), { originalError: error, extensions: { code: graphqlErrorCode(status), status } });
  };
  return (error) => {
    // What graphql-js's execution threw itself (it ends with data null), or another internal
    // failure: masked unless it is an HTTPError that may be shown.
    if (!(error instanceof GraphQLError)) return unexpected(error);
    // graphql-jit reports a null in a non-null field by message alone; graphql-js throws a plain
    // Error for it, which is masked and logged like any unexpected error.
    const original = error.originalError ?? (error.path !== undefined && error.message.startsWith(NON_NULL) ? new Error(error.message) : undefined);
    if (error.path === undefined) {
      let message = error.message;
      // Variable errors wrap the scalar's error in one GraphQLError more: find what was thrown.
      let cause: Error | undefined = original;
      while (cause instanceof GraphQLError && cause.originalError !== undefined) cause = cause.originalError;
      if (cause !== undefined && !(cause instanceof GraphQLError) && !toHTTPError(cause).expose) {
        const thrown = messageOf(cause);
        onLog(`GraphQL scalar error: ${thrown}`, cause);
        if (maskErrors && thrown !== '' && message.endsWith(thrown)) {
          // graphql appends the thrown message to its own ("...; <message>" or "... <message>").
          message = `${message.slice(0, -thrown.length).replace(/[\s;.]+$/, '')}.`;
        }
      }
      if (!suggestions) message = withoutSuggestion(message);
      if (message === error.message) return error;
      return new GraphQLError(message, { nodes: error.nodes, source: error.source, positions: error.positions, originalError: original, extensions: error.extensions });
    }
    if (original === undefined || original instanceof GraphQLError) return error;
    const http = toHTTPError(original);
    const status = http.statusCode;
    if (status >= 500) onLog(`GraphQL error at ${error.path.join('.')}: ${messageOf(original)}`, original);
    // Extensions the thrown error carried are kept only when its message may be shown.
    const extensions: Record<string, unknown> = http.expose ? { ...error.extensions } : {};
    extensions.code = userInputErrors.has(original) ? 'BAD_USER_INPUT' : graphqlErrorCode(status);
    extensions.status = status;
    if (http.expose && http.details !== undefined) extensions.details = http.details;
    const message = http.expose ? http.message : maskErrors ? MASKED_MESSAGE : messageOf(original);
    const formatted = new GraphQLError(message, {
      nodes: error.nodes,
      source: error.source,
      positions: error.positions,
      path: error.path,
      originalError: original,
      extensions,
    });
    // graphql-jit's errors carry their locations without the nodes they were computed from.
    if (formatted.locations === undefined && error.locations !== undefined) (formatted as { locations?: unknown }).locations = error.locations;
    return formatted;
  };
}

/** An error's message, or `String(error)` when reading it fails or it is not a string. */
function messageOf(error: unknown): string {
  try {
    const message = (error as { message?: unknown } | null)?.message;
    return typeof message === 'string' ? message : String(error);
  } catch {
    return 'an error whose message cannot be read';
  }
}

/** The content type graphql-http picked for the response, computed the same way from `Accept`. */
export type AcceptedMediaType = 'application/graphql-response+json' | 'application/json';

/**
 * The media type a GraphQL response is sent as: the first acceptable entry of `Accept`, the
 * same rule graphql-http applies; undefined when nothing is acceptable (graphql-http answers 406).
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

/** A graphql-http response tuple: body and init. */
export type HandlerResponse = Response;

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

/** A GraphQL error for a request refused before execution, with `extensions: { code, status }`. */
export function requestError(status: number, message: string, extra?: Record<string, unknown>): GraphQLError {
  return new GraphQLError(message, { extensions: { code: graphqlErrorCode(status), status, ...extra } });
}

/**
 * graphql-http's answer for what a step produced: a thrown non-GraphQL error (400, JSON), GraphQL
 * errors (200 under application/json, 400 under application/graphql-response+json) or an execution
 * result (200), each error through `formatError`; serialised as graphql-http does (an `Error`
 * inside shown by its message alone).
 */
export function resultResponse(
  value: unknown,
  mediaType: AcceptedMediaType,
  formatError: ErrorFormatter,
): HandlerResponse {
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

function isGraphQLErrors(value: unknown): value is readonly GraphQLError[] {
  return Array.isArray(value) && value.length > 0 && value.some((item) => item instanceof GraphQLError);
}

/** An `Error` that is not a GraphQLError (which has its own `toJSON`) is written as its message. */
function errorReplacer(_key: string, value: unknown): unknown {
  return value instanceof Error && !(value instanceof GraphQLError) ? { message: value.message } : value;
}
