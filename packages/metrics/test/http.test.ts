import { Application, HTTPError, type ListenInfo } from '@fw/core';
import { samplesOf } from '../../../tooling/testing/prometheus.js';
import { metricsPlugin } from '../src/index.js';
import { scrape } from './support.js';

const url = (info: ListenInfo, path: string) => `http://127.0.0.1:${info.port}${path}`;
const DURATION = 'http_server_request_duration_seconds';

describe('HTTP server metrics on the app port', () => {
  const app = new Application();
  const plugin = metricsPlugin({ serviceName: 'metrics-test' });
  app.register(plugin);
  app.get('/users/:id', (ctx) => ctx.json({ id: ctx.params.id }));
  app.get('/boom', () => {
    throw new HTTPError(503, 'down');
  });
  app.get('/crash', () => {
    throw new Error('bug');
  });
  app.all('/any', (ctx) => ctx.text('ok'));
  let info: ListenInfo;

  beforeAll(async () => {
    info = await app.listen(0, '127.0.0.1');
  });
  afterAll(() => app.close());

  it('serves Prometheus text at GET /metrics with the duration histogram named with its unit', async () => {
    await fetch(url(info, '/users/1'));
    await fetch(url(info, '/users/2'));
    const text = await scrape(url(info, '/metrics'));
    expect(text.contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(text.families.get(DURATION)).toEqual({ type: 'histogram', help: 'Duration of HTTP server requests.', unit: 's' });
    const count = samplesOf(text, `${DURATION}_count`, { http_route: '/users/:id', http_request_method: 'GET', http_response_status_code: '200', url_scheme: 'http' });
    expect(count).toHaveLength(1);
    expect(count[0]!.value).toBe(2);
  });

  it('buckets durations at the boundaries semantic conventions advise', async () => {
    const text = await scrape(url(info, '/metrics'));
    const les = samplesOf(text, `${DURATION}_bucket`, { http_route: '/users/:id' }).map((s) => s.labels.le);
    expect(les).toEqual(['0.005', '0.01', '0.025', '0.05', '0.075', '0.1', '0.25', '0.5', '0.75', '1', '2.5', '5', '7.5', '10', '+Inf']);
  });

  it('labels a failed request with the error type from the error table', async () => {
    await fetch(url(info, '/boom'));
    await fetch(url(info, '/crash'));
    const text = await scrape(url(info, '/metrics'));
    expect(samplesOf(text, `${DURATION}_count`, { http_route: '/boom', http_response_status_code: '503', error_type: 'unavailable' })).toHaveLength(1);
    expect(samplesOf(text, `${DURATION}_count`, { http_route: '/crash', http_response_status_code: '500', error_type: 'internal' })).toHaveLength(1);
    // 2xx and 4xx are not the server's errors.
    expect(samplesOf(text, `${DURATION}_count`, { http_route: '/users/:id' })[0]!.labels.error_type).toBeUndefined();
  });

  it('keeps labels bounded: 1,000 random unmatched paths add no series, and unknown methods are _OTHER', async () => {
    const before = (await scrape(url(info, '/metrics'))).samples.length;
    for (let i = 0; i < 1000; i += 50) {
      await Promise.all(Array.from({ length: 50 }, (_, j) => fetch(url(info, `/random/${Math.random().toString(36).slice(2)}/${i + j}`)).then((r) => r.text())));
    }
    await fetch(url(info, '/any'), { method: 'PROPFIND' });
    await fetch(url(info, '/any'), { method: 'PURGE' });
    const text = await scrape(url(info, '/metrics'));
    const unmatched = samplesOf(text, `${DURATION}_count`, { http_response_status_code: '404' });
    expect(unmatched).toHaveLength(1);
    expect(unmatched[0]!.labels.http_route).toBeUndefined();
    expect(unmatched[0]!.value).toBe(1000);
    // Methods no route takes: answered 405, counted under _OTHER with no route.
    const other = samplesOf(text, `${DURATION}_count`, { http_request_method: '_OTHER' });
    expect(other.map((s) => [s.labels.http_response_status_code, s.labels.http_route, s.value])).toEqual([['405', undefined, 2]]);
    for (const sample of text.samples) expect(JSON.stringify(sample.labels)).not.toContain('/random/');
    // The 404 series and the _OTHER series (with their buckets), and the _OTHER in-flight gauge.
    expect(text.samples.length - before).toBeLessThan(40);
  }, 60_000);

  it('counts requests in flight by method, and none once they have answered', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    app.get('/slow', async (ctx) => {
      await held;
      ctx.text('done');
    });
    const pending = fetch(url(info, '/slow'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const during = await scrape(url(info, '/metrics'));
    expect(during.families.get('http_server_active_requests')?.type).toBe('gauge');
    expect(samplesOf(during, 'http_server_active_requests', { http_request_method: 'GET', url_scheme: 'http' })[0]!.value).toBe(1);
    release();
    await (await pending).text();
    const after = await scrape(url(info, '/metrics'));
    expect(samplesOf(after, 'http_server_active_requests', { http_request_method: 'GET' })[0]!.value).toBe(0);
  });

  it('does not measure its own scrapes', async () => {
    const text = await scrape(url(info, '/metrics'));
    expect(text.samples.filter((s) => s.labels.http_route === '/metrics')).toEqual([]);
  });

  it('answers other methods on the metrics path with 405', async () => {
    const res = await fetch(url(info, '/metrics'), { method: 'POST' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
  });

  it('names the service in target_info', async () => {
    const text = await scrape(url(info, '/metrics'));
    expect(samplesOf(text, 'target_info', { service_name: 'metrics-test' })).toHaveLength(1);
  });

  it('exposes the meter provider, whose instruments are scraped with fw\'s', async () => {
    plugin.meterProvider!.getMeter('mine').createCounter('orders.placed').add(3);
    const text = await scrape(url(info, '/metrics'));
    expect(samplesOf(text, 'orders_placed_total')[0]!.value).toBe(3);
  });
});

describe('metrics on an admin port', () => {
  const app = new Application();
  const plugin = metricsPlugin({ port: 0, host: '127.0.0.1' });
  app.register(plugin);
  app.get('/hello', (ctx) => ctx.text('hi'));
  let info: ListenInfo;

  beforeAll(async () => {
    info = await app.listen(0, '127.0.0.1');
  });
  afterAll(() => app.close());

  it('serves the text on the admin port and not on the app port', async () => {
    await fetch(url(info, '/hello'));
    expect((await fetch(url(info, '/metrics'))).status).toBe(404);
    const text = await scrape(plugin.address!.url);
    expect(samplesOf(text, `${DURATION}_count`, { http_route: '/hello' })[0]!.value).toBe(1);
    expect((await fetch(plugin.address!.url.replace('/metrics', '/other'))).status).toBe(404);
  });

  it('closes the admin server with the app', async () => {
    const target = plugin.address!.url;
    const other = new Application();
    const p = metricsPlugin({ port: 0, host: '127.0.0.1' });
    other.register(p);
    await other.listen(0, '127.0.0.1');
    const adminUrl = p.address!.url;
    await other.close();
    await expect(fetch(adminUrl)).rejects.toThrow();
    expect(target).not.toBe(adminUrl);
  });
});

describe('metrics off', () => {
  it('registers nothing: no wrapper, no hook, no path', async () => {
    const app = new Application();
    const calls: string[] = [];
    const host = {
      wrap: () => calls.push('wrap'),
      onResponse: () => calls.push('onResponse'),
      claimPath: () => calls.push('claimPath'),
      onListen: () => calls.push('onListen'),
      onClosed: () => calls.push('onClosed'),
    };
    metricsPlugin({ enabled: false }).setup(host as never);
    expect(calls).toEqual([]);
    app.register(metricsPlugin({ enabled: false }));
    app.get('/x', (ctx) => ctx.text('x'));
    const res = await app.inject('/metrics');
    expect(res.statusCode).toBe(404);
  });
});

describe('options', () => {
  it('refuses an unknown option with the one meant', () => {
    expect(() => metricsPlugin({ pth: '/m' } as never)).toThrow('metricsPlugin: unknown option "pth"; did you mean "path"?');
    expect(() => metricsPlugin({ otlp: { intervall: 5 } } as never)).toThrow('unknown option "otlp.intervall"; did you mean "interval"?');
  });

  it('refuses values of the wrong type', () => {
    expect(() => metricsPlugin({ path: 'metrics' })).toThrow('metrics.path must be a path starting with "/"');
    expect(() => metricsPlugin({ port: 70000 })).toThrow('metrics.port must be an integer');
    expect(() => metricsPlugin({ host: '127.0.0.1' })).toThrow('give metrics.port too');
    expect(() => metricsPlugin({ otlp: { endpoint: 'nope' } })).toThrow('metrics.otlp.endpoint must be an absolute URL');
  });
});
