import type { RequestContext, TraceInfo } from '@fw/core';
import type { Attributes, Context as OtelContext, TracerProvider } from '@opentelemetry/api';

/** What `ctx.trace` says about the request's server span: `{ traceId, spanId, protocol }` (core's `TraceInfo`). */
export type TraceContext = TraceInfo;

/** The result an exporter reports for one batch (the SDK's `ExportResult`). */
export interface ExportResultLike {
  code: number;
  error?: Error;
}

/** A span exporter of the OpenTelemetry SDK (`SpanExporter`), described by the shape used here. */
export interface SpanExporterLike {
  export(spans: unknown[], resultCallback: (result: ExportResultLike) => void): void;
  shutdown(): Promise<void>;
  forceFlush?(): Promise<void>;
}

/** A span processor of the OpenTelemetry SDK (`SpanProcessor`), described by the shape used here. */
export interface SpanProcessorLike {
  onStart(span: unknown, parentContext: OtelContext): void;
  onEnd(span: unknown): void;
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** Where spans go when this package starts the SDK. */
export type TracingExporter = 'otlp' | 'console' | 'none' | SpanExporterLike;

/** Where the tracer provider came from: the `tracerProvider` option, the globally registered one, the SDK started here, or none (OTEL_SDK_DISABLED). */
export type ProviderSource = 'option' | 'global' | 'sdk' | 'disabled';

/** The OTLP over HTTP encodings. */
export type OtlpProtocol = 'http/protobuf' | 'http/json';

/** Options of `tracingPlugin()` (and of `observability.tracing` in `createApp`). */
export interface TracingConfig {
  /** Whether requests are traced; when false the plugin registers nothing. @default true */
  enabled?: boolean;
  /** `service.name` of the SDK started here. @default OTEL_SERVICE_NAME, else `unknown_service:node` */
  serviceName?: string;
  /**
   * Where spans go when no tracer provider is registered and the SDK is started here:
   * `'otlp'` (OTLP over HTTP, batched), `'console'` (printed, unbatched), `'none'` (IDs and
   * propagation only), or a span exporter (batched).
   * @default OTEL_TRACES_EXPORTER, else 'otlp'
   */
  exporter?: TracingExporter;
  /**
   * The OTLP traces URL; a URL without a path gets `/v1/traces` appended.
   * @default OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else OTEL_EXPORTER_OTLP_ENDPOINT + '/v1/traces', else 'http://localhost:4318/v1/traces'
   */
  endpoint?: string;
  /** Extra OTLP request headers (API keys). @default OTEL_EXPORTER_OTLP_TRACES_HEADERS, else OTEL_EXPORTER_OTLP_HEADERS */
  otlpHeaders?: Record<string, string>;
  /** The OTLP encoding. @default OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, else OTEL_EXPORTER_OTLP_PROTOCOL, else 'http/protobuf' */
  otlpProtocol?: OtlpProtocol;
  /** Span processors for the SDK started here; replace `exporter` when given. @default undefined */
  spanProcessors?: SpanProcessorLike[];
  /** Extra resource attributes (`service.version`, `deployment.environment.name`). @default {} */
  resourceAttributes?: Attributes;
  /** Use this provider, registered or not, and start nothing. @default the globally registered provider */
  tracerProvider?: TracerProvider;
  /** Response header carrying the server span's `traceparent`; false sends none. @default 'traceparent' */
  responseHeader?: string | false;
  /** Make the request span the active OpenTelemetry context while the request runs. @default true */
  activeContext?: boolean;
  /** Requests for which this returns true are not traced (health checks). @default undefined */
  ignore?: (ctx: RequestContext) => boolean;
}
