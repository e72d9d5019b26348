// REST throughput: every server started once (own process, NODE_ENV=production, pinned to one
// core), wrk pinned to the other; servers loaded in turn, round after round, with a warm-up
// before each run. Reports req/s, per-round ratios to raw node:http and Fastify, server CPU time
// per request (/proc/<pid>/stat) and peak RSS.
//   node http/run.mjs [--rounds 5] [--duration 2] [--warmup 1] [--only fw,raw,static] [--json out.json]
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { applyOnly, parseCli, positiveNumber } from '../lib/cli.mjs';
import { childrenCpuSeconds, cpuPressureUs, cpuSeconds, hasProc, memoryKiB } from '../lib/proc.mjs';
import { startServer } from '../lib/server-process.mjs';
import { fixed, int, markdownTable, max, median, min, rotate } from '../lib/stats.mjs';
import { ensureWrk, pinning } from '../lib/tools.mjs';
import { cleanupWrk, runWrk } from '../lib/wrk.mjs';
import { scenarios as allScenarios } from './scenarios.mjs';
import { servers as allServers } from './servers.mjs';

const usage = `Usage: node http/run.mjs [options]
  --rounds N        measured rounds (default 5); every server runs every scenario once per round
  --duration S      seconds of each measured wrk run (default 2)
  --warmup S        seconds of the wrk warm-up before each measured run (default 1)
  --connections N   wrk connections (default 50)
  --threads N       wrk threads (default 1)
  --server-cpu N    core the servers are pinned to (default 1)
  --client-cpu N    core wrk is pinned to (default 0)
  --only a,b        servers and/or scenarios to run (servers: ${allServers.map((s) => s.name).join(', ')};
                    scenarios: ${allScenarios.map((s) => s.name).join(', ')}); keep raw and fastify for the ratios
  --add name=FILE   also load the server in FILE (repeatable), e.g. an experimental build of fw;
                    FILE prints {"ready":true,"port":N,"scenarios":[...]} like servers/*.mjs
  --profile DIR     start the servers with --cpu-prof, profiles written to DIR when they stop
  --json FILE       also write every run as JSON`;

const cli = parseCli({
  usage,
  defaults: { rounds: 5, duration: 2 },
  extra: {
    warmup: { type: 'string' },
    connections: { type: 'string' },
    threads: { type: 'string' },
    'server-cpu': { type: 'string' },
    'client-cpu': { type: 'string' },
    profile: { type: 'string' },
    add: { type: 'string', multiple: true },
  },
});
const warmup = positiveNumber('--warmup', cli.warmup, 1);
// wrk takes whole seconds only.
for (const [flag, v] of [['--duration', cli.duration], ['--warmup', warmup]]) {
  if (!Number.isInteger(v)) throw new TypeError(`${flag} must be a whole number of seconds (wrk's unit), got ${v}`);
}
const connections = positiveNumber('--connections', cli.connections, 50);
const threads = positiveNumber('--threads', cli.threads, 1);
const added = (cli.add ?? []).map((spec) => {
  const eq = spec.indexOf('=');
  if (eq < 1) throw new TypeError(`--add expects name=FILE, got "${spec}"`);
  return { name: spec.slice(0, eq), label: spec.slice(0, eq), file: pathToFileURL(resolve(spec.slice(eq + 1))).href };
});
const { servers: serverDefs, scenarios } = applyOnly(cli.only, { servers: [...allServers, ...added], scenarios: allScenarios });

ensureWrk();
const pin = pinning({ serverCpu: cli['server-cpu'] ?? 1, clientCpu: cli['client-cpu'] ?? 0 });
if (!pin.pinned) console.warn(`WARNING: not pinning (${pin.why}); ratios will be less reliable.`);
if (!hasProc()) console.warn('WARNING: no /proc: CPU time per request and peak RSS are not reported.');

const started = [];
const cleanup = async () => {
  await Promise.all(started.map((s) => s.stop()));
  cleanupWrk();
};
process.on('SIGINT', () => cleanup().then(() => process.exit(130)));

try {
  await main();
} finally {
  await cleanup();
}

async function main() {
  const t0 = Date.now();
  console.log(
    `node ${process.version}; wrk -t${threads} -c${connections}; ${cli.rounds} rounds × (${warmup} s warm-up + ${cli.duration} s); ` +
      (pin.pinned ? `servers on CPU ${pin.serverCpu}, wrk on CPU ${pin.clientCpu}` : 'unpinned'),
  );

  // 1. Start every server once.
  const nodeArgs = cli.profile ? ['--cpu-prof', `--cpu-prof-dir=${cli.profile}`] : [];
  for (const def of serverDefs) {
    const file = fileURLToPath(new URL(def.file, import.meta.url));
    const s = await startServer({ name: def.name, file, pin, nodeArgs });
    started.push({ ...s, def });
  }

  // 2. Correctness: each scenario once per server (status, content type, JSON body).
  const plan = [];
  for (const sc of scenarios) {
    const serving = started.filter((s) => s.scenarios.has(sc.name));
    for (const s of serving) await check(s, sc);
    plan.push({ scenario: sc, servers: serving });
  }
  console.log(`Pre-check: ${plan.reduce((n, p) => n + p.servers.length, 0)} scenario × server pairs answer the expected status and body.`);

  // 3. First warm-up (JIT) of every pair, then the measured rounds.
  for (const { scenario, servers } of plan) {
    for (const s of servers) await warm(s, scenario, Math.max(2, warmup));
  }
  const runs = [];
  for (let round = 0; round < cli.rounds; round++) {
    for (const { scenario, servers } of plan) {
      for (const s of rotate(servers, round)) {
        await warm(s, scenario, warmup);
        const cpuBefore = cpuSeconds(s.pid);
        const wrkBefore = childrenCpuSeconds();
        const pressureBefore = cpuPressureUs();
        const r = await load(s, scenario, cli.duration);
        const pressure = (cpuPressureUs() - pressureBefore) / 1e6 / r.seconds;
        const cpu = cpuSeconds(s.pid) - cpuBefore;
        const wrkCpu = childrenCpuSeconds() - wrkBefore;
        runs.push({
          round,
          scenario: scenario.name,
          server: s.def.name,
          ...r,
          cpuSeconds: cpu,
          cpuUsPerRequest: (cpu / r.requests) * 1e6,
          // Busy share of one core: near 100% means the server was the bottleneck.
          serverBusy: cpu / r.seconds,
          wrkBusy: wrkCpu / r.seconds,
          // Share of the run during which some task on the machine waited for a CPU (PSI).
          cpuPressure: pressure,
        });
        if (r.non2xx > 0 || r.socketErrors > 0) console.warn(`  round ${round + 1} ${s.def.name} ${scenario.name}: ${r.non2xx} non-2xx, ${r.socketErrors} socket errors`);
      }
    }
    console.log(`round ${round + 1}/${cli.rounds} done (${Math.round((Date.now() - t0) / 1000)} s)`);
  }
  const memory = Object.fromEntries(started.map((s) => [s.def.name, { peakRssKiB: memoryKiB(s.pid, 'VmHWM'), rssKiB: memoryKiB(s.pid, 'VmRSS') }]));

  report(plan, runs, memory);
  if (cli.json) {
    writeFileSync(cli.json, JSON.stringify({ node: process.version, rounds: cli.rounds, duration: cli.duration, warmup, connections, threads, pin, runs, memory }, null, 2));
  }
  console.log(`\nTotal ${Math.round((Date.now() - t0) / 1000)} s.`);
}

async function check(server, scenario) {
  const { method = 'GET', path, headers, body } = scenario.request;
  const res = await fetch(server.baseUrl + path, { method, headers, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await res.text();
  const problems = [];
  if (res.status !== scenario.expect.status) problems.push(`status ${res.status}, expected ${scenario.expect.status}`);
  if (scenario.expect.json !== undefined) {
    if (!/^application\/json/.test(res.headers.get('content-type') ?? '')) problems.push(`content-type "${res.headers.get('content-type')}"`);
    let parsed;
    try {
      parsed = JSON.parse(text);
    } catch {
      problems.push(`body is not JSON: ${text.slice(0, 100)}`);
    }
    if (parsed !== undefined && !isDeepStrictEqual(parsed, scenario.expect.json)) problems.push(`body ${text.slice(0, 100)}, expected ${JSON.stringify(scenario.expect.json)}`);
  }
  if (problems.length > 0) throw new Error(`Pre-check failed for ${server.def.name} / ${scenario.name} (${method} ${path}): ${problems.join('; ')}`);
}

/** A warm-up run: its numbers are dropped, but failed answers still stop the benchmark. */
async function warm(server, scenario, duration) {
  const r = await load(server, scenario, duration);
  if (r.non2xx > 0 || r.socketErrors > 0) {
    throw new Error(`${server.def.name} / ${scenario.name}: ${r.non2xx} non-2xx answers and ${r.socketErrors} socket errors during the warm-up`);
  }
}

function load(server, scenario, duration) {
  return runWrk({ url: server.baseUrl + scenario.request.path, request: scenario.request, duration, connections, threads, pin });
}

function report(plan, runs, memory) {
  const rounds = [...new Set(runs.map((r) => r.round))];
  const get = (scenario, server) => rounds.map((k) => runs.find((r) => r.round === k && r.scenario === scenario && r.server === server));
  const ratioSeries = (scenario, server, refServer, refScenario = scenario) => {
    if (refServer === undefined) return [];
    const a = get(scenario, server);
    const b = get(refScenario, refServer);
    return rounds.map((_, i) => (a[i] && b[i] ? a[i].rps / b[i].rps : NaN)).filter(Number.isFinite);
  };
  const fmtRatio = (xs) => (xs.length === 0 ? '–' : `${fixed(median(xs))} (${fixed(min(xs))}–${fixed(max(xs))})`);
  const raw = serverDefs.find((s) => s.role === 'raw')?.name;
  const fastify = serverDefs.find((s) => s.role === 'fastify')?.name;
  const summary = {};

  console.log(`\n## Results (${cli.rounds} rounds; ratios are per round, then the median, with min–max)\n`);
  for (const { scenario, servers } of plan) {
    const rows = [];
    for (const s of servers) {
      const series = get(scenario.name, s.def.name);
      const rps = series.map((r) => r.rps);
      const cpu = series.map((r) => r.cpuUsPerRequest);
      const toRaw = ratioSeries(scenario.name, s.def.name, raw);
      const toFastify = ratioSeries(scenario.name, s.def.name, fastify);
      const cpuToRaw = raw ? rounds.map((k, i) => cpu[i] / get(scenario.name, raw)[i]?.cpuUsPerRequest).filter(Number.isFinite) : [];
      const bad = series.reduce((n, r) => n + r.non2xx, 0);
      const sockErr = series.reduce((n, r) => n + r.socketErrors, 0);
      summary[`${scenario.name}/${s.def.name}`] = { rps: median(rps), toRaw: median(toRaw), toFastify: median(toFastify), cpuUs: median(cpu) };
      rows.push([
        s.def.label,
        int(median(rps)),
        `${int(min(rps))}–${int(max(rps))}`,
        fmtRatio(toRaw),
        fmtRatio(toFastify),
        `${fixed(median(cpu), 1)} (${fixed(min(cpu), 1)}–${fixed(max(cpu), 1)})`,
        cpuToRaw.length ? fixed(median(cpuToRaw)) : '–',
        `${Math.round(100 * median(series.map((r) => r.serverBusy)))}% / ${Math.round(100 * median(series.map((r) => r.wrkBusy)))}%`,
        `${fixed(median(series.map((r) => r.latencyMs.p99)), 2)}`,
        `${bad} / ${sockErr}`,
      ]);
    }
    console.log(`### ${scenario.label}\n`);
    console.log(
      markdownTable(
        ['server', 'req/s median', 'req/s min–max', '× raw node:http', '× Fastify', 'CPU µs/req median (min–max)', 'CPU/req × raw', 'server / wrk busy', 'p99 ms', 'non-2xx / socket errors'],
        rows,
        'lrrrrrrrrr',
      ),
    );
    console.log('');
  }

  const pressures = runs.map((r) => r.cpuPressure).filter(Number.isFinite);
  if (pressures.length > 0) {
    console.log(
      `CPU pressure (share of each run's time some task waited for a CPU, /proc/pressure/cpu): median ${Math.round(100 * median(pressures))}%, ` +
        `min–max ${Math.round(100 * min(pressures))}–${Math.round(100 * max(pressures))}%. Near 0% the machine was quiet; well above it, ` +
        'other processes shared the cores and req/s says more about them than about the servers (CPU µs/req holds up better).\n',
    );
  }
  console.log('### Peak RSS after the runs (VmHWM)\n');
  console.log(markdownTable(['server', 'peak RSS MiB', 'RSS now MiB'], serverDefs.map((s) => [s.label, fixed(memory[s.name].peakRssKiB / 1024, 1), fixed(memory[s.name].rssKiB / 1024, 1)]), 'lrr'));

  // The targets for fw.
  const fw = serverDefs.find((s) => s.name === 'fw');
  if (!fw) return;
  console.log('\n### Targets (fw)\n');
  const verdict = (ok) => (ok ? 'met' : 'NOT met');
  const lines = [];
  if (summary['static/fw'] && raw) {
    const x = ratioSeries('static', 'fw', raw);
    const cpu = rounds.map((k) => get('static', 'fw')[k]?.cpuUsPerRequest / get('static', raw)[k]?.cpuUsPerRequest).filter(Number.isFinite);
    lines.push(`static JSON ≥ 0.9× raw node:http: ${fmtRatio(x)} → ${verdict(median(x) >= 0.9)}; CPU/req × raw ${fmtRatio(cpu)}`);
  }
  if (summary['static/fw'] && fastify) {
    const x = ratioSeries('static', 'fw', fastify);
    lines.push(`static JSON ≥ 1.2× Fastify: ${fmtRatio(x)} → ${verdict(median(x) >= 1.2)}`);
  }
  for (const sc of scenarios.filter((s) => s.sameAs && summary[`${s.name}/fw`] && summary[`${s.sameAs}/fw`])) {
    const x = ratioSeries(sc.name, 'fw', 'fw', sc.sameAs);
    const cpu = rounds.map((k) => get(sc.name, 'fw')[k]?.cpuUsPerRequest / get(sc.sameAs, 'fw')[k]?.cpuUsPerRequest).filter(Number.isFinite);
    lines.push(`${sc.name} within 10% of ${sc.sameAs} (req/s ratio ≥ 0.9): ${fmtRatio(x)} → ${verdict(median(x) >= 0.9)}; CPU/req ratio ${fmtRatio(cpu)}`);
  }
  for (const l of lines) console.log(`- ${l}`);
}
