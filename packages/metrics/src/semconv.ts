/**
 * Metric names, units, attribute keys and values, in one place, as OpenTelemetry semantic
 * conventions name them. Values are checked against `@opentelemetry/semantic-conventions` by a test.
 */

/** Duration of HTTP server requests, in seconds (a histogram; stable). */
export const METRIC_HTTP_SERVER_REQUEST_DURATION = 'http.server.request.duration';
/** Number of HTTP server requests in flight (an up-down counter). */
export const METRIC_HTTP_SERVER_ACTIVE_REQUESTS = 'http.server.active_requests';
/** Duration of incoming RPCs, in seconds (a histogram; stable). */
export const METRIC_RPC_SERVER_CALL_DURATION = 'rpc.server.call.duration';
/**
 * Duration of GraphQL requests (one operation each), in seconds. Named as the GraphQL OpenTelemetry
 * working group's draft conventions name it; no released convention defines a GraphQL metric yet.
 */
export const METRIC_GRAPHQL_SERVER_REQUEST_DURATION = 'graphql.server.request.duration';
/** Calls of the application's operations (`app.operation()`), on every protocol (a counter). */
export const METRIC_FW_OPERATION_CALLS = 'fw.operation.calls';

/** The unit of every duration here: seconds. */
export const UNIT_SECONDS = 's';

/** The bucket boundaries semantic conventions advise for `http.server.request.duration` and `rpc.server.call.duration`, in seconds. */
export const DURATION_BUCKETS: readonly number[] = Object.freeze([0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10]);

/** HTTP request method; one of {@link KNOWN_HTTP_METHODS}, else {@link HTTP_METHOD_OTHER}. */
export const ATTR_HTTP_REQUEST_METHOD = 'http.request.method';
/** The HTTP status code sent. */
export const ATTR_HTTP_RESPONSE_STATUS_CODE = 'http.response.status_code';
/** The matched route template (`/users/:id`); absent when no route matched. Never the raw path. */
export const ATTR_HTTP_ROUTE = 'http.route';
/** The URI scheme the server was reached with. */
export const ATTR_URL_SCHEME = 'url.scheme';
/** The class of error a request ended with: a name of core's error table (`internal`, `unavailable`, ...). */
export const ATTR_ERROR_TYPE = 'error.type';
/** The RPC system: always {@link RPC_SYSTEM_NAME_VALUE_GRPC} here. */
export const ATTR_RPC_SYSTEM_NAME = 'rpc.system.name';
/** The fully-qualified RPC method, `<package>.<Service>/<Method>`. */
export const ATTR_RPC_METHOD = 'rpc.method';
/** The gRPC status the call ended with, by name (`OK`, `NOT_FOUND`). */
export const ATTR_RPC_STATUS_CODE = 'rpc.status_code';
/** The GraphQL operation type: `query`, `mutation` or `subscription`. */
export const ATTR_GRAPHQL_OPERATION_TYPE = 'graphql.operation.type';
/** The GraphQL operation name, set only when it is the name of one of the application's operations. */
export const ATTR_GRAPHQL_OPERATION_NAME = 'graphql.operation.name';
/** The name of one of the application's operations (`app.operation()`). */
export const ATTR_FW_OPERATION_NAME = 'fw.operation.name';
/** The protocol an operation was called on: `http`, `graphql` or `grpc`. */
export const ATTR_FW_PROTOCOL = 'fw.protocol';

/** `rpc.system.name` of gRPC. */
export const RPC_SYSTEM_NAME_VALUE_GRPC = 'grpc';
/** `http.request.method` of a method outside {@link KNOWN_HTTP_METHODS}. */
export const HTTP_METHOD_OTHER = '_OTHER';
/** The methods semantic conventions know (RFC 9110 and PATCH); any other is {@link HTTP_METHOD_OTHER}. */
export const KNOWN_HTTP_METHODS: readonly string[] = Object.freeze(['CONNECT', 'DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT', 'TRACE']);

/** The gRPC status codes by number (the gRPC specification's names), for `rpc.status_code`. */
export const GRPC_STATUS_NAMES: readonly string[] = Object.freeze([
  'OK',
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
  'UNAUTHENTICATED',
]);

/**
 * The gRPC codes a *server* reports as its own failure (semantic conventions: UNKNOWN,
 * DEADLINE_EXCEEDED, UNIMPLEMENTED, INTERNAL, UNAVAILABLE, DATA_LOSS), each with the row of core's
 * error table it stands for: the `error.type` of the call.
 */
export const GRPC_SERVER_ERROR_TYPES: ReadonlyMap<number, string> = new Map([
  [2, 'internal'],
  [4, 'deadline_exceeded'],
  [12, 'not_implemented'],
  [13, 'internal'],
  [14, 'unavailable'],
  [15, 'internal'],
]);

/** The name this package's meter is obtained with (the instrumentation scope). */
export const METER_NAME = '@fw/metrics';
