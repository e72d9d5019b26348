import { errorCodeOf, type ErrorCode } from '@fw/core';
import { defineErrorExtension } from '@fw/core/plugin';

/**
 * gRPC's column of the status table: the gRPC status each of core's error codes becomes, the way
 * back, and the `grpcStatus` option of `HTTPError` for an error whose row is not the right one.
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

/** The gRPC status each of core's error codes (a row of the status table) becomes. */
export const GRPC_STATUS_OF_CODE: Readonly<Record<ErrorCode, number>> = Object.freeze({
  invalid_argument: GRPC_STATUS.INVALID_ARGUMENT,
  unauthenticated: GRPC_STATUS.UNAUTHENTICATED,
  permission_denied: GRPC_STATUS.PERMISSION_DENIED,
  not_found: GRPC_STATUS.NOT_FOUND,
  method_not_allowed: GRPC_STATUS.UNIMPLEMENTED,
  request_timeout: GRPC_STATUS.DEADLINE_EXCEEDED,
  conflict: GRPC_STATUS.ALREADY_EXISTS,
  payload_too_large: GRPC_STATUS.RESOURCE_EXHAUSTED,
  unsupported_media_type: GRPC_STATUS.INVALID_ARGUMENT,
  unprocessable_entity: GRPC_STATUS.INVALID_ARGUMENT,
  too_many_requests: GRPC_STATUS.RESOURCE_EXHAUSTED,
  internal: GRPC_STATUS.INTERNAL,
  not_implemented: GRPC_STATUS.UNIMPLEMENTED,
  unavailable: GRPC_STATUS.UNAVAILABLE,
  deadline_exceeded: GRPC_STATUS.DEADLINE_EXCEEDED,
});

/** The HTTP status each gRPC status stands for when it comes back the other way. */
const FROM_GRPC: Record<number, number> = {
  [GRPC_STATUS.OK]: 200,
  [GRPC_STATUS.CANCELLED]: 499,
  [GRPC_STATUS.INVALID_ARGUMENT]: 400,
  [GRPC_STATUS.DEADLINE_EXCEEDED]: 504,
  [GRPC_STATUS.NOT_FOUND]: 404,
  [GRPC_STATUS.ALREADY_EXISTS]: 409,
  [GRPC_STATUS.PERMISSION_DENIED]: 403,
  [GRPC_STATUS.RESOURCE_EXHAUSTED]: 429,
  [GRPC_STATUS.FAILED_PRECONDITION]: 400,
  [GRPC_STATUS.ABORTED]: 409,
  [GRPC_STATUS.OUT_OF_RANGE]: 400,
  [GRPC_STATUS.UNIMPLEMENTED]: 501,
  [GRPC_STATUS.UNAVAILABLE]: 503,
  [GRPC_STATUS.UNAUTHENTICATED]: 401,
};

/** Maps a gRPC status code to the HTTP status it stands for (the usual gateway mapping; unknown → 500). */
export function httpStatusFromGrpc(code: number): number {
  return FROM_GRPC[code] ?? 500;
}

/**
 * The gRPC status an HTTPError answers a gRPC call with: its own `grpcStatus` when it names one,
 * else gRPC's column of the status table for its `statusCode` (anything without a row is INTERNAL).
 */
export function grpcStatusOf(err: { statusCode: number; grpcStatus?: number | undefined }): number {
  return err.grpcStatus ?? GRPC_STATUS_OF_CODE[errorCodeOf(err.statusCode)];
}

declare module '@fw/core' {
  interface HTTPErrorExtensions {
    /**
     * The gRPC status code (a `GRPC_STATUS` value, 1–16) to answer gRPC calls with, overriding the
     * status table's row for `statusCode` (a 409 "not enough stock" is `FAILED_PRECONDITION`, not
     * `ALREADY_EXISTS`). HTTP and GraphQL still use `statusCode`. Any other value is ignored.
     * @default the status table's row for `statusCode`
     */
    grpcStatus?: number;
  }
}

/** Whether `value` is a gRPC status an error may name: an integer 1–16 (0 is OK, not an error). */
function isErrorStatus(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 16;
}

// Loading this package teaches HTTPError the option: before, `grpcStatus` is not read (no gRPC
// call can be answered before this package is loaded).
defineErrorExtension('grpcStatus', isErrorStatus);
