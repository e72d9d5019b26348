import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { startDemoProcess, type DemoProcess } from './demo-process.js';

// What a newcomer sees on a first run (`pnpm demo`, then `pnpm demo:tour`), through the real
// process: the banner says where everything is, its PID and how to stop it; the metrics it points
// at answer; GraphiQL opens on a bookstore query; Ctrl+C says what it does; and the tour without
// a demo says to start one.
jest.setTimeout(60_000);

const HTML = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

describe('the demo on a first run', () => {
  let demo: DemoProcess;

  beforeAll(async () => {
    demo = await startDemoProcess();
  });

  afterAll(async () => {
    if (demo) await demo.stop();
  });

  it('prints its PID and how to stop it: Ctrl+C, or kill <pid>', () => {
    const pid = demo.child.pid!;
    expect(demo.endpoints.pid).toBe(pid);
    expect(demo.output()).toContain(`fw demo bookstore is up — one app, three protocols (PID ${pid})`);
    expect(demo.output()).toContain(`Stop with Ctrl+C here, or kill ${pid} from another terminal: in-flight requests finish (Ctrl+C twice exits at once).`);
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

  it('opens GraphiQL on a bookstore query that says where the token goes', async () => {
    const res = await fetch(demo.endpoints.graphql, { headers: HTML });
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const attribute = /data-default-query="([^"]*)"/.exec(await res.text())?.[1];
    const query = attribute?.replaceAll('&quot;', '"').replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');
    expect(query).toContain('{ "authorization": "Bearer <customer token>" }');
    expect(query).toContain('listBooks(limit: 3)');
    // The query runs as it is on the demo's schema.
    const run = await fetch(demo.endpoints.graphql, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
    const body = (await run.json()) as { data?: { listBooks: unknown[] } };
    expect(body.data?.listBooks).toHaveLength(3);
  });
});

describe('demo:tour against a running demo', () => {
  it('makes one call per protocol, Connect included, and follows one live order on three streams', async () => {
    const demo = await startDemoProcess();
    try {
      const grpcTarget = demo.endpoints.grpc.replace(/^[a-z]+:\/\//, '');
      const child = spawn(process.execPath, [join(__dirname, '..', 'dist', 'tour.js')], {
        env: { ...process.env, DEMO_URL: demo.endpoints.rest, DEMO_GRPC: grpcTarget },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
      expect({ code, err }).toEqual({ code: 0, err: '' });
      const titles = out.split('\n').filter((line) => line.startsWith('── ')).map((line) => line.split('  ')[0]);
      expect(titles).toEqual(expect.arrayContaining(['── REST', '── GraphQL', '── gRPC', '── Connect', '── SSE']));
      // The Connect call answers canonical proto3 JSON: lowerCamelCase names, the enum by its name.
      const connect = out.slice(out.indexOf('── Connect'));
      expect(connect.split('\n')[0]).toBe('── Connect  POST /bookstore.Catalog/GetBook {"id":"b1"} (Content-Type: application/json) → 200');
      expect(connect).toMatch(/"book": \{\n\s+"id": "b1"/);
      expect(connect).toMatch(/"genre": "GENRE_[A-Z_]+"/);
    } finally {
      await demo.stop();
    }
  });
});

describe('stopping the demo', () => {
  it('says on Ctrl+C what happens, drains and exits 0', async () => {
    const demo = await startDemoProcess();
    const code = await demo.stop('SIGINT');
    expect(code).toBe(0);
    const said = demo.output().split('\n').filter((line) => line.includes('SIGINT'));
    expect(said).toEqual(['SIGINT: shutting down: draining, then exiting (press Ctrl+C again to exit now)']);
    expect(demo.output()).toContain('demo stopped');
  });
});

/** A port nothing listens on. */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

describe('demo:tour without a running demo', () => {
  it('says the demo is not running and how to start it, and exits 1 without a stack', async () => {
    const port = await closedPort();
    const child = spawn(process.execPath, [join(__dirname, '..', 'dist', 'tour.js')], {
      env: { ...process.env, DEMO_URL: `http://127.0.0.1:${port}`, DEMO_GRPC: `127.0.0.1:${port}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      `The demo is not running at http://127.0.0.1:${port} (connect ECONNREFUSED 127.0.0.1:${port}).\n` +
        'Start it in another terminal, then run the tour again:\n' +
        '  npx -y pnpm@10.34.9 demo\n' +
        '(DEMO_URL and DEMO_GRPC point the tour at a demo elsewhere.)\n',
    );
  });
});
