import { errorCodeOf, isValidationError, toHTTPError, type ErrorCode, type ErrorCodeSource } from '@fw/core';
import { isClientGone, isServerFault } from '@fw/core/plugin';
import type { GraphQLError } from 'graphql';
import { graphqlLib } from './graphql-lib.js';
import type { GraphQLLogger } from '../types.js';

/**
 * GraphQL's column of the error table: the `extensions.code` each of core's error codes becomes.
 * The codes with a default HTTP status keep the names they had as statuses (`BAD_REQUEST`,
 * `CONFLICT`, `SERVICE_UNAVAILABLE`); the others are their own name in capitals (`ALREADY_EXISTS`).
 */
export const GRAPHQL_CODE_OF_CODE: Readonly<Record<ErrorCode, string>> = Object.freeze({
  cancelled: 'CANCELLED',
  unknown: 'UNKNOWN',
  invalid_argument: 'BAD_REQUEST',
  deadline_exceeded: 'GATEWAY_TIMEOUT',
  not_found: 'NOT_FOUND',
  already_exists: 'ALREADY_EXISTS',
  permission_denied: 'FORBIDDEN',
  resource_exhausted: 'RESOURCE_EXHAUSTED',
  failed_precondition: 'FAILED_PRECONDITION',
  aborted: 'ABORTED',
  out_of_range: 'OUT_OF_RANGE',
  unimplemented: 'UNIMPLEMENTED',
  internal: 'INTERNAL_SERVER_ERROR',
  unavailable: 'SERVICE_UNAVAILABLE',
  data_loss: 'DATA_LOSS',
  unauthenticated: 'UNAUTHENTICATED',
  method_not_allowed: 'METHOD_NOT_ALLOWED',
  request_timeout: 'REQUEST_TIMEOUT',
  conflict: 'CONFLICT',
  payload_too_large: 'PAYLOAD_TOO_LARGE',
  unsupported_media_type: 'UNSUPPORTED_MEDIA_TYPE',
  unprocessable_entity: 'UNPROCESSABLE_ENTITY',
  too_many_requests: 'TOO_MANY_REQUESTS',
  not_implemented: 'NOT_IMPLEMENTED',
});

/**
 * The `extensions.code` of an error: GraphQL's column for its code (`errorCodeOf`: an HTTPError's
 * own `code`, else its status's), or for the default code of an HTTP status; `INTERNAL_SERVER_ERROR`
 * for a status without one.
 * @example
 * graphqlErrorCode(404); // 'NOT_FOUND'
 * graphqlErrorCode(new HTTPError(409, 'Taken', undefined, { code: 'already_exists' })); // 'ALREADY_EXISTS'
 */
export function graphqlErrorCode(from: number | ErrorCodeSource): string {
  return GRAPHQL_CODE_OF_CODE[errorCodeOf(from)];
}

/** What clients see instead of the message of an unexpected error. */
export const MASKED_MESSAGE = 'Internal server error';

const NON_NULL = 'Cannot return null for non-nullable field ';

/** Formats one error of a response; the endpoint calls it for every error it sends. */
export type ErrorFormatter = (error: Readonly<GraphQLError | Error>) => GraphQLError | Error;

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
 * a 4xx `statusCode`) keeps its message and gets `extensions: { code, status }`: GraphQL's column
 * for its code (`BAD_USER_INPUT` for a `ValidationError`: an operation's refused input);
 * any other thrown error is logged with its stack and, unless `maskErrors` is false, shown as
 * "Internal server error". Request, syntax, validation and variable errors (no
 * `path`) keep graphql's message, but the message of an unexpected error inside them (a custom
 * scalar's TypeError) is cut off and logged. GraphQLErrors thrown on purpose pass through. With
 * `suggestions: false` (introspection off), graphql's "Did you mean …?" hints are dropped.
 */
export function createErrorFormatter(options: { maskErrors: boolean; onLog: GraphQLLogger; suggestions?: boolean }): ErrorFormatter {
  const { maskErrors, onLog, suggestions = true } = options;
  const { GraphQLError } = graphqlLib();
  const unexpected = (error: Readonly<Error>): GraphQLError | Error => {
    const http = toHTTPError(error);
    if (isServerFault(http) && !clientGone(error)) onLog(`GraphQL error: ${messageOf(error)}`, error);
    if (http.expose) return error;
    return new GraphQLError(maskErrors ? MASKED_MESSAGE : messageOf(error), { originalError: error, extensions: { code: graphqlErrorCode(http), status: http.statusCode } });
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
    // A field whose work stopped because the client cancelled or left is no server fault.
    if (isServerFault(http) && !clientGone(original)) onLog(`GraphQL error at ${error.path.join('.')}: ${messageOf(original)}`, original);
    // Extensions the thrown error carried are kept only when its message may be shown.
    const extensions: Record<string, unknown> = http.expose ? { ...error.extensions } : {};
    extensions.code = isValidationError(original) ? 'BAD_USER_INPUT' : graphqlErrorCode(http);
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

/**
 * Whether a resolver's error says its client cancelled or left (`isClientGone`), also when graphql-js
 * wrapped it: a thrown value that is not an `Error` of this realm (node's own `AbortError` inside a
 * vm context) reaches the formatter as a `NonErrorThrown` carrying it as `thrownValue`.
 */
function clientGone(error: Readonly<Error>): boolean {
  if (isClientGone(error)) return true;
  return error.name === 'NonErrorThrown' && isClientGone((error as { thrownValue?: unknown }).thrownValue);
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
