/**
 * The neutral error vocabulary: one name for each row of the status table, so that every protocol
 * maps an error the same way. Core names no protocol; each protocol package owns its column (the
 * code an `ErrorCode` becomes there) and reads the row of an error with `errorCodeOf`.
 */

/**
 * What went wrong, independent of the protocol that reports it (as connect-es's `Code`). Each name
 * is one HTTP status (`errorCodeOf` maps them; every other status is `internal`):
 *
 * | code | HTTP status | meaning |
 * |---|---|---|
 * | `invalid_argument` | 400 | the request is malformed or its input is invalid |
 * | `unauthenticated` | 401 | no valid credentials were sent |
 * | `permission_denied` | 403 | the caller may not do this |
 * | `not_found` | 404 | the thing asked for does not exist |
 * | `method_not_allowed` | 405 | the path exists, the method does not |
 * | `request_timeout` | 408 | the client took too long to send the request |
 * | `conflict` | 409 | the request conflicts with the current state (already exists, out of stock) |
 * | `payload_too_large` | 413 | the request is larger than the limit |
 * | `unsupported_media_type` | 415 | the request body's type is not accepted |
 * | `unprocessable_entity` | 422 | well-formed, but its content cannot be processed |
 * | `too_many_requests` | 429 | a rate limit or quota was hit |
 * | `internal` | 500, and any status not listed | the server failed |
 * | `not_implemented` | 501 | the server does not implement this |
 * | `unavailable` | 503 | the server cannot serve now (starting, closing, overloaded) |
 * | `deadline_exceeded` | 504 | the answer did not come in time |
 */
export type ErrorCode =
  | 'invalid_argument'
  | 'unauthenticated'
  | 'permission_denied'
  | 'not_found'
  | 'method_not_allowed'
  | 'request_timeout'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'unprocessable_entity'
  | 'too_many_requests'
  | 'internal'
  | 'not_implemented'
  | 'unavailable'
  | 'deadline_exceeded';

/** The HTTP status of each error code: the rows of the status table. */
export const ERROR_CODE_STATUS: Readonly<Record<ErrorCode, number>> = Object.freeze({
  invalid_argument: 400,
  unauthenticated: 401,
  permission_denied: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unprocessable_entity: 422,
  too_many_requests: 429,
  internal: 500,
  not_implemented: 501,
  unavailable: 503,
  deadline_exceeded: 504,
});

const BY_STATUS = new Map<number, ErrorCode>(Object.entries(ERROR_CODE_STATUS).map(([code, status]) => [status, code as ErrorCode]));

/** The error code of an HTTP status: its row of the status table, `internal` for any status without one. */
export function errorCodeOf(status: number): ErrorCode {
  return BY_STATUS.get(status) ?? 'internal';
}
