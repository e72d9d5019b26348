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
    const lost: string[] = [];
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && seen.size < 2) {
      // A connection the primary handed to the worker as it died may never be answered: such a
      // request is given up after a while and asked again.
      const res = await httpGet(`${running.url}/pid`, undefined, { timeout: 5000 }).catch((error: Error) => {
        lost.push(error.message);
        return undefined;
      });
      if (res === undefined) continue;
      expect(res.status).toBe(200);
      const answered = (JSON.parse(res.body) as { pid: number }).pid;
      if (answered !== pid) seen.add(answered);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(seen.size).toBe(2);
    // At most the connections handed to the dying worker are lost, never one after.
    expect(lost.length).toBeLessThanOrEqual(2);
    if (lost.length > 0) console.warn(`requests lost while worker ${pid} died: ${lost.join('; ')}`);
    expect(running.output()).toMatch(new RegExp(`worker ${pid} exited \\(code 3\\); starting another in 100 ms`));
  });

  it('waits longer before each replacement while workers keep dying, instead of a crash loop', async () => {
    // Two deaths in a row: a worker, then the one that took its place as soon as it serves. The
    // primary doubles the wait when the worker that died lived less than 10 s; this test knows that
    // for sure when the whole sequence took less (a loaded machine may take longer: then the wait
    // is either, as the worker's own lifetime decides).
    const begun = Date.now();
    const first = await crash(running);
    const firstWait = await waitedAfter(running, first);
    const young = await replacementOf(running, first);
    const second = await crash(running, young);
    const secondWait = await waitedAfter(running, second);
    if (Date.now() - begun < 10_000) expect(secondWait).toBe(2 * firstWait);
    else expect([100, 2 * firstWait]).toContain(secondWait);
    await waitForOutput(running, new RegExp(`worker ${second} exited[\\s\\S]*worker \\d+ ready`));
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

/** Crashes one worker (that one, when `pid` is given: the primary hands connections in turn); resolves with its pid. */
async function crash(running: Started, pid?: number): Promise<number> {
  for (let i = 0; i < 20; i++) {
    const reply = JSON.parse((await httpGet(`${running.url}/crash${pid === undefined ? '' : `?pid=${pid}`}`, undefined, { method: 'POST' })).body) as { pid: number; crashed: boolean };
    if (reply.crashed) return reply.pid;
  }
  throw new Error(`worker ${pid} never got a /crash`);
}

/** The wait the primary announced after `pid` died, in ms. */
async function waitedAfter(running: Started, pid: number): Promise<number> {
  const pattern = new RegExp(`worker ${pid} exited \\(code 3\\); starting another in (\\d+) ms`);
  await waitForOutput(running, pattern);
  return Number(pattern.exec(running.output())![1]);
}

/** The pid of the worker started after `pid` died, once it serves. */
async function replacementOf(running: Started, pid: number): Promise<number> {
  const since = running.output().search(new RegExp(`worker ${pid} exited`));
  await waitForOutput(running, new RegExp(`worker ${pid} exited[\\s\\S]*worker (\\d+) ready`));
  return Number(/worker (\d+) ready/.exec(running.output().slice(since))![1]);
}

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
