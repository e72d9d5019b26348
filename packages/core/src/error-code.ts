/**
 * The neutral error vocabulary: what went wrong, named once, so that every protocol answers an
 * error the same way. Core names no protocol; each protocol package owns its column (the form an
 * `ErrorCode` takes there) and reads the code of an error with `errorCodeOf`.
 */

/**
 * What went wrong, independent of the protocol that reports it (connect-es's `Code` is the model).
 * The first sixteen are the codes remote procedure protocols share; the rest name HTTP statuses
 * those codes do not (`conflict` is a 409 that does not say whether the thing already exists or
 * the write lost a race). Each code has one default HTTP status (`ERROR_CODE_STATUS`) and each
 * status one default code (`errorCodeOf`, the rows marked *):
 *
 * | code | HTTP status | meaning |
 * |---|---|---|
 * | `cancelled` | 499 * | the caller cancelled the request |
 * | `unknown` | 500 | an error without a better code (one from another system) |
 * | `invalid_argument` | 400 * | the request is malformed or its input is invalid |
 * | `deadline_exceeded` | 504 * | the answer did not come in time |
 * | `not_found` | 404 * | the thing asked for does not exist |
 * | `already_exists` | 409 | the thing to create exists already |
 * | `permission_denied` | 403 * | the caller may not do this |
 * | `resource_exhausted` | 429 | a quota or a resource (memory, disk, slots) is used up |
 * | `failed_precondition` | 400 | the system is not in the state the operation needs (a non-empty directory to delete) |
 * | `aborted` | 409 | the operation lost a race with another (a transaction, a version check): retry it whole |
 * | `out_of_range` | 400 | the input is valid but past the end (a page after the last) |
 * | `unimplemented` | 501 | the operation is not implemented or not enabled |
 * | `internal` | 500 *, and any status not listed | the server failed |
 * | `unavailable` | 503 * | the server cannot serve now (starting, closing, overloaded): retry later |
 * | `data_loss` | 500 | data was lost or corrupted |
 * | `unauthenticated` | 401 * | no valid credentials were sent |
 * | `method_not_allowed` | 405 * | the path exists, the method does not |
 * | `request_timeout` | 408 * | the client took too long to send the request |
 * | `conflict` | 409 * | the request conflicts with the current state (already exists, out of stock) |
 * | `payload_too_large` | 413 * | the request is larger than the limit |
 * | `unsupported_media_type` | 415 * | the request body's type is not accepted |
 * | `unprocessable_entity` | 422 * | well-formed, but its content cannot be processed |
 * | `too_many_requests` | 429 * | a rate limit was hit |
 * | `not_implemented` | 501 * | the server does not implement this |
 *
 * `failed_precondition` is 400, as in Connect and Google's API guidelines, not 412: HTTP's
 * Precondition Failed answers a conditional request (`If-Match`), narrower than the state of the
 * system the code is about.
 */
export type ErrorCode =
  | 'cancelled'
  | 'unknown'
  | 'invalid_argument'
  | 'deadline_exceeded'
  | 'not_found'
  | 'already_exists'
  | 'permission_denied'
  | 'resource_exhausted'
  | 'failed_precondition'
  | 'aborted'
  | 'out_of_range'
  | 'unimplemented'
  | 'internal'
  | 'unavailable'
  | 'data_loss'
  | 'unauthenticated'
  | 'method_not_allowed'
  | 'request_timeout'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'unprocessable_entity'
  | 'too_many_requests'
  | 'not_implemented';

/** The default HTTP status of each error code: HTTP's column of the table. */
export const ERROR_CODE_STATUS: Readonly<Record<ErrorCode, number>> = Object.freeze({
  cancelled: 499,
  unknown: 500,
  invalid_argument: 400,
  deadline_exceeded: 504,
  not_found: 404,
  already_exists: 409,
  permission_denied: 403,
  resource_exhausted: 429,
  failed_precondition: 400,
  aborted: 409,
  out_of_range: 400,
  unimplemented: 501,
  internal: 500,
  unavailable: 503,
  data_loss: 500,
  unauthenticated: 401,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unprocessable_entity: 422,
  too_many_requests: 429,
  not_implemented: 501,
});

/** The default code of each HTTP status that has one; every other status is `internal`. */
const CODE_OF_STATUS: ReadonlyMap<number, ErrorCode> = new Map<number, ErrorCode>([
  [400, 'invalid_argument'],
  [401, 'unauthenticated'],
  [403, 'permission_denied'],
  [404, 'not_found'],
  [405, 'method_not_allowed'],
  [408, 'request_timeout'],
  [409, 'conflict'],
  [413, 'payload_too_large'],
  [415, 'unsupported_media_type'],
  [422, 'unprocessable_entity'],
  [429, 'too_many_requests'],
  [499, 'cancelled'],
  [500, 'internal'],
  [501, 'not_implemented'],
  [503, 'unavailable'],
  [504, 'deadline_exceeded'],
]);

/** Whether a value is one of the `ErrorCode`s. Never throws. */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CODE_STATUS, value);
}

/** What `errorCodeOf` reads the code of: an error with a status and, maybe, a code of its own (an `HTTPError`). */
export interface ErrorCodeSource {
  readonly statusCode: number;
  readonly code?: unknown;
}

/**
 * The error code of an HTTP status (its default code, `internal` for a status without one), or of
 * an error: its own `code` when that is an `ErrorCode`, else the default code of its `statusCode`.
 * @example
 * errorCodeOf(409); // 'conflict'
 * errorCodeOf(new HTTPError(409, 'Taken', undefined, { code: 'already_exists' })); // 'already_exists'
 */
export function errorCodeOf(from: number | ErrorCodeSource): ErrorCode {
  if (typeof from === 'number') return CODE_OF_STATUS.get(from) ?? 'internal';
  return isErrorCode(from.code) ? from.code : (CODE_OF_STATUS.get(from.statusCode) ?? 'internal');
}
