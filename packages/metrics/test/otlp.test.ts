import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';

// OTLP push to a collector stand-in over a real socket (OTLP/HTTP JSON), from an app in a child
// process using the built package: the exporter's requests are read as a collector would.

interface OtlpMetric {
  name: string;
  unit?: string;
  histogram?: { dataPoints: Array<{ count: string | number; attributes: Array<{ key: string; value: Record<string, unknown> }> }> };
}
interface OtlpRequest {
  resourceMetrics: Array<{ resource: { attributes: Array<{ key: string; value: { stringValue?: string } }> }; scopeMetrics: Array<{ scope: { name: string }; metrics: OtlpMetric[] }> }>;
}

describe('OTLP push', () => {
  const received: OtlpRequest[] = [];
  let collector: Server;
  let endpoint: string;

  beforeAll(async () => {
    collector = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        if (req.url === '/v1/metrics' && req.headers['content-type'] === 'application/json') received.push(JSON.parse(body) as OtlpRequest);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => collector.close(() => resolve())));

  it('pushes the request metrics with the service name, and flushes what is pending when the app closes', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [join(__dirname, 'fixtures', 'otlp-app.mjs'), endpoint], { cwd: __dirname });
    expect(stdout).toBe('metrics path answered 404\nclosed\n');
    const metrics = received.flatMap((r) => r.resourceMetrics.flatMap((rm) => rm.scopeMetrics.flatMap((sm) => sm.metrics)));
    const duration = metrics.find((m) => m.name === 'http.server.request.duration');
    expect(duration?.unit).toBe('s');
    const point = duration!.histogram!.dataPoints[0]!;
    expect(Number(point.count)).toBe(1);
    expect(Object.fromEntries(point.attributes.map((a) => [a.key, Object.values(a.value)[0]]))).toMatchObject({ 'http.route': '/orders/:id', 'http.request.method': 'GET' });
    const resource = received[0]!.resourceMetrics[0]!.resource.attributes;
    expect(resource).toContainEqual({ key: 'service.name', value: { stringValue: 'pushed' } });
  });

  it('warns on the app log when the collector refuses the flush on close, and still closes', async () => {
    const refusing = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(400, { 'content-type': 'application/json' }).end('{"message":"no"}'));
    });
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    try {
      const at = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}`;
      const { stdout } = await promisify(execFile)(process.execPath, [join(__dirname, 'fixtures', 'otlp-app.mjs'), at], { cwd: __dirname });
      expect(stdout).toMatch(/^metrics path answered 404\nlog: @fw\/metrics: the last metrics could not be pushed over OTLP when the app closed: .+\nclosed\n$/);
    } finally {
      await new Promise<void>((resolve) => refusing.close(() => resolve()));
    }
  });
});
