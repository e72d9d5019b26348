import { AggregationTemporality, DataPointType, type HistogramMetricData } from '@opentelemetry/sdk-metrics';
import { HttpDurationHistogram } from './http-duration.js';

const histogram = () => new HttpDurationHistogram({ AggregationTemporality, DataPointType }, (i) => ['GET', 'POST'][i] ?? '_OTHER');
const points = async (h: HttpDurationHistogram) => ((await h.collect()).resourceMetrics.scopeMetrics[0]?.metrics[0] as HistogramMetricData | undefined)?.dataPoints ?? [];

describe('the HTTP duration histogram', () => {
  it('counts a value on a boundary in that boundary\'s bucket (upper bounds are inclusive), and a value past the last in the overflow bucket', async () => {
    const h = histogram();
    h.record('/a', 0, 200, undefined, 0.005);
    h.record('/a', 0, 200, undefined, 0.0051);
    h.record('/a', 0, 200, undefined, 11);
    const [point] = await points(h);
    expect(point!.value.buckets.counts).toEqual([1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    expect(point!.value).toMatchObject({ count: 3, min: 0.005, max: 11 });
    expect(point!.value.sum).toBeCloseTo(11.0101);
  });

  it('keeps one series per route, method and status, with the route left out when none matched and error.type on 5xx', async () => {
    const h = histogram();
    h.record('/a', 0, 200, undefined, 0.1);
    h.record('/a', 1, 200, undefined, 0.1);
    h.record('/a', 0, 200, undefined, 0.1);
    h.record('', 0, 404, undefined, 0.1);
    h.record('/b', 0, 503, 'unavailable', 0.1);
    const attributes = (await points(h)).map((p) => [p.attributes, p.value.count]);
    expect(attributes).toEqual([
      [{ 'http.request.method': 'GET', 'url.scheme': 'http', 'http.response.status_code': 200, 'http.route': '/a' }, 2],
      [{ 'http.request.method': 'POST', 'url.scheme': 'http', 'http.response.status_code': 200, 'http.route': '/a' }, 1],
      [{ 'http.request.method': 'GET', 'url.scheme': 'http', 'http.response.status_code': 404 }, 1],
      [{ 'http.request.method': 'GET', 'url.scheme': 'http', 'http.response.status_code': 503, 'http.route': '/b', 'error.type': 'unavailable' }, 1],
    ]);
  });

  it('reports cumulative data and nothing before the first request', async () => {
    const h = histogram();
    expect((await h.collect()).resourceMetrics.scopeMetrics).toEqual([]);
    h.record('/a', 0, 200, undefined, 0.1);
    const metric = (await h.collect()).resourceMetrics.scopeMetrics[0]!.metrics[0]!;
    expect(metric.aggregationTemporality).toBe(AggregationTemporality.CUMULATIVE);
    expect(metric.descriptor).toMatchObject({ name: 'http.server.request.duration', unit: 's' });
  });
});
