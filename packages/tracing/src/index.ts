/**
 * @fw/tracing — OpenTelemetry server spans for REST, GraphQL and gRPC from one wrapper, W3C Trace
 * Context propagation, and the context's tracing helpers. Library code uses only
 * `@opentelemetry/api`; the SDK is loaded and started only when no tracer provider is registered.
 */
// @opentelemetry/api loads with the first call of tracingPlugin, not with the package.
export { tracingPlugin } from './lazy.js';
export type { TracingPlugin } from './plugin.js';
export { TRACING_EXPORTERS, TRACING_OPTION_NAMES, TRACING_OTLP_PROTOCOLS } from './options.js';
export type {
  ExportResultLike,
  OtlpProtocol,
  ProviderSource,
  SpanExporterLike,
  SpanProcessorLike,
  TraceContext,
  TracingConfig,
  TracingExporter,
} from './types.js';
export {
  ATTR_CLIENT_ADDRESS,
  ATTR_ERROR_TYPE,
  ATTR_GRAPHQL_OPERATION_NAME,
  ATTR_GRAPHQL_OPERATION_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_RPC_GRPC_STATUS_CODE,
  ATTR_RPC_METHOD,
  ATTR_RPC_SERVICE,
  ATTR_RPC_SYSTEM,
  ATTR_SERVICE_NAME,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
  ATTR_USER_AGENT_ORIGINAL,
  EVENT_FW_CLIENT_CANCELLED,
  GRPC_SERVER_ERROR_CODES,
  RPC_SYSTEM_VALUE_GRPC,
  TRACEPARENT_HEADER,
  TRACER_NAME,
  graphqlSpanName,
  grpcSpanName,
  httpSpanName,
  isHttpServerError,
} from './semconv.js';
