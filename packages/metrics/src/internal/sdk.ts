import type { MeterProvider as MeterProviderApi } from '@opentelemetry/api';
import type { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import type { MetricReader, PushMetricExporter, ResourceMetrics } from '@opentelemetry/sdk-metrics';
import type { MetricsConfig, OtlpMetricsConfig } from '../types.js';
import { HttpDurationHistogram } from './http-duration.js';
import { metricsUrl } from './options.js';

/** The metrics SDK started for one plugin: its provider, and the Prometheus reader when text is served. */
export interface MetricsSdk {
  readonly provider: MeterProviderApi;
  /** `http.server.request.duration`, aggregated by fw and read by the same readers. */
  readonly httpDuration: HttpDurationHistogram;
  /** The Prometheus text of the metrics now; undefined when no Prometheus text is served. */
  readonly scrape: (() => Promise<string>) | undefined;
  /** Pushes what is pending (OTLP). */
  forceFlush(): Promise<void>;
  /** Pushes what is pending and stops the readers; resolves to why that last push failed, if it did. */
  shutdown(): Promise<Error | undefined>;
}

/**
 * Starts a `MeterProvider` of the OpenTelemetry metrics SDK with the readers the config asks for:
 * the Prometheus exporter (pull, its own server never started: fw serves the text) and a periodic
 * OTLP exporter. The provider is not registered globally: it is the plugin's.
 */
export async function startSdk(config: MetricsConfig, methodName: (index: number) => string): Promise<MetricsSdk> {
  const sdk = await loadPeer('@opentelemetry/sdk-metrics', () => import('@opentelemetry/sdk-metrics'));
  const httpDuration = new HttpDurationHistogram(sdk, methodName);
  const metricProducers = [httpDuration];
  const readers: MetricReader[] = [];
  // The reader hands a failed push to OpenTelemetry's global error handler, silent by default:
  // the exporter's own result is the only place the failure of the final flush can be read.
  let lastFailure: Error | undefined;
  let prometheus: { reader: PrometheusExporter; serializer: PrometheusSerializer } | undefined;
  if (config.path !== false) {
    const { PrometheusExporter, PrometheusSerializer } = await loadPeer('@opentelemetry/exporter-prometheus', () => import('@opentelemetry/exporter-prometheus'));
    const reader = new PrometheusExporter({ preventServerStart: true, metricProducers });
    prometheus = { reader, serializer: new PrometheusSerializer() };
    readers.push(reader);
  }
  if (config.otlp !== undefined && config.otlp !== false) {
    const otlp: OtlpMetricsConfig = config.otlp === true ? {} : config.otlp;
    const options = { url: otlp.endpoint === undefined ? undefined : metricsUrl(otlp.endpoint), headers: otlp.headers };
    const { OTLPMetricExporter } = otlp.protocol === 'http/json'
      ? await loadPeer('@opentelemetry/exporter-metrics-otlp-http', () => import('@opentelemetry/exporter-metrics-otlp-http'))
      : await loadPeer('@opentelemetry/exporter-metrics-otlp-proto', () => import('@opentelemetry/exporter-metrics-otlp-proto'));
    const exporter = watchFailures(new OTLPMetricExporter(options), (error) => (lastFailure = error));
    readers.push(new sdk.PeriodicExportingMetricReader({ exporter, exportIntervalMillis: otlp.interval ?? 60_000, metricProducers }));
  }
  const { defaultResource, resourceFromAttributes } = await loadPeer('@opentelemetry/resources', () => import('@opentelemetry/resources'));
  let resource = defaultResource();
  const serviceName = config.serviceName ?? process.env.OTEL_SERVICE_NAME?.trim();
  if (serviceName) resource = resource.merge(resourceFromAttributes({ 'service.name': serviceName }));
  if (config.resourceAttributes !== undefined) resource = resource.merge(resourceFromAttributes(config.resourceAttributes));
  const provider = new sdk.MeterProvider({ resource, readers });
  const scrape = prometheus === undefined ? undefined : () => prometheusText(prometheus.reader, prometheus.serializer);
  const shutdown = async (): Promise<Error | undefined> => {
    lastFailure = undefined;
    await provider.shutdown();
    return lastFailure;
  };
  return { provider, httpDuration, scrape, forceFlush: () => provider.forceFlush(), shutdown };
}

/** `exporter`, telling `failed` why each push that did not succeed failed. */
function watchFailures(exporter: PushMetricExporter, failed: (error: Error) => void): PushMetricExporter {
  const watched: PushMetricExporter = {
    export(metrics, done) {
      exporter.export(metrics, (result) => {
        // 0 is ExportResultCode.SUCCESS (@opentelemetry/core, not a dependency here).
        if ((result.code as number) !== 0) failed(result.error ?? new Error('the metrics exporter reported a failure'));
        done(result);
      });
    },
    forceFlush: () => exporter.forceFlush(),
    shutdown: () => exporter.shutdown(),
  };
  // The reader reads these when it is made: pass the exporter's own choices on.
  if (exporter.selectAggregationTemporality !== undefined) watched.selectAggregationTemporality = exporter.selectAggregationTemporality.bind(exporter);
  if (exporter.selectAggregation !== undefined) watched.selectAggregation = exporter.selectAggregation.bind(exporter);
  return watched;
}

/** What the OpenMetrics conventions turn a unit into when it becomes a name suffix (annotations in braces and `1` add none). */
const UNIT_WORDS: Readonly<Record<string, string>> = { s: 'seconds', ms: 'milliseconds', By: 'bytes' };

/**
 * The Prometheus text of what `reader` collects now. Names follow OpenTelemetry's Prometheus
 * compatibility rules: the exporter's (dots to underscores, `_total` on counters) plus the unit
 * suffix the exporter does not add (`http_server_request_duration_seconds`).
 */
async function prometheusText(reader: PrometheusExporter, serializer: PrometheusSerializer): Promise<string> {
  const { resourceMetrics } = await reader.collect();
  return serializer.serialize(withUnitSuffixes(resourceMetrics));
}

function withUnitSuffixes(resourceMetrics: ResourceMetrics): ResourceMetrics {
  return {
    ...resourceMetrics,
    scopeMetrics: resourceMetrics.scopeMetrics.map((scope) => ({
      ...scope,
      metrics: scope.metrics.map((metric) => {
        const word = UNIT_WORDS[metric.descriptor.unit];
        const { name } = metric.descriptor;
        if (word === undefined || name.endsWith(`_${word}`) || name.endsWith(`.${word}`)) return metric;
        // A copy: the descriptor is the instrument's own.
        return { ...metric, descriptor: { ...metric.descriptor, name: `${name}_${word}` } };
      }),
    })),
  };
}

/**
 * Loads one of the SDK packages, optional peer dependencies that only metrics need. Rejects with an
 * error naming the package and the command installing it when it is not installed.
 */
export async function loadPeer<T extends object>(name: string, importer: () => Promise<T>): Promise<T> {
  let mod: T & { default?: T };
  try {
    mod = await importer();
  } catch (err) {
    if (isNotInstalled(err, name)) {
      throw new Error(
        `@fw/metrics: metrics need "${name}", an optional peer dependency of @fw/metrics that is not installed. Install it (npm install ${name}).`,
        { cause: err },
      );
    }
    throw new Error(`@fw/metrics: "${name}" could not be loaded: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  // A CommonJS package imported from ESM may expose its names only on `default`.
  return mod.default !== undefined && typeof mod.default === 'object' ? { ...mod.default, ...mod } : mod;
}

/** Whether `err` says `name` itself cannot be found (not something it needs in turn). */
function isNotInstalled(err: unknown, name: string): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as NodeJS.ErrnoException).code;
  return (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND') && err.message.includes(`'${name}'`);
}
