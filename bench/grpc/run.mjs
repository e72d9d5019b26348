// gRPC unary throughput (issue 6): fw's gRPC server (createApp with protocols.grpc) against a bare
// grpc-js server with the same proto, in the same run. wrk cannot speak gRPC, so the load comes
// from grpc/load.mjs, a grpc-js client process pinned to the client core with N calls in flight;
// the servers are pinned to the other core, started once, and loaded in turn round after round
// with a warm-up before each run, as the HTTP suites are. The report is the HTTP suites' (calls
// instead of requests, the client instead of wrk).
//   node grpc/run.mjs [--rounds 3] [--duration 3] [--concurrency 50] [--json out.json]
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { applyOnly, parseCli, positiveNumber } from '../lib/cli.mjs';
import { cpuPressureUs, cpuSeconds, hasProc, memoryKiB } from '../lib/proc.mjs';
import { startServer } from '../lib/server-process.mjs';
import { startGrpcLoadClient } from './client.mjs';
import { median, rotate } from '../lib/stats.mjs';
import { pinning } from '../lib/tools.mjs';
import { printReport } from '../http/report.mjs';

const servers = [
  { name: 'fw', label: 'fw (@fw/app, protocols.grpc)', file: 'servers/fw.mjs' },
  { name: 'grpc-js', label: 'bare grpc-js Server', file: 'servers/bare.mjs' },
];
const scenario = { name: 'unary', label: 'unary SayHello({ name: "bench" }) → { message: "Hello bench" }', expect: { message: 'Hello bench' } };

const suite = {
  name: 'grpc',
  issue: 6,
  title: 'gRPC unary calls: fw against a bare grpc-js server with the same proto',
  refs: ['grpc-js'],
  words: { rate: 'calls/s', unit: 'call', client: 'client', failures: 'non-OK calls' },
  targets(m) {
    const x = m.ratios(['fw', 'unary'], ['grpc-js', 'unary']);
    const cpu = m.ratios(['fw', 'unary'], ['grpc-js', 'unary'], 'cpuUsPerRequest');
    // ≥ 0.9× the calls/s is ≤ 1/0.9 = 1.11× the CPU per call.
    return [{ target: 'unary calls/s ≥ 0.9× bare grpc-js', measured: `calls/s ${m.fmt(x)}; CPU/call ${m.fmt(cpu)}`, verdict: m.verdict(m.median(x) >= 0.9, m.median(cpu) <= 1 / 0.9) }];
  },
};

const usage = `Usage: node grpc/run.mjs [options]
  --rounds N        measured rounds (default 3)
  --duration S      seconds of each measured run (default 3)
  --warmup S        seconds of the warm-up before each measured run (default 1)
  --concurrency N   unary calls in flight (default 50, as wrk's 50 connections)
  --connections N   connections the calls are spread over (default 1: grpc-js's one channel)
  --client K        load generator: http2 (raw node:http2 gRPC calls, checked byte for byte; cheap,
                    so the servers are the bottleneck; default) or grpc-js (a real grpc-js client)
  --server-cpu N    core the servers are pinned to (default 1)
  --client-cpu N    core the load generator is pinned to (default 0)
  --only a,b        servers to run (${servers.map((s) => s.name).join(', ')})
  --profile DIR     start the servers with --cpu-prof, profiles written to DIR when they stop
  --json FILE       also write every run as JSON`;

const cli = parseCli({
  usage,
  defaults: { rounds: 3, duration: 3 },
  extra: {
    warmup: { type: 'string' },
    concurrency: { type: 'string' },
    client: { type: 'string' },
    connections: { type: 'string' },
    'server-cpu': { type: 'string' },
    'client-cpu': { type: 'string' },
    profile: { type: 'string' },
  },
});
const warmup = positiveNumber('--warmup', cli.warmup, 1);
const concurrency = positiveNumber('--concurrency', cli.concurrency, 50);
const connections = positiveNumber('--connections', cli.connections, 1);
const clientKind = cli.client ?? 'http2';
if (clientKind !== 'http2' && clientKind !== 'grpc-js') throw new TypeError(`--client must be http2 or grpc-js, got "${clientKind}"`);
const { servers: serverDefs } = applyOnly(cli.only, { servers });
const pin = pinning({ serverCpu: cli['server-cpu'] ?? 1, clientCpu: cli['client-cpu'] ?? 0 });
if (!pin.pinned) console.warn(`WARNING: not pinning (${pin.why}); ratios will be less reliable.`);
if (!hasProc()) console.warn('WARNING: no /proc: CPU time per call and peak RSS are not reported.');

const started = [];
const client = startClient();
const cleanup = async () => {
  client.stop();
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
  console.log(`\n# Suite grpc (issue 6): ${suite.title}\n`);
  console.log(
    `node ${process.version}; ${clientKind} client, ${concurrency} calls in flight on ${connections} connection(s); ${cli.rounds} rounds × (${warmup} s warm-up + ${cli.duration} s); ` +
      (pin.pinned ? `servers on CPU ${pin.serverCpu}, client on CPU ${pin.clientCpu}` : 'unpinned'),
  );
  const nodeArgs = cli.profile ? ['--cpu-prof', `--cpu-prof-dir=${cli.profile}`] : [];
  for (const def of serverDefs) {
    const s = await startServer({ name: def.name, file: fileURLToPath(new URL(def.file, import.meta.url)), pin, nodeArgs });
    started.push({ ...s, def, target: `127.0.0.1:${s.port}` });
    if (cli.profile) console.log(`  ${def.name}: pid ${s.pid} (its profile is ${cli.profile}/CPU.*.${s.pid}.*.cpuprofile)`);
  }

  // Correctness first: one call per server with each client, the exact reply.
  for (const s of started) {
    for (const kind of ['grpc-js', 'http2']) {
      const out = await client.send({ cmd: 'check', target: s.target, client: kind });
      if (out.error || !isDeepStrictEqual(out.reply, scenario.expect)) throw new Error(`Pre-check failed for ${s.def.name} (${kind} client): ${out.error ?? JSON.stringify(out.reply)}`);
    }
  }
  console.log(`Pre-check: ${started.length} servers answer ${JSON.stringify(scenario.expect)} to a grpc-js and a raw http2 call.`);

  const load = async (s, seconds) => {
    const cpuBefore = cpuSeconds(s.pid);
    const pressureBefore = cpuPressureUs();
    const r = await client.send({ cmd: 'run', target: s.target, client: clientKind, seconds, concurrency, connections });
    if (r.error) throw new Error(`load generator: ${r.error}`);
    return { ...r, cpu: cpuSeconds(s.pid) - cpuBefore, pressure: (cpuPressureUs() - pressureBefore) / 1e6 / r.seconds };
  };
  const warm = async (s, seconds) => {
    const r = await load(s, seconds);
    if (r.failed > 0) throw new Error(`${s.def.name}: ${r.failed} failed calls during the warm-up (${JSON.stringify(r.codes)})`);
  };
  for (const s of started) await warm(s, Math.max(2, warmup));

  const runs = [];
  for (let round = 0; round < cli.rounds; round++) {
    for (const s of rotate(started, round)) {
      await warm(s, warmup);
      const r = await load(s, cli.duration);
      runs.push({
        round,
        scenario: scenario.name,
        server: s.def.name,
        requests: r.calls,
        seconds: r.seconds,
        rps: r.calls / r.seconds,
        non2xx: r.failed,
        codes: r.codes,
        latencyMs: r.latencyMs,
        cpuSeconds: r.cpu,
        cpuUsPerRequest: (r.cpu / r.calls) * 1e6,
        serverBusy: r.cpu / r.seconds,
        wrkBusy: r.cpuSeconds / r.seconds,
        cpuPressure: r.pressure,
      });
      if (r.failed > 0) console.warn(`  round ${round + 1} ${s.def.name}: ${r.failed} failed calls ${JSON.stringify(r.codes)}`);
    }
    console.log(`round ${round + 1}/${cli.rounds} done (${Math.round((Date.now() - t0) / 1000)} s)`);
  }
  const memory = Object.fromEntries(started.map((s) => [s.def.name, { peakRssKiB: memoryKiB(s.pid, 'VmHWM'), rssKiB: memoryKiB(s.pid, 'VmRSS') }]));
  const plan = [{ scenario, servers: started }];
  const { targets } = printReport({ suite, plan, runs, memory, serverDefs, rounds: cli.rounds });
  const clientBusy = median(runs.map((r) => r.wrkBusy));
  if (clientBusy > 0.9) {
    console.log(`\nThe client was busy ${Math.round(100 * clientBusy)}% of its core: it may have been the bottleneck, which pulls calls/s ratios towards 1; CPU µs per call is unaffected.`);
  }
  if (cli.json) writeFileSync(cli.json, JSON.stringify({ node: process.version, rounds: cli.rounds, duration: cli.duration, warmup, concurrency, connections, client: clientKind, pin, runs, memory, targets }, null, 2));
  console.log(`\nSuite grpc: ${Math.round((Date.now() - t0) / 1000)} s.`);
}

function startClient() {
  return startGrpcLoadClient(pin);
}
