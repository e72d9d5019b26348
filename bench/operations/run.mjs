// Operations benchmark: what serving a call as an operation (defineOperation + app.operation) costs
// against the same logic written by hand, on each protocol, in the same run — REST: the operation's
// route against a createHandler route; GraphQL: the generated field against a graphql-js resolver;
// gRPC: the generated method against a hand-written service method on the same proto. One server
// process per variant (operations/server.mjs), pinned to one core, the load generator on the other:
// wrk for REST and GraphQL, grpc/load.mjs for gRPC. Servers are loaded in turn, round after round,
// with a warm-up before each run; the ratios operation / hand-written are taken per round, then
// their median. CPU time per request (from /proc) is reported beside throughput.
//   node operations/run.mjs [--smoke] [--rounds 3] [--duration 3] [--json out.json]
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { applyOnly, parseCli, positiveNumber } from '../lib/cli.mjs';
import { cpuPressureUs, cpuSeconds, hasProc } from '../lib/proc.mjs';
import { startServer } from '../lib/server-process.mjs';
import { startGrpcLoadClient } from '../grpc/client.mjs';
import { fixed, int, markdownTable, max, median, min, rotate } from '../lib/stats.mjs';
import { ensureWrk, pinning } from '../lib/tools.mjs';
import { cleanupWrk, runWrk } from '../lib/wrk.mjs';

const variants = [
  { name: 'operation', label: 'operation (defineOperation + app.operation)' },
  { name: 'handwritten', label: 'hand-written (createHandler route, graphql-js resolver, gRPC service method)' },
];
const GRAPHQL_QUERY = '{ sayHello(name: "bench") { message } }';
const protocols = [
  { name: 'rest', label: 'REST POST /hello {"name":"bench"}', request: { method: 'POST', headers: { 'content-type': 'application/json' }, body: { name: 'bench' } }, path: '/hello', expect: { message: 'Hello bench' } },
  {
    name: 'graphql',
    label: `GraphQL POST /graphql ${GRAPHQL_QUERY}`,
    request: { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: { query: GRAPHQL_QUERY } },
    path: '/graphql',
    expect: { data: { sayHello: { message: 'Hello bench' } } },
  },
  { name: 'grpc', label: 'gRPC bench.Greeter/SayHello { name: "bench" }', expect: { message: 'Hello bench' } },
];

const usage = `Usage: node operations/run.mjs [options]
  --smoke           once, shortest settings (1 round, 1 s runs, 10 connections): works end to end? Not a measurement
  --rounds N        measured rounds (default 3)
  --duration S      seconds of each measured run, whole seconds (default 3)
  --warmup S        seconds of the warm-up before each measured run (default 1)
  --connections N   wrk connections, and gRPC calls in flight (default 50)
  --server-cpu N    core the servers are pinned to (default 1)
  --client-cpu N    core wrk and the gRPC load generator are pinned to (default 0)
  --only a,b        protocols to run (${protocols.map((p) => p.name).join(', ')})
  --json FILE       also write every run as JSON`;

const cli = parseCli({
  usage,
  defaults: { rounds: 3, duration: 3 },
  extra: {
    smoke: { type: 'boolean' },
    warmup: { type: 'string' },
    connections: { type: 'string' },
    'server-cpu': { type: 'string' },
    'client-cpu': { type: 'string' },
  },
});
const smoke = cli.smoke === true;
const rounds = smoke ? 1 : cli.rounds;
const duration = smoke ? 1 : Math.max(1, Math.round(cli.duration));
const warmup = smoke ? 1 : positiveNumber('--warmup', cli.warmup, 1);
const connections = smoke ? 10 : positiveNumber('--connections', cli.connections, 50);
const { protocols: picked } = applyOnly(cli.only, { protocols });
const pin = pinning({ serverCpu: cli['server-cpu'] ?? 1, clientCpu: cli['client-cpu'] ?? 0 });
if (!pin.pinned) console.warn(`WARNING: not pinning (${pin.why}); ratios will be less reliable.`);
if (!hasProc()) console.warn('WARNING: no /proc: CPU time per request is not reported.');
if (picked.some((p) => p.name !== 'grpc')) ensureWrk();

const started = [];
const client = startGrpcClient();
const cleanup = async () => {
  client.stop();
  cleanupWrk();
  await Promise.all(started.map((s) => s.stop()));
};
process.on('SIGINT', () => cleanup().then(() => process.exit(130)));
try {
  await main();
} finally {
  await cleanup();
}

async function main() {
  const t0 = Date.now();
  console.log('\n# Operations: an operation against the same logic written by hand, per protocol\n');
  if (smoke) console.log('SMOKE RUN: shortest settings; the figures below are not measurements.');
  console.log(
    `node ${process.version}; ${rounds} round(s) × (${warmup} s warm-up + ${duration} s) per protocol and variant; wrk -t1 -c${connections}, gRPC: ${connections} calls in flight (raw http2 client); ` +
      (pin.pinned ? `servers on CPU ${pin.serverCpu}, load on CPU ${pin.clientCpu}` : 'unpinned'),
  );
  for (const v of variants) {
    const grpcPort = await freePort();
    const s = await startServer({ name: v.name, file: fileURLToPath(new URL('./server.mjs', import.meta.url)), pin, env: { VARIANT: v.name, GRPC_PORT: String(grpcPort) } });
    started.push({ ...s, variant: v, grpcTarget: `127.0.0.1:${grpcPort}` });
  }

  // Correctness first: each protocol answers each variant with the same reply.
  for (const s of started) {
    for (const p of picked) {
      const got = p.name === 'grpc' ? (await client.send({ cmd: 'check', target: s.grpcTarget, client: 'http2' })).reply : await httpOnce(s, p);
      if (!isDeepStrictEqual(got, p.expect)) throw new Error(`Pre-check failed: ${s.variant.name} ${p.name} answered ${JSON.stringify(got)}`);
    }
  }
  console.log(`Pre-check: both variants answer the same on ${picked.map((p) => p.name).join(', ')}.`);

  const load = async (s, p, seconds) => {
    const cpuBefore = cpuSeconds(s.pid);
    const pressureBefore = cpuPressureUs();
    let r;
    if (p.name === 'grpc') {
      const out = await client.send({ cmd: 'run', target: s.grpcTarget, client: 'http2', seconds, concurrency: connections, connections: 1 });
      if (out.error) throw new Error(`gRPC load generator: ${out.error}`);
      r = { requests: out.calls, seconds: out.seconds, failed: out.failed, latencyMs: out.latencyMs };
    } else {
      const w = await runWrk({ url: `${s.baseUrl}${p.path}`, request: p.request, duration: Math.max(1, Math.round(seconds)), connections, threads: 1, pin });
      r = { requests: w.requests, seconds: w.seconds, failed: w.non2xx + w.socketErrors, latencyMs: w.latencyMs };
    }
    const cpu = cpuSeconds(s.pid) - cpuBefore;
    return { ...r, rps: r.requests / r.seconds, cpuUsPerRequest: (cpu / r.requests) * 1e6, serverBusy: cpu / r.seconds, cpuPressure: (cpuPressureUs() - pressureBefore) / 1e6 / r.seconds };
  };

  const runs = [];
  for (let round = 0; round < rounds; round++) {
    for (const p of picked) {
      for (const s of rotate(started, round)) {
        await load(s, p, round === 0 ? Math.max(2, warmup) : warmup);
        const r = await load(s, p, duration);
        runs.push({ round, protocol: p.name, variant: s.variant.name, ...r });
        if (r.failed > 0) console.warn(`  round ${round + 1} ${p.name} ${s.variant.name}: ${r.failed} failed requests`);
      }
    }
    console.log(`round ${round + 1}/${rounds} done (${Math.round((Date.now() - t0) / 1000)} s)`);
  }
  const rows = report(runs);
  if (cli.json) writeFileSync(cli.json, JSON.stringify({ node: process.version, smoke, rounds, duration, warmup, connections, pin, runs, rows }, null, 2));
  console.log(`\nOperations benchmark: ${Math.round((Date.now() - t0) / 1000)} s.`);
}

/** Prints the table: per protocol, each variant's median (min–max) and the per-round ratios. */
function report(runs) {
  const range = (xs, f) => `${f(median(xs))} (${f(min(xs))}–${f(max(xs))})`;
  const rows = [];
  const table = [];
  for (const p of picked) {
    const of = (variant) => runs.filter((r) => r.protocol === p.name && r.variant === variant);
    const ops = of('operation');
    const hand = of('handwritten');
    const perRound = (key) => ops.map((o) => o[key] / hand.find((h) => h.round === o.round)[key]);
    const rps = perRound('rps');
    const cpu = perRound('cpuUsPerRequest');
    const failed = [...ops, ...hand].reduce((n, r) => n + r.failed, 0);
    // Within 10%: ≥ 0.9× the requests/s, ≤ 1/0.9 = 1.11× the CPU per request.
    const within = median(rps) >= 0.9 && median(cpu) <= 1 / 0.9;
    rows.push({ protocol: p.name, rpsRatio: median(rps), cpuRatio: median(cpu), failed, within });
    table.push([
      p.label,
      range(ops.map((r) => r.rps), int),
      range(hand.map((r) => r.rps), int),
      range(rps, (x) => fixed(x)),
      `${fixed(median(ops.map((r) => r.cpuUsPerRequest)), 1)} / ${fixed(median(hand.map((r) => r.cpuUsPerRequest)), 1)}`,
      range(cpu, (x) => fixed(x)),
      String(failed),
      within ? 'yes' : 'no',
    ]);
  }
  console.log(`\n${markdownTable(['call', 'operation req/s', 'hand-written req/s', 'ratio req/s', 'CPU µs/req op / hand', 'ratio CPU/req', 'failed', 'within 10%'], table, 'lrrrrrrl')}`);
  const pressure = median(runs.map((r) => r.cpuPressure));
  if (pressure > 0.05) console.log(`\nCPU pressure: some task waited for a CPU ${Math.round(100 * pressure)}% of the time (median over runs): the machine was busy; compare ratios, not absolute figures.`);
  return rows;
}

/** One request with fetch; the parsed JSON body. */
async function httpOnce(s, p) {
  const res = await fetch(`${s.baseUrl}${p.path}`, { method: p.request.method, headers: p.request.headers, body: JSON.stringify(p.request.body) });
  return res.json();
}

/** A free TCP port on 127.0.0.1 (for the gRPC server of a variant). */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function startGrpcClient() {
  return startGrpcLoadClient(pin);
}
