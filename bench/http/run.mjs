// HTTP throughput suites: every server of a suite started once (own process, NODE_ENV=production,
// pinned to one core), wrk pinned to the other; servers loaded in turn, round after round, with a
// warm-up before each run. Reports req/s, per-round ratios, server CPU time per request
// (/proc/<pid>/stat), overheads against each framework's bare run, peak RSS and the issue's targets.
//   node http/run.mjs [--suite core|middleware|validation|graphql|tracing|all] [--rounds 3] [--duration 2] ...
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { applyOnly, parseCli, positiveNumber } from '../lib/cli.mjs';
import { childrenCpuSeconds, cpuPressureUs, cpuSeconds, hasProc, memoryKiB } from '../lib/proc.mjs';
import { startServer } from '../lib/server-process.mjs';
import { rotate } from '../lib/stats.mjs';
import { ensureWrk, pinning } from '../lib/tools.mjs';
import { cleanupWrk, runWrk } from '../lib/wrk.mjs';
import { printReport } from './report.mjs';
import { scenarios as allScenarios } from './scenarios.mjs';
import { servers as allServers } from './servers.mjs';
import { suites as allSuites } from './suites.mjs';

const usage = `Usage: node http/run.mjs [options]
  --suite a,b       suites to run, one after the other (default core; "all" runs every one):
${allSuites.map((s) => `                      ${s.name.padEnd(11)} issue ${s.issue}: ${s.title}`).join('\n')}
  --rounds N        measured rounds (default 3); every server runs every scenario of the suite once per round
  --duration S      seconds of each measured wrk run (default: the suite's, 2 for core, 3 otherwise)
  --warmup S        seconds of the wrk warm-up before each measured run (default 1)
  --connections N   wrk connections (default 50)
  --threads N       wrk threads (default 1)
  --server-cpu N    core the servers are pinned to (default 1)
  --client-cpu N    core wrk is pinned to (default 0)
  --only a,b        servers and/or scenarios of the suite to run (servers: ${allServers.map((s) => s.name).join(', ')};
                    scenarios: ${allScenarios.map((s) => s.name).join(', ')}); keep the references for the ratios
  --add name=FILE   also load the server in FILE (repeatable), e.g. an experimental build of fw;
                    FILE prints {"ready":true,"port":N,"scenarios":[...]} like servers/*.mjs
  --profile DIR     start the servers with --cpu-prof, profiles written to DIR when they stop
  --json FILE       also write every run as JSON`;

const cli = parseCli({
  usage,
  defaults: { rounds: 3, duration: NaN },
  extra: {
    suite: { type: 'string' },
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
const connections = positiveNumber('--connections', cli.connections, 50);
const threads = positiveNumber('--threads', cli.threads, 1);
const suiteNames = (cli.suite ?? 'core').split(',').map((s) => s.trim()).filter(Boolean);
const chosenSuites = suiteNames.includes('all') ? allSuites : suiteNames.map((name) => {
  const suite = allSuites.find((s) => s.name === name);
  if (!suite) throw new Error(`--suite: unknown suite "${name}"; known: ${allSuites.map((s) => s.name).join(', ')}, all (gRPC: node grpc/run.mjs)`);
  return suite;
});
// wrk takes whole seconds only.
const durationOf = (suite) => (Number.isNaN(cli.duration) ? suite.defaults?.duration ?? 3 : cli.duration);
for (const [flag, v] of [['--duration', Number.isNaN(cli.duration) ? 1 : cli.duration], ['--warmup', warmup]]) {
  if (!Number.isInteger(v)) throw new TypeError(`${flag} must be a whole number of seconds (wrk's unit), got ${v}`);
}
const added = (cli.add ?? []).map((spec) => {
  const eq = spec.indexOf('=');
  if (eq < 1) throw new TypeError(`--add expects name=FILE, got "${spec}"`);
  return { name: spec.slice(0, eq), label: spec.slice(0, eq), file: pathToFileURL(resolve(spec.slice(eq + 1))).href };
});

ensureWrk();
const pin = pinning({ serverCpu: cli['server-cpu'] ?? 1, clientCpu: cli['client-cpu'] ?? 0 });
if (!pin.pinned) console.warn(`WARNING: not pinning (${pin.why}); ratios will be less reliable.`);
if (!hasProc()) console.warn('WARNING: no /proc: CPU time per request and peak RSS are not reported.');

let started = [];
const stopAll = async () => {
  await Promise.all(started.map((s) => s.stop()));
  started = [];
};
process.on('SIGINT', () => stopAll().then(() => { cleanupWrk(); process.exit(130); }));

const results = {};
try {
  for (const suite of chosenSuites) {
    try {
      results[suite.name] = await runSuite(suite);
    } finally {
      await stopAll();
    }
  }
} finally {
  cleanupWrk();
}
if (cli.json) writeFileSync(cli.json, JSON.stringify({ node: process.version, warmup, connections, threads, pin, suites: results }, null, 2));

async function runSuite(suite) {
  const t0 = Date.now();
  const duration = durationOf(suite);
  const suiteServers = [...suite.servers.map((name) => allServers.find((s) => s.name === name)), ...added];
  const suiteScenarios = suite.scenarios.map((name) => allScenarios.find((s) => s.name === name));
  const { servers: serverDefs, scenarios } = applyOnly(cli.only, { servers: suiteServers, scenarios: suiteScenarios }, { ignoreUnknown: chosenSuites.length > 1 });
  console.log(`\n# Suite ${suite.name} (issue ${suite.issue}): ${suite.title}\n`);
  console.log(
    `node ${process.version}; wrk -t${threads} -c${connections}; ${cli.rounds} rounds × (${warmup} s warm-up + ${duration} s); ` +
      (pin.pinned ? `servers on CPU ${pin.serverCpu}, wrk on CPU ${pin.clientCpu}` : 'unpinned'),
  );

  // 1. Start every server once.
  const nodeArgs = cli.profile ? ['--cpu-prof', `--cpu-prof-dir=${cli.profile}`] : [];
  for (const def of serverDefs) {
    const file = fileURLToPath(new URL(def.file, import.meta.url));
    const s = await startServer({ name: def.name, file, pin, nodeArgs });
    started.push({ ...s, def });
    if (cli.profile) console.log(`  ${def.name}: pid ${s.pid} (its profile is ${cli.profile}/CPU.*.${s.pid}.*.cpuprofile)`);
  }

  // 2. Correctness: each scenario once per server (status, content type, JSON body, headers, refusals).
  const plan = [];
  for (const sc of scenarios) {
    const serving = started.filter((s) => s.scenarios.has(sc.name));
    for (const s of serving) await check(s, sc);
    plan.push({ scenario: sc, servers: serving });
  }
  console.log(`Pre-check: ${plan.reduce((n, p) => n + p.servers.length, 0)} scenario × server pairs answer the expected status, body and headers.`);

  // 3. First warm-up (JIT) of every pair, then the same check again: a server may answer
  // differently once a document is cached or compiled (Mercurius' graphql-jit tier does), and wrk
  // only counts statuses, not bodies. Then the measured rounds.
  for (const { scenario, servers } of plan) {
    for (const s of servers) await warm(s, scenario, Math.max(2, warmup));
  }
  for (const { scenario, servers } of plan) {
    for (const s of servers) await check(s, scenario, 'Check after the warm-up');
  }
  console.log('Checked again after the warm-up: the same answers.');
  const runs = [];
  for (let round = 0; round < cli.rounds; round++) {
    for (const { scenario, servers } of plan) {
      for (const s of rotate(servers, round)) {
        await warm(s, scenario, warmup);
        const cpuBefore = cpuSeconds(s.pid);
        const wrkBefore = childrenCpuSeconds();
        const pressureBefore = cpuPressureUs();
        const r = await load(s, scenario, duration);
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

  const { targets } = printReport({ suite, plan, runs, memory, serverDefs, rounds: cli.rounds });
  console.log(`\nSuite ${suite.name}: ${Math.round((Date.now() - t0) / 1000)} s.`);
  return { issue: suite.issue, rounds: cli.rounds, duration, runs, memory, targets };
}

async function send(server, { method = 'GET', path, headers, body }) {
  const payload = body === undefined || typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body);
  const res = await fetch(server.baseUrl + path, { method, headers, body: payload });
  const bytes = Buffer.from(await res.arrayBuffer());
  return { res, text: bytes.toString('utf8'), bytes };
}

async function check(server, scenario, phase = 'Pre-check') {
  const { method = 'GET', path } = scenario.request;
  const { res, text, bytes } = await send(server, scenario.request);
  const problems = [];
  if (scenario.expect.bodyHex !== undefined && bytes.toString('hex') !== scenario.expect.bodyHex) problems.push(`body ${bytes.toString('hex').slice(0, 200)} (hex), expected ${scenario.expect.bodyHex}`);
  if (res.status !== scenario.expect.status) problems.push(`status ${res.status}, expected ${scenario.expect.status}`);
  if (scenario.expect.json !== undefined) {
    if (!/^application\/json/.test(res.headers.get('content-type') ?? '')) problems.push(`content-type "${res.headers.get('content-type')}"`);
    let parsed;
    try {
      parsed = JSON.parse(text);
    } catch {
      problems.push(`body is not JSON: ${text.slice(0, 100)}`);
    }
    if (parsed !== undefined && !isDeepStrictEqual(parsed, scenario.expect.json)) problems.push(`body ${text.slice(0, 200)}, expected ${JSON.stringify(scenario.expect.json)}`);
  }
  for (const [name, want] of Object.entries(scenario.expect.headers ?? {})) {
    const got = res.headers.get(name);
    if (want === true ? got === null : got !== want) problems.push(`header ${name}: ${got === null ? 'missing' : `"${got}"`}${want === true ? '' : `, expected "${want}"`}`);
  }
  if (scenario.invalid) {
    const bad = await send(server, scenario.invalid.request);
    if (bad.res.status !== scenario.invalid.status) problems.push(`an invalid request got ${bad.res.status}, expected ${scenario.invalid.status}: ${bad.text.slice(0, 100)}`);
  }
  if (problems.length > 0) throw new Error(`${phase} failed for ${server.def.name} / ${scenario.name} (${method} ${path}): ${problems.join('; ')}`);
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
