/**
 * @fw/metrics — OpenTelemetry server metrics for REST, GraphQL and gRPC from one wrapper
 * (`http.server.request.duration`, `http.server.active_requests`, `rpc.server.call.duration`,
 * `graphql.server.request.duration`, `fw.operation.calls`), with bounded attributes, served as
 * Prometheus text and/or pushed over OTLP. The SDK packages are optional peers, loaded when
 * metrics start.
 */
// The plugin's code loads with its first call, not with the package.
export { metricsPlugin } from './lazy.js';
export type { MetricsPlugin } from './plugin.js';
export { METRICS_OPTION_NAMES, OTLP_OPTION_NAMES } from './options.js';
export { PROMETHEUS_CONTENT_TYPE } from './internal/admin-server.js';
export type { MetricsAddress, MetricsConfig, OtlpMetricsConfig, OtlpMetricsProtocol } from './types.js';
// The attribute keys @fw/tracing exports too (`http.route`, `error.type`, ...) are exported there
// only: `@fw/app`'s root carries both packages' names.
export {
  ATTR_FW_OPERATION_NAME,
  ATTR_FW_PROTOCOL,
  ATTR_RPC_STATUS_CODE,
  ATTR_RPC_SYSTEM_NAME,
  DURATION_BUCKETS,
  GRPC_SERVER_ERROR_TYPES,
  GRPC_STATUS_NAMES,
  HTTP_METHOD_OTHER,
  KNOWN_HTTP_METHODS,
  METER_NAME,
  METRIC_FW_OPERATION_CALLS,
  METRIC_GRAPHQL_SERVER_REQUEST_DURATION,
  METRIC_HTTP_SERVER_ACTIVE_REQUESTS,
  METRIC_HTTP_SERVER_REQUEST_DURATION,
  METRIC_RPC_SERVER_CALL_DURATION,
  RPC_SYSTEM_NAME_VALUE_GRPC,
  UNIT_SECONDS,
} from './semconv.js';
