import { startDemoProcess, type DemoProcess } from './demo-process.js';

// What a newcomer sees on a first run (`pnpm demo`), through the real process: the banner says
// where everything is, and what it points at answers.
jest.setTimeout(60_000);

describe('the demo on a first run', () => {
  let demo: DemoProcess;

  beforeAll(async () => {
    demo = await startDemoProcess();
  });

  afterAll(async () => {
    if (demo) await demo.stop();
  });

  it('serves Prometheus metrics at the /metrics URL it prints', async () => {
    const { rest, metrics } = demo.endpoints;
    expect(metrics).toBe(`${rest}/metrics`);
    expect(demo.output()).toContain(`  Metrics   ${metrics}   (Prometheus text; health: ${rest}/livez and /readyz)`);
    await fetch(`${rest}/api/v1/books/b1`).then((res) => res.arrayBuffer());
    const res = await fetch(metrics);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(await res.text()).toMatch(/^http_server_request_duration_seconds_count\{.*http_route="\/api\/v1\/books\/:id".*\} 1$/m);
  });
});
