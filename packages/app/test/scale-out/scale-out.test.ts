// Many instances with real parts: HAProxy (HTTP/1.1, and gRPC over h2c) in front of three
// `fw start` instances, Redis for the shared rate limit, Prometheus scraping every instance. All on
// 127.0.0.1 with free ports; the configurations are written per run by
// tooling/scripts/scale-out/configs.cjs; every process is stopped by its PID in afterAll.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { fwStart, freePort, greeterClient, httpGet, load, stopChild, type GreeterClient, type Started } from './support.js';

const REPO = join(__dirname, '..', '..', '..', '..');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { haproxyConfig, prometheusConfig } = require(join(REPO, 'tooling', 'scripts', 'scale-out', 'configs.cjs')) as {
  haproxyConfig(options: { httpPort: number; grpcPort: number; statsPort: number; instances: Instance[]; checkInterval?: number }): string;
  prometheusConfig(options: { instances: Instance[]; interval?: number }): string;
};

interface Instance {
  name: string;
  http: number;
  grpc: number;
}

const PROGRAMS = ['haproxy', 'prometheus', 'redis-server'];
const missing = (): string[] => PROGRAMS.filter((program) => spawnSync(program, ['--version'], { stdio: 'ignore' }).error !== undefined);
// Installed by the README's test command (tooling/scripts/setup-services.sh runs before the suites),
// never by a test: a program still missing here is a failure, not a skipped suite.
const absent = missing();
const suite = absent.length === 0 ? describe : describe.skip;

describe('the programs the scale-out suite runs', () => {
  it('are installed (tooling/scripts/setup-services.sh installs them)', () => {
    expect(absent).toEqual([]);
  });
});

jest.setTimeout(60_000);

/** Long enough for HAProxy to see the 503 and the checks below to run on a loaded machine. */
const SHUTDOWN_DELAY = 2500;
const CHECK_INTERVAL = 200;

suite('three fw instances behind HAProxy, with Redis and Prometheus', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fw-scale-out-'));
  const children: ChildProcess[] = [];
  const instances: Instance[] = [];
  const running = new Map<string, Started>();
  let env: Record<string, string>;
  let lb: { http: string; grpc: string; stats: string };
  let prometheus: string;
  let Greeter: Awaited<ReturnType<typeof greeterClient>>;
  let client: GreeterClient;

  /** Starts (or starts again) one instance: `fw start --workers 1` on its ports. */
  const startInstance = async (instance: Instance): Promise<Started> => {
    const started = await fwStart(['--workers', '1', '--port', String(instance.http), '--host', '127.0.0.1'], { ...env, GRPC_PORT: String(instance.grpc) });
    running.set(instance.name, started);
    return started;
  };

  beforeAll(async () => {
    const redisPort = await freePort();
    children.push(spawnProgram('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir]));
    await waitFor(async () => (await tcpPing(redisPort)) === true, 'redis-server');
    env = { RATE_LIMIT: 'redis', RATE_LIMIT_MAX: '10', RATE_LIMIT_PREFIX: String(process.pid), REDIS_URL: `redis://127.0.0.1:${redisPort}`, METRICS: '1', SHUTDOWN_DELAY: String(SHUTDOWN_DELAY) };
    for (const name of ['a', 'b', 'c']) instances.push({ name, http: await freePort(), grpc: await freePort() });
    const [lbHttp, lbGrpc, stats, promPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
    Greeter = await greeterClient();
    await Promise.all(instances.map(startInstance));

    writeFileSync(join(dir, 'haproxy.cfg'), haproxyConfig({ httpPort: lbHttp, grpcPort: lbGrpc, statsPort: stats, instances, checkInterval: CHECK_INTERVAL }));
    const check = spawnSync('haproxy', ['-c', '-q', '-f', join(dir, 'haproxy.cfg')], { encoding: 'utf8' });
    expect(check.status).toBe(0);
    children.push(spawnProgram('haproxy', ['-db', '-f', join(dir, 'haproxy.cfg')]));
    lb = { http: `http://127.0.0.1:${lbHttp}`, grpc: `127.0.0.1:${lbGrpc}`, stats: `http://127.0.0.1:${stats}/stats;csv` };

    writeFileSync(join(dir, 'prometheus.yml'), prometheusConfig({ instances, interval: 1 }));
    children.push(spawnProgram('prometheus', [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'tsdb')}`, `--web.listen-address=127.0.0.1:${promPort}`, '--log.level=warn']));
    prometheus = `http://127.0.0.1:${promPort}`;

    await waitFor(async () => Object.values(await serverStates(lb.stats, 'fw_http')).filter((s) => s === 'UP').length === 3, 'HAProxy to see the three instances up');
    await waitFor(async () => (await httpGet(`${prometheus}/-/ready`).catch(() => ({ status: 0 }))).status === 200, 'Prometheus');
    client = new Greeter(lb.grpc, grpc.credentials.createInsecure());
  });

  afterAll(async () => {
    client?.close();
    await Promise.all([...running.values()].map((started) => stopChild(started.child)));
    for (const child of children.reverse()) await stopChild(child, 'SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  it('spreads load over the three instances, on HTTP and on gRPC', async () => {
    const http = new Map<number, number>();
    for (let i = 0; i < 30; i++) {
      const { pid } = JSON.parse((await httpGet(`${lb.http}/hello/spread`)).body) as { pid: number };
      http.set(pid, (http.get(pid) ?? 0) + 1);
    }
    expect(http.size).toBe(3);
    for (const count of http.values()) expect(count).toBeGreaterThanOrEqual(5);
    // HAProxy balances each gRPC call (an HTTP/2 stream) of one channel.
    const rpc = new Set<number>();
    for (let i = 0; i < 12; i++) rpc.add((await new Promise<{ pid: number }>((resolve, reject) => client.Hello({ name: 'spread' }, (err, out) => (err ? reject(err) : resolve(out as { pid: number }))))).pid);
    expect(rpc.size).toBe(3);
  });

  it('holds one rate limit across the instances (RedisStore): 10 answers in the window, then 429, wherever they land', async () => {
    const statuses: number[] = [];
    const pids = new Set<number>();
    for (let i = 0; i < 30; i++) {
      const res = await httpGet(`${lb.http}/limited`);
      statuses.push(res.status);
      if (res.status === 200) pids.add((JSON.parse(res.body) as { pid: number }).pid);
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(20);
    // The 10 answers came from more than one instance, so the limit is the instances' shared one.
    // (Not necessarily all three: on a loaded machine a health check can take one out of rotation for a moment.)
    expect(pids.size).toBeGreaterThanOrEqual(2);
  });

  it('delivers events published on any instance to a subscriber on another (Redis pub/sub, SSE through HAProxy)', async () => {
    const events: Array<{ subscribed?: number; from?: number }> = [];
    const req = request(`${lb.http}/events`, { agent: false });
    const opened = new Promise<void>((resolve, reject) => {
      req.on('response', (res) => {
        let buffer = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
            const data = buffer.slice(0, end).split('\n').find((line) => line.startsWith('data:'));
            buffer = buffer.slice(end + 2);
            if (data !== undefined) events.push(JSON.parse(data.slice(5)) as { subscribed?: number; from?: number });
            if (events.length === 1) resolve();
          }
        });
      });
      req.on('error', reject);
    });
    req.end();
    try {
      await opened;
      const subscriber = events[0]!.subscribed;
      for (let i = 0; i < 6; i++) expect((await httpGet(`${lb.http}/publish`, undefined, { method: 'POST' })).status).toBe(200);
      await waitFor(async () => events.length === 7, 'the six events', 10_000);
      const publishers = new Set(events.slice(1).map((event) => event.from));
      // Round robin: the six publishes landed on all three instances, two of them not the subscriber's.
      expect(publishers.size).toBe(3);
      expect([...publishers].filter((pid) => pid !== subscriber).length).toBe(2);
    } finally {
      req.destroy();
    }
  });

  it('takes an instance out at its first 503 on /readyz, before it drains', async () => {
    const a = running.get('a')!;
    a.child.kill('SIGTERM');
    await waitFor(async () => (await serverStates(lb.stats, 'fw_http')).a !== 'UP', 'HAProxy to take instance a out');
    // Out while the instance still serves: its shutdown delay has not ended, nothing was refused.
    expect(a.child.exitCode).toBeNull();
    expect((await httpGet(`http://127.0.0.1:${instances[0]!.http}/livez`)).status).toBe(200);
    expect((await httpGet(`http://127.0.0.1:${instances[0]!.http}/readyz`)).status).toBe(503);
    expect(await a.exited).toBe(0);
    await startInstance(instances[0]!);
    await waitFor(async () => (await serverStates(lb.stats, 'fw_http')).a === 'UP', 'HAProxy to put instance a back');
  });

  it('loses no request on REST, GraphQL or gRPC while each instance in turn gets SIGTERM and is started again', async () => {
    const rolling = (async () => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      for (const instance of instances) {
        const started = running.get(instance.name)!;
        started.child.kill('SIGTERM');
        expect(await started.exited).toBe(0);
        await startInstance(instance);
        await waitFor(async () => {
          const states = [await serverStates(lb.stats, 'fw_http'), await serverStates(lb.stats, 'fw_grpc')];
          return states.every((s) => s[instance.name] === 'UP');
        }, `HAProxy to put instance ${instance.name} back`);
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
    })();
    const tally = await load(lb.http, client, rolling, 3);
    await rolling;
    expect(tally.failures).toEqual([]);
    expect(tally.ok.rest).toBeGreaterThan(50);
    expect(tally.ok.graphql).toBeGreaterThan(50);
    expect(tally.ok.grpc).toBeGreaterThan(50);
  }, 90_000);

  it('leaves the fw series in Prometheus, from every instance, with bounded labels', async () => {
    // Paths no client could turn into series: every one is the route template.
    for (let i = 0; i < 20; i++) await httpGet(`${lb.http}/hello/${Math.random().toString(36).slice(2)}`);
    for (let i = 0; i < 5; i++) await httpGet(`${lb.http}/no/such/${i}`);
    const query = async (q: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>> => {
      const res = await httpGet(`${prometheus}/api/v1/query?query=${encodeURIComponent(q)}`);
      return (JSON.parse(res.body) as { data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> } }).data.result;
    };
    await waitFor(async () => (await query('sum by (instance) (http_server_request_duration_seconds_count{http_route="/hello/:name"})')).length === 3, 'Prometheus to have scraped every instance');
    const routes = JSON.parse((await httpGet(`${prometheus}/api/v1/label/http_route/values`)).body) as { data: string[] };
    expect(routes.data.every((route) => !/\/hello\/[^:]/.test(route) && !route.startsWith('/no/such'))).toBe(true);
    expect(routes.data).toContain('/hello/:name');
    const rpc = await query('sum by (rpc_method) (rpc_server_call_duration_seconds_count)');
    expect(rpc.map((r) => r.metric.rpc_method)).toEqual(['scale.Greeter/Hello']);
    // Every fw series, whatever traffic came: a few dozen, not one per path.
    const series = await query('count({job="fw", __name__=~"http_server.*|rpc_server.*|graphql_server.*|fw_operation.*"})');
    expect(Number(series[0]!.value[1])).toBeLessThan(400);
  });
});

function spawnProgram(command: string, args: string[]): ChildProcess {
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => (errors = (errors + chunk.toString()).slice(-2000)));
  child.once('exit', (code, signal) => {
    if (code !== 0 && signal === null) process.stderr.write(`${command} exited with ${code}: ${errors}\n`);
  });
  return child;
}

async function waitFor(condition: () => Promise<boolean>, what: string, timeout = 20_000): Promise<void> {
  const deadline = Date.now() + timeout;
  for (;;) {
    if (await condition().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The status (UP, DOWN, ...) of each server of `backend` on HAProxy's stats page. */
async function serverStates(statsUrl: string, backend: string): Promise<Record<string, string>> {
  const [header, ...rows] = (await httpGet(statsUrl)).body.trim().split('\n');
  const columns = header!.replace(/^# /, '').split(',');
  const [px, sv, status] = ['pxname', 'svname', 'status'].map((name) => columns.indexOf(name));
  const states: Record<string, string> = {};
  for (const row of rows) {
    const cells = row.split(',');
    if (cells[px!] === backend && cells[sv!] !== 'BACKEND') states[cells[sv!]!] = cells[status!]!.split(' ')[0]!;
  }
  return states;
}

function tcpPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => socket.end('PING\r\n'));
    socket.once('data', (data: Buffer) => {
      socket.destroy();
      resolve(data.toString().startsWith('+PONG'));
    });
    socket.once('error', () => resolve(false));
  });
}
