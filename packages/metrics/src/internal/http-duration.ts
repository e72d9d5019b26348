import type * as Api from '@opentelemetry/api';
import type { Attributes, HrTime } from '@opentelemetry/api';
import type { CollectionResult, HistogramMetricData, MetricProducer } from '@opentelemetry/sdk-metrics';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_URL_SCHEME,
  DURATION_BUCKETS,
  METER_NAME,
  METRIC_HTTP_SERVER_REQUEST_DURATION,
  UNIT_SECONDS,
} from '../semconv.js';
import { VERSION } from './version.js';

let apiModule: typeof Api | undefined;
/**
 * `@opentelemetry/api`, loaded with the first collection (the SDK has started by then) rather than
 * with @fw/metrics, which `@fw/app` exports to every app, measured or not.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- synchronous on purpose: a collection is
const api = (): typeof Api => (apiModule ??= require('@opentelemetry/api') as typeof Api);

/** One series: the bucket counts, sum, count, min and max of one attribute set. */
interface Series {
  readonly attributes: Attributes;
  readonly counts: number[];
  readonly startTime: HrTime;
  sum: number;
  count: number;
  min: number;
  max: number;
}

/** The SDK's enums this needs at run time (the SDK is an optional peer, loaded when metrics start). */
export interface SdkEnums {
  readonly DataPointType: { readonly HISTOGRAM: HistogramMetricData['dataPointType'] };
  readonly AggregationTemporality: { readonly CUMULATIVE: HistogramMetricData['aggregationTemporality'] };
}

const BOUNDARIES = [...DURATION_BUCKETS];
const hrNow = (): HrTime => {
  const ms = Date.now();
  return [Math.floor(ms / 1000), (ms % 1000) * 1e6];
};

/**
 * `http.server.request.duration`, aggregated here and handed to the SDK's readers as a metric
 * producer: the SDK's synchronous histogram hashes the attribute set on every record (about 2 µs
 * a request, measured), while an HTTP request's series is found here by its route template and a
 * number (method and status) in two map lookups. Cumulative, explicit buckets at the advised
 * boundaries, exported by the same readers (Prometheus text, OTLP) as every other instrument.
 */
export class HttpDurationHistogram implements MetricProducer {
  /** Series by route template ('' for none), then by method index × 1000 + status. */
  readonly #series = new Map<string, Map<number, Series>>();

  constructor(
    private readonly sdk: SdkEnums,
    private readonly methodName: (index: number) => string,
  ) {}

  /** Records one request. `route` is the template ('' when no route matched). */
  record(route: string, method: number, status: number, errorType: string | undefined, seconds: number): void {
    let byRoute = this.#series.get(route);
    if (byRoute === undefined) this.#series.set(route, (byRoute = new Map<number, Series>()));
    const key = method * 1000 + status;
    let series = byRoute.get(key);
    if (series === undefined) {
      const attributes: Attributes = { [ATTR_HTTP_REQUEST_METHOD]: this.methodName(method), [ATTR_URL_SCHEME]: 'http', [ATTR_HTTP_RESPONSE_STATUS_CODE]: status };
      if (route !== '') attributes[ATTR_HTTP_ROUTE] = route;
      if (errorType !== undefined) attributes[ATTR_ERROR_TYPE] = errorType;
      series = { attributes, counts: new Array<number>(BOUNDARIES.length + 1).fill(0), startTime: hrNow(), sum: 0, count: 0, min: Infinity, max: -Infinity };
      byRoute.set(key, series);
    }
    // Explicit buckets: bucket i holds boundaries[i - 1] < value <= boundaries[i].
    let i = 0;
    while (i < BOUNDARIES.length && seconds > BOUNDARIES[i]!) i++;
    series.counts[i]!++;
    series.sum += seconds;
    series.count++;
    if (seconds < series.min) series.min = seconds;
    if (seconds > series.max) series.max = seconds;
  }

  collect(): Promise<CollectionResult> {
    const endTime = hrNow();
    const dataPoints: HistogramMetricData['dataPoints'] = [];
    for (const byRoute of this.#series.values()) {
      for (const series of byRoute.values()) {
        dataPoints.push({
          attributes: series.attributes,
          startTime: series.startTime,
          endTime,
          value: { buckets: { boundaries: BOUNDARIES, counts: [...series.counts] }, sum: series.sum, count: series.count, min: series.min, max: series.max },
        });
      }
    }
    const metric: HistogramMetricData = {
      descriptor: { name: METRIC_HTTP_SERVER_REQUEST_DURATION, description: 'Duration of HTTP server requests.', unit: UNIT_SECONDS, valueType: api().ValueType.DOUBLE },
      aggregationTemporality: this.sdk.AggregationTemporality.CUMULATIVE,
      dataPointType: this.sdk.DataPointType.HISTOGRAM,
      dataPoints,
    };
    return Promise.resolve({
      // The reader keeps the SDK's resource and takes only the scope metrics from here.
      resourceMetrics: { resource: undefined as never, scopeMetrics: dataPoints.length === 0 ? [] : [{ scope: { name: METER_NAME, version: VERSION }, metrics: [metric] }] },
      errors: [],
    });
  }
}
