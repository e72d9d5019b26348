// `fw start <module> --workers N` through real sockets: the processes share the HTTP and gRPC
// ports, a dead worker is replaced, SIGHUP replaces them one at a time with no failed request,
// the metrics endpoint sums every worker's series, and SIGTERM shuts them down in order.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { fwStart, freePort, greeterClient, httpGet, load, stopChild, type GreeterClient, type Started } from './scale-out/support.js';

jest.setTimeout(60_000);

describe('fw start --workers 2', () => {
  let running: Started;
  let Greeter: Awaited<ReturnType<typeof greeterClient>>;
  let client: GreeterClient;
  const dir = mkdtempSync(join(tmpdir(), 'fw-start-'));
  const exitLog = join(dir, 'exits');
  const exitedPids = (): number[] => { try { return readFileSync(exitLog, 'utf8').trim().split('\n').map(Number); } catch { return []; } };

  beforeAll(async () => {
    Greeter = await greeterClient();
    running = await fwStart(['--workers', '2', '--port', '0', '--host', '127.0.0.1'], { GRPC_PORT: String(await freePort()), SHUTDOWN_DELAY: '1000', METRICS: '1', EXIT_LOG: exitLog });
    client = new Greeter(running.grpcTarget, grpc.credentials.createInsecure());
  });

  afterAll(async () => {
    client?.close();
    await stopChild(running?.child);
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves HTTP from both workers on one port', async () => {
    const pids = new Set<number>();
    // One connection per request: the primary hands connections to the workers in turn.
    for (let i = 0; i < 8; i++) pids.add((JSON.parse((await httpGet(`${running.url}/pid`)).body) as { pid: number }).pid);
    expect(pids.size).toBe(2);
  });

  it('serves gRPC from both workers on one port', async () => {
    const pids = new Set<number>();
    for (let i = 0; i < 6; i++) {
      // A new channel is a new connection, handed to the next worker.
      const channel = new Greeter(running.grpcTarget, grpc.credentials.createInsecure(), { 'grpc.use_local_subchannel_pool': 1 });
      const reply = await new Promise<{ pid: number }>((resolve, reject) => channel.Hello({ name: 'x' }, (err, out) => (err ? reject(err) : resolve(out as { pid: number }))));
      channel.close();
      pids.add(reply.pid);
    }
    expect(pids.size).toBe(2);
  });

  it('answers the metrics path with the series of every worker summed', async () => {
    const before = await count(running.url);
    for (let i = 0; i < 10; i++) await httpGet(`${running.url}/pid`);
    const text = (await httpGet(`${running.url}/metrics`)).body;
    expect(routeCount(text)).toBe(before + 10);
    // The process description is kept once, not once per worker.
    expect(text.match(/^target_info\{/gm)).toHaveLength(1);
    expect(text.match(/^# TYPE http_server_request_duration_seconds histogram$/gm)).toHaveLength(1);
  });

  it('replaces a worker that dies', async () => {
    const { pid } = JSON.parse((await httpGet(`${running.url}/crash`, undefined, { method: 'POST' })).body) as { pid: number };
    const seen = new Set<number>();
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline && seen.size < 2) {
      const res = await httpGet(`${running.url}/pid`);
      expect(res.status).toBe(200);
      const answered = (JSON.parse(res.body) as { pid: number }).pid;
      if (answered !== pid) seen.add(answered);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(seen.size).toBe(2);
    expect(running.output()).toMatch(new RegExp(`worker ${pid} exited \\(code 3\\); starting another in 100 ms`));
  });

  it('waits longer before each replacement while workers keep dying, instead of a crash loop', async () => {
    const { pid } = JSON.parse((await httpGet(`${running.url}/crash`, undefined, { method: 'POST' })).body) as { pid: number };
    // The second death in a row (neither worker lived 10 s): twice the first wait.
    await waitForOutput(running, new RegExp(`worker ${pid} exited \\(code 3\\); starting another in 200 ms`));
    await waitForOutput(running, /worker \d+ ready[\s\S]*worker \d+ ready/);
  });

  it('replaces every worker on SIGHUP, one at a time, with no failed request on REST, GraphQL or gRPC', async () => {
    const before = new Set<number>();
    for (let i = 0; i < 6; i++) before.add((JSON.parse((await httpGet(`${running.url}/pid`)).body) as { pid: number }).pid);
    const restarted = new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (/restarted every worker/.test(running.output())) {
          clearInterval(poll);
          resolve();
        }
      }, 50);
    });
    const until = restarted.then(() => new Promise((resolve) => setTimeout(resolve, 500)));
    const tally = load(running.url, client, until);
    await new Promise((resolve) => setTimeout(resolve, 300));
    running.child.kill('SIGHUP');
    const result = await tally;
    expect(result.failures).toEqual([]);
    expect(result.ok.rest).toBeGreaterThan(20);
    expect(result.ok.graphql).toBeGreaterThan(20);
    expect(result.ok.grpc).toBeGreaterThan(20);
    const after = new Set<number>();
    for (let i = 0; i < 6; i++) after.add((JSON.parse((await httpGet(`${running.url}/pid`)).body) as { pid: number }).pid);
    expect(after.size).toBe(2);
    for (const pid of after) expect(before.has(pid)).toBe(false);
    // Each replaced worker ran the app's whole shutdown, its beforeExit hook included.
    for (const pid of before) expect(exitedPids()).toContain(pid);
  });

  it('shuts every worker down in order on SIGTERM: not ready, then the drain, and exits 0', async () => {
    const inFlight = httpGet(`${running.url}/slow?ms=1500`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    running.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));
    // During the shutdown delay: still serving, but not ready.
    expect((await httpGet(`${running.url}/readyz`)).status).toBe(503);
    expect((await httpGet(`${running.url}/pid`)).status).toBe(200);
    expect((await inFlight).status).toBe(200);
    expect(await running.exited).toBe(0);
  });
});

describe('fw start with metrics on an admin port', () => {
  it('refuses to start: every worker would answer the port with its own series', async () => {
    const failed = fwStart(['--workers', '2', '--port', '0', '--host', '127.0.0.1'], { GRPC_PORT: String(await freePort()), METRICS: '1', METRICS_PORT: String(await freePort()) });
    await expect(failed).rejects.toMatchObject({ code: 1, output: expect.stringContaining('observability.metrics.port (an admin port) is not served under fw start --workers') });
  });
});

describe('fw start with an in-memory rate limit', () => {
  it('refuses to start under workers, pointing to RedisStore', async () => {
    const failed = fwStart(['--workers', '2', '--port', '0', '--host', '127.0.0.1'], { GRPC_PORT: String(await freePort()), RATE_LIMIT: 'memory' });
    await expect(failed).rejects.toMatchObject({ code: 1, output: expect.stringMatching(/MemoryStore[\s\S]*RedisStore/) });
  });
});

async function waitForOutput(started: Started, pattern: RegExp): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!pattern.test(started.output())) {
    if (Date.now() > deadline) throw new Error(`no ${String(pattern)} in:\n${started.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** http.server.request.duration's count for GET /pid 200 in a Prometheus text. */
function routeCount(text: string): number {
  const line = text.split('\n').find((l) => l.startsWith('http_server_request_duration_seconds_count{') && l.includes('http_route="/pid"'));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

async function count(url: string): Promise<number> {
  return routeCount((await httpGet(`${url}/metrics`)).body);
}
