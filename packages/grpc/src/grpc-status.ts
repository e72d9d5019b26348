import { ERROR_CODE_STATUS, errorCodeOf, type ErrorCode, type ErrorCodeSource } from '@fw/core';

/**
 * gRPC's column of the error table: the gRPC status each of core's error codes becomes, and the
 * code (and its HTTP status) each gRPC status stands for the other way.
 */

/** gRPC status codes (numeric values from the gRPC specification). */
export const GRPC_STATUS = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;

/**
 * The gRPC status each of core's error codes becomes. Every gRPC error status is the code of the
 * same name; the codes HTTP adds become the nearest status (`conflict` ALREADY_EXISTS, a 413
 * RESOURCE_EXHAUSTED, a 405 UNIMPLEMENTED).
 */
export const GRPC_STATUS_OF_CODE: Readonly<Record<ErrorCode, number>> = Object.freeze({
  cancelled: GRPC_STATUS.CANCELLED,
  unknown: GRPC_STATUS.UNKNOWN,
  invalid_argument: GRPC_STATUS.INVALID_ARGUMENT,
  deadline_exceeded: GRPC_STATUS.DEADLINE_EXCEEDED,
  not_found: GRPC_STATUS.NOT_FOUND,
  already_exists: GRPC_STATUS.ALREADY_EXISTS,
  permission_denied: GRPC_STATUS.PERMISSION_DENIED,
  resource_exhausted: GRPC_STATUS.RESOURCE_EXHAUSTED,
  failed_precondition: GRPC_STATUS.FAILED_PRECONDITION,
  aborted: GRPC_STATUS.ABORTED,
  out_of_range: GRPC_STATUS.OUT_OF_RANGE,
  unimplemented: GRPC_STATUS.UNIMPLEMENTED,
  internal: GRPC_STATUS.INTERNAL,
  unavailable: GRPC_STATUS.UNAVAILABLE,
  data_loss: GRPC_STATUS.DATA_LOSS,
  unauthenticated: GRPC_STATUS.UNAUTHENTICATED,
  method_not_allowed: GRPC_STATUS.UNIMPLEMENTED,
  request_timeout: GRPC_STATUS.DEADLINE_EXCEEDED,
  conflict: GRPC_STATUS.ALREADY_EXISTS,
  payload_too_large: GRPC_STATUS.RESOURCE_EXHAUSTED,
  unsupported_media_type: GRPC_STATUS.INVALID_ARGUMENT,
  unprocessable_entity: GRPC_STATUS.INVALID_ARGUMENT,
  too_many_requests: GRPC_STATUS.RESOURCE_EXHAUSTED,
  not_implemented: GRPC_STATUS.UNIMPLEMENTED,
});

/** The code each gRPC error status (1–16) stands for: the one of the same name. */
const CODE_OF_GRPC_STATUS: ReadonlyMap<number, ErrorCode> = new Map<number, ErrorCode>([
  [GRPC_STATUS.CANCELLED, 'cancelled'],
  [GRPC_STATUS.UNKNOWN, 'unknown'],
  [GRPC_STATUS.INVALID_ARGUMENT, 'invalid_argument'],
  [GRPC_STATUS.DEADLINE_EXCEEDED, 'deadline_exceeded'],
  [GRPC_STATUS.NOT_FOUND, 'not_found'],
  [GRPC_STATUS.ALREADY_EXISTS, 'already_exists'],
  [GRPC_STATUS.PERMISSION_DENIED, 'permission_denied'],
  [GRPC_STATUS.RESOURCE_EXHAUSTED, 'resource_exhausted'],
  [GRPC_STATUS.FAILED_PRECONDITION, 'failed_precondition'],
  [GRPC_STATUS.ABORTED, 'aborted'],
  [GRPC_STATUS.OUT_OF_RANGE, 'out_of_range'],
  [GRPC_STATUS.UNIMPLEMENTED, 'unimplemented'],
  [GRPC_STATUS.INTERNAL, 'internal'],
  [GRPC_STATUS.UNAVAILABLE, 'unavailable'],
  [GRPC_STATUS.DATA_LOSS, 'data_loss'],
  [GRPC_STATUS.UNAUTHENTICATED, 'unauthenticated'],
]);

/**
 * The HTTP status a gRPC status stands for: 200 for OK, else the default status of its code
 * (RESOURCE_EXHAUSTED 429, CANCELLED 499, FAILED_PRECONDITION 400); 500 for a number that is no status.
 */
export function httpStatusFromGrpc(code: number): number {
  if (code === GRPC_STATUS.OK) return 200;
  const errorCode = CODE_OF_GRPC_STATUS.get(code);
  return errorCode === undefined ? 500 : ERROR_CODE_STATUS[errorCode];
}

/**
 * The gRPC status an HTTPError answers a gRPC call with: gRPC's column for its `code` (for an
 * error without one, the default code of its `statusCode`; anything without a row is INTERNAL).
 * @example
 * grpcStatusOf(new HTTPError(409, 'Not enough stock', undefined, { code: 'failed_precondition' })); // 9
 */
export function grpcStatusOf(err: ErrorCodeSource): number {
  return GRPC_STATUS_OF_CODE[errorCodeOf(err)];
}
