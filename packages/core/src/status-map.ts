/**
 * The one table that carries an HTTP status across protocols: the gRPC status code and the
 * GraphQL `extensions.code` an HTTPError becomes. The gRPC and GraphQL packages both read it.
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

/** One row of the mapping: what an HTTP status is called in gRPC and GraphQL. */
export interface ProtocolStatus {
  grpc: number;
  graphql: string;
}

const TABLE: Record<number, ProtocolStatus> = {
  400: { grpc: GRPC_STATUS.INVALID_ARGUMENT, graphql: 'BAD_REQUEST' },
  401: { grpc: GRPC_STATUS.UNAUTHENTICATED, graphql: 'UNAUTHENTICATED' },
  403: { grpc: GRPC_STATUS.PERMISSION_DENIED, graphql: 'FORBIDDEN' },
  404: { grpc: GRPC_STATUS.NOT_FOUND, graphql: 'NOT_FOUND' },
  405: { grpc: GRPC_STATUS.UNIMPLEMENTED, graphql: 'METHOD_NOT_ALLOWED' },
  408: { grpc: GRPC_STATUS.DEADLINE_EXCEEDED, graphql: 'REQUEST_TIMEOUT' },
  409: { grpc: GRPC_STATUS.ALREADY_EXISTS, graphql: 'CONFLICT' },
  413: { grpc: GRPC_STATUS.RESOURCE_EXHAUSTED, graphql: 'PAYLOAD_TOO_LARGE' },
  415: { grpc: GRPC_STATUS.INVALID_ARGUMENT, graphql: 'UNSUPPORTED_MEDIA_TYPE' },
  422: { grpc: GRPC_STATUS.INVALID_ARGUMENT, graphql: 'UNPROCESSABLE_ENTITY' },
  429: { grpc: GRPC_STATUS.RESOURCE_EXHAUSTED, graphql: 'TOO_MANY_REQUESTS' },
  501: { grpc: GRPC_STATUS.UNIMPLEMENTED, graphql: 'NOT_IMPLEMENTED' },
  503: { grpc: GRPC_STATUS.UNAVAILABLE, graphql: 'SERVICE_UNAVAILABLE' },
  504: { grpc: GRPC_STATUS.DEADLINE_EXCEEDED, graphql: 'GATEWAY_TIMEOUT' },
};

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

const INTERNAL: ProtocolStatus = { grpc: GRPC_STATUS.INTERNAL, graphql: 'INTERNAL_SERVER_ERROR' };

/** Maps an HTTP status to its gRPC status and GraphQL code; anything not in the table is INTERNAL. */
export function protocolStatus(httpStatus: number): ProtocolStatus {
  return TABLE[httpStatus] ?? INTERNAL;
}

/** Maps a gRPC status code to the HTTP status it stands for (the usual gateway mapping; unknown → 500). */
export function httpStatusFromGrpc(code: number): number {
  return FROM_GRPC[code] ?? 500;
}

/**
 * The gRPC status an HTTPError answers a gRPC call with: its own `grpcStatus` when it names one,
 * else the status table's row for its `statusCode`.
 */
export function grpcStatusOf(err: { statusCode: number; grpcStatus?: number }): number {
  return err.grpcStatus ?? protocolStatus(err.statusCode).grpc;
}
