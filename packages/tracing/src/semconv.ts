/**
 * Span names, attribute keys and values, in one place, as OpenTelemetry semantic conventions
 * name them. Values are checked against `@opentelemetry/semantic-conventions` by a test.
 */

/** HTTP request method, upper case (`GET`). */
export const ATTR_HTTP_REQUEST_METHOD = 'http.request.method';
/** The HTTP status code of the response. */
export const ATTR_HTTP_RESPONSE_STATUS_CODE = 'http.response.status_code';
/** The matched route template (`/users/:id`), never the raw path. */
export const ATTR_HTTP_ROUTE = 'http.route';
/** The request path, without the query string. */
export const ATTR_URL_PATH = 'url.path';
/** The URI scheme the server was reached with. */
export const ATTR_URL_SCHEME = 'url.scheme';
/** The `User-Agent` request header. */
export const ATTR_USER_AGENT_ORIGINAL = 'user_agent.original';
/** The client address (the socket peer, or the first trusted `X-Forwarded-For` hop). */
export const ATTR_CLIENT_ADDRESS = 'client.address';
/** The class of error an operation ended with: an exception type, or the status code as a string. */
export const ATTR_ERROR_TYPE = 'error.type';

/** The RPC system; always {@link RPC_SYSTEM_VALUE_GRPC} here. */
export const ATTR_RPC_SYSTEM = 'rpc.system';
/** The full gRPC service name, `<package>.<Service>`. */
export const ATTR_RPC_SERVICE = 'rpc.service';
/** The gRPC method name. */
export const ATTR_RPC_METHOD = 'rpc.method';
/** The numeric gRPC status code the call ended with. */
export const ATTR_RPC_GRPC_STATUS_CODE = 'rpc.grpc.status_code';
/** The `rpc.system` value of gRPC. */
export const RPC_SYSTEM_VALUE_GRPC = 'grpc';

/** The GraphQL operation type: `query`, `mutation` or `subscription`. */
export const ATTR_GRAPHQL_OPERATION_TYPE = 'graphql.operation.type';
/** The GraphQL operation name, when the document names it. */
export const ATTR_GRAPHQL_OPERATION_NAME = 'graphql.operation.name';

/**
 * The span event of a request (or an operation of it) whose client cancelled or left before the
 * answer: such a span records no exception and no error status. fw's own name; semantic
 * conventions have none for it.
 */
export const EVENT_FW_CLIENT_CANCELLED = 'fw.client.cancelled';

/** The resource attribute carrying the service name. */
export const ATTR_SERVICE_NAME = 'service.name';

/** The W3C Trace Context header, read from requests and written on responses. */
export const TRACEPARENT_HEADER = 'traceparent';

/** The name this package's tracer is obtained with (the instrumentation scope). */
export const TRACER_NAME = '@fw/tracing';

/**
 * gRPC codes that mark a *server* span as an error (UNKNOWN, DEADLINE_EXCEEDED, UNIMPLEMENTED,
 * INTERNAL, UNAVAILABLE, DATA_LOSS); other non-zero codes are the client's fault and leave it unset.
 */
export const GRPC_SERVER_ERROR_CODES: ReadonlySet<number> = new Set([2, 4, 12, 13, 14, 15]);

/** `<METHOD> <route template>`, or just `<METHOD>` when no route matched. */
export function httpSpanName(method: string, route: string | undefined): string {
  return route === undefined ? method : `${method} ${route}`;
}

/** `<type> <name>` (`query GetUser`), `<type>` for an anonymous operation, else `fallback`. */
export function graphqlSpanName(type: string | undefined, name: string | undefined, fallback: string): string {
  if (type === undefined) return fallback;
  return name === undefined || name === '' ? type : `${type} ${name}`;
}

/** `<package>.<Service>/<Method>`. */
export function grpcSpanName(service: string, method: string): string {
  return `${service}/${method}`;
}

/** Whether a server span with this HTTP status is an error (5xx; 4xx are the client's fault). */
export function isHttpServerError(status: number): boolean {
  return status >= 500;
}
