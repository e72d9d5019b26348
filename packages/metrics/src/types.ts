import type { RequestContext } from '@fw/core';
import type { Attributes } from '@opentelemetry/api';

/** The OTLP over HTTP encodings. */
export type OtlpMetricsProtocol = 'http/protobuf' | 'http/json';

/** Pushing metrics to an OpenTelemetry collector over OTLP (HTTP). */
export interface OtlpMetricsConfig {
  /**
   * The OTLP metrics URL; a URL without a path gets `/v1/metrics` appended.
   * @default OTEL_EXPORTER_OTLP_METRICS_ENDPOINT, else OTEL_EXPORTER_OTLP_ENDPOINT + '/v1/metrics', else 'http://localhost:4318/v1/metrics'
   */
  endpoint?: string;
  /** Extra OTLP request headers (API keys). @default OTEL_EXPORTER_OTLP_METRICS_HEADERS, else OTEL_EXPORTER_OTLP_HEADERS */
  headers?: Record<string, string>;
  /** The OTLP encoding. @default 'http/protobuf' */
  protocol?: OtlpMetricsProtocol;
  /** How often metrics are pushed, in milliseconds. @default 60000 */
  interval?: number;
}

/** Options of `metricsPlugin()` (and of `observability.metrics` in `createApp`). */
export interface MetricsConfig {
  /** Whether requests are measured; when false the plugin registers nothing and requests pay nothing. @default true */
  enabled?: boolean;
  /** The path Prometheus scrapes (on the app's port, or on `port` when given); false serves no Prometheus text. @default '/metrics' */
  path?: string | false;
  /**
   * Serve the Prometheus text on this port (a separate admin server, so the app's public port does
   * not expose it) instead of the app's port. 0 picks a free port (read it from the plugin's `address`).
   * @default undefined (the app's port)
   */
  port?: number;
  /** The interface the admin server binds (with `port`). @default '0.0.0.0' */
  host?: string;
  /** Push metrics over OTLP as well: `true` (endpoint from OTEL_* variables) or the exporter's settings. @default false */
  otlp?: boolean | OtlpMetricsConfig;
  /** `service.name` of the metrics' resource. @default OTEL_SERVICE_NAME, else `unknown_service:node` */
  serviceName?: string;
  /** Extra resource attributes (`service.version`, `deployment.environment.name`). @default {} */
  resourceAttributes?: Attributes;
  /** Requests for which this returns true are not measured (the health and metrics paths never are). @default undefined */
  ignore?: (ctx: RequestContext) => boolean;
}

/** Where the admin server (the `port` option) listens. */
export interface MetricsAddress {
  host: string;
  port: number;
  /** The scrape URL, `http://<host>:<port><path>`. */
  url: string;
}
