import { mergePrometheusText } from '../src/start/prometheus-merge.js';
import { supportsReusePort } from '../src/start/reuse-port.js';

const WORKER = (count: number, sum: number, active: number) => `# HELP target_info Target metadata
# TYPE target_info gauge
target_info{service_name="books",telemetry_sdk_language="nodejs"} 1
# HELP http_server_active_requests Number of active HTTP server requests.
# TYPE http_server_active_requests gauge
http_server_active_requests{http_request_method="GET",url_scheme="http"} ${active}
# HELP http_server_request_duration_seconds Duration of HTTP server requests.
# UNIT http_server_request_duration_seconds seconds
# TYPE http_server_request_duration_seconds histogram
http_server_request_duration_seconds_count{http_request_method="GET",http_route="/books/:id"} ${count}
http_server_request_duration_seconds_sum{http_request_method="GET",http_route="/books/:id"} ${sum}
http_server_request_duration_seconds_bucket{http_request_method="GET",http_route="/books/:id",le="0.005"} ${count}
http_server_request_duration_seconds_bucket{http_request_method="GET",http_route="/books/:id",le="+Inf"} ${count}
`;

describe('mergePrometheusText', () => {
  it('sums the samples of equal name and labels: histogram counts, sums and buckets, and gauges', () => {
    const merged = mergePrometheusText([WORKER(3, 0.5, 1), WORKER(4, 0.25, 2)]);
    expect(merged).toContain('http_server_request_duration_seconds_count{http_request_method="GET",http_route="/books/:id"} 7');
    expect(merged).toContain('http_server_request_duration_seconds_sum{http_request_method="GET",http_route="/books/:id"} 0.75');
    expect(merged).toContain('http_server_request_duration_seconds_bucket{http_request_method="GET",http_route="/books/:id",le="+Inf"} 7');
    expect(merged).toContain('http_server_active_requests{http_request_method="GET",url_scheme="http"} 3');
  });

  it('keeps the info series and each metadata line once', () => {
    const merged = mergePrometheusText([WORKER(1, 0.1, 0), WORKER(1, 0.1, 0), WORKER(1, 0.1, 0)]);
    expect(merged.match(/^target_info\{.*\} 1$/gm)).toHaveLength(1);
    expect(merged.match(/^# TYPE http_server_request_duration_seconds histogram$/gm)).toHaveLength(1);
    expect(merged.match(/^# UNIT /gm)).toHaveLength(1);
  });

  it('matches series whatever the order of their labels, and keeps series only one worker has', () => {
    const a = '# TYPE calls_total counter\ncalls_total{b="2",a="1"} 2\n';
    const b = '# TYPE calls_total counter\ncalls_total{a="1",b="2"} 3\ncalls_total{a="x",b="2"} 1\n';
    expect(mergePrometheusText([a, b])).toBe('# TYPE calls_total counter\ncalls_total{a="1",b="2"} 5\ncalls_total{a="x",b="2"} 1\n');
  });

  it('reads label values holding commas, quotes and braces', () => {
    const text = '# TYPE x_total counter\nx_total{route="/a,{b}",msg="say \\"hi\\""} 1\n';
    expect(mergePrometheusText([text, text])).toBe('# TYPE x_total counter\nx_total{msg="say \\"hi\\"",route="/a,{b}"} 2\n');
  });
});

describe('supportsReusePort', () => {
  it('is false on Node 20, which has no reusePort option', () => {
    expect(supportsReusePort('20.19.0', 'linux')).toBe(false);
    expect(supportsReusePort('22.11.0', 'linux')).toBe(false);
  });

  it('is true from Node 22.12 and 23.1 on Linux, never on Windows or macOS', () => {
    expect(supportsReusePort('22.12.0', 'linux')).toBe(true);
    expect(supportsReusePort('23.1.0', 'linux')).toBe(true);
    expect(supportsReusePort('24.0.0', 'freebsd')).toBe(true);
    expect(supportsReusePort('24.0.0', 'win32')).toBe(false);
    expect(supportsReusePort('24.0.0', 'darwin')).toBe(false);
  });
});
