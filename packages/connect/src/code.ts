import { errorCodeOf, type ErrorCode, type ErrorCodeSource } from '@fw/core';

/**
 * Connect's column of the error table: the Connect code each of core's error codes becomes (the
 * name of the gRPC status it becomes, in snake_case; `canceled` as the Connect specification
 * spells it), and the HTTP status the Connect specification gives each Connect code.
 */

/** The Connect error codes, as the Connect protocol's JSON error body names them. */
export type ConnectCode =
  | 'canceled'
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
  | 'unauthenticated';

/** The Connect code of each of core's codes: the gRPC status's (`conflict` already_exists, a 413 resource_exhausted, a 405 unimplemented). */
export const CONNECT_CODE_OF_CODE: Readonly<Record<ErrorCode, ConnectCode>> = Object.freeze({
  cancelled: 'canceled',
  unknown: 'unknown',
  invalid_argument: 'invalid_argument',
  deadline_exceeded: 'deadline_exceeded',
  not_found: 'not_found',
  already_exists: 'already_exists',
  permission_denied: 'permission_denied',
  resource_exhausted: 'resource_exhausted',
  failed_precondition: 'failed_precondition',
  aborted: 'aborted',
  out_of_range: 'out_of_range',
  unimplemented: 'unimplemented',
  internal: 'internal',
  unavailable: 'unavailable',
  data_loss: 'data_loss',
  unauthenticated: 'unauthenticated',
  method_not_allowed: 'unimplemented',
  request_timeout: 'deadline_exceeded',
  conflict: 'already_exists',
  payload_too_large: 'resource_exhausted',
  unsupported_media_type: 'invalid_argument',
  unprocessable_entity: 'invalid_argument',
  too_many_requests: 'resource_exhausted',
  not_implemented: 'unimplemented',
});

/** The HTTP status of a unary Connect error, by its code (the Connect specification's table). */
export const CONNECT_HTTP_STATUS: Readonly<Record<ConnectCode, number>> = Object.freeze({
  canceled: 499,
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
});

/** The gRPC status number of each Connect code (what gRPC-Web's `grpc-status` trailer carries). */
export const GRPC_WEB_STATUS: Readonly<Record<ConnectCode, number>> = Object.freeze({
  canceled: 1,
  unknown: 2,
  invalid_argument: 3,
  deadline_exceeded: 4,
  not_found: 5,
  already_exists: 6,
  permission_denied: 7,
  resource_exhausted: 8,
  failed_precondition: 9,
  aborted: 10,
  out_of_range: 11,
  unimplemented: 12,
  internal: 13,
  unavailable: 14,
  data_loss: 15,
  unauthenticated: 16,
});

/**
 * The Connect code an error answers a Connect or gRPC-Web call with: Connect's column for its
 * `code` (for an error without one, the default code of its `statusCode`).
 * @example
 * connectCodeOf(new HTTPError(409, 'Taken')); // 'already_exists'
 */
export function connectCodeOf(err: ErrorCodeSource): ConnectCode {
  return CONNECT_CODE_OF_CODE[errorCodeOf(err)];
}
