// Workers: throughput and CPU per request of the REST static route served by one process (the app
// listening itself) against `fw start --workers 1` and `--workers 2`, each loaded with wrk in turn;
// then a rolling restart (SIGHUP) of two workers under load, with the count of failed requests.
// CPU is the primary's and every worker's (/proc), per request. Servers are not pinned: two workers
// need both cores, so wrk shares them (the same for every configuration).
//   node workers/run.mjs [--rounds 3] [--duration 5] [--connections 50] [--json FILE]
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCli, positiveNumber } from '../lib/cli.mjs';
import { cpuSeconds, hasProc } from '../lib/proc.mjs';
import { ensureWrk } from '../lib/tools.mjs';
import { runWrk } from '../lib/wrk.mjs';

const usage = `Usage: node workers/run.mjs [options]
  --rounds N        measured rounds (default 3)
  --duration S      seconds of each measured wrk run (default 5)
  --warmup S        seconds of the wrk warm-up before each run (default 1)
  --connections N   wrk connections (default 50)
  --json FILE       also write every run as JSON`;
const cli = parseCli({ usage, defaults: { rounds: 3, duration: 5 }, extra: { warmup: { type: 'string' }, connections: { type: 'string' } } });
const warmup = positiveNumber('--warmup', cli.warmup, 1);
const connections = positiveNumber('--connections', cli.connections, 50);
const here = dirname(fileURLToPath(import.meta.url));
const APP = join(here, 'app.mjs');
const FW = join(dirname(createRequire(import.meta.url).resolve('@fw/app/package.json')), 'bin', 'fw.mjs');
const NO_PIN = { pinned: false };

/** The configurations: how to start each, printing where it serves. */
const configs = [
  { name: 'one process', args: [join(here, 'single.mjs')] },
  { name: 'fw start --workers 1', args: [FW, 'start', APP, '--workers', '1', '--host', '127.0.0.1'] },
  { name: 'fw start --workers 2', args: [FW, 'start', APP, '--workers', '2', '--host', '127.0.0.1'] },
];

async function startConfig(config, port) {
  const child = spawn(process.execPath, config.args, { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, NODE_ENV: 'production', PORT: String(port) } });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${config.name}: not serving after 30 s`)), 30_000);
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (/serving|"ready":true/.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`${config.name} exited with ${code}`)));
  });
  return {
    child,
    url: `http://127.0.0.1:${port}/hello`,
    /** CPU seconds of the process and its children (the workers) so far. */
    cpu: () => [child.pid, ...childrenOf(child.pid)].reduce((sum, pid) => sum + (cpuSeconds(pid) || 0), 0),
    async stop() {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

function childrenOf(pid) {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

async function main() {
  ensureWrk();
  if (!hasProc()) console.warn('no /proc: CPU per request is not measured');
  let port = 39_000 + Math.floor(Math.random() * 1000);
  const runs = [];
  for (let round = 1; round <= cli.rounds; round++) {
    for (const config of configs) {
      const server = await startConfig(config, port++);
      try {
        await runWrk({ url: server.url, duration: warmup, connections, threads: 1, pin: NO_PIN });
        const before = server.cpu();
        const result = await runWrk({ url: server.url, duration: cli.duration, connections, threads: 1, pin: NO_PIN });
        const cpu = server.cpu() - before;
        runs.push({ round, config: config.name, rps: result.rps, requests: result.requests, cpuUsPerRequest: (cpu / result.requests) * 1e6, errors: result.non2xx + result.socketErrors });
        console.log(`round ${round}  ${config.name.padEnd(22)} ${result.rps.toFixed(0).padStart(7)} req/s  ${((cpu / result.requests) * 1e6).toFixed(1).padStart(6)} µs CPU/req  errors ${result.non2xx + result.socketErrors}`);
      } finally {
        await server.stop();
      }
    }
  }
  // A rolling restart of two workers under load: every request must succeed.
  const rolling = await startConfig(configs[2], port++);
  let restart;
  try {
    const load = runWrk({ url: rolling.url, duration: Math.max(cli.duration, 3), connections, threads: 1, pin: NO_PIN });
    setTimeout(() => rolling.child.kill('SIGHUP'), 500);
    restart = await load;
  } finally {
    await rolling.stop();
  }
  const failed = restart.non2xx + restart.socketErrors;
  console.log(`\nrolling restart (SIGHUP, 2 workers) under load: ${restart.requests} requests, ${failed} failed (goal: 0)`);
  console.log('\nmedian of the rounds:');
  for (const config of configs) {
    const mine = runs.filter((r) => r.config === config.name);
    const median = (key) => mine.map((r) => r[key]).sort((a, b) => a - b)[Math.floor(mine.length / 2)];
    console.log(`  ${config.name.padEnd(22)} ${median('rps').toFixed(0).padStart(7)} req/s  ${median('cpuUsPerRequest').toFixed(1).padStart(6)} µs CPU/req`);
  }
  if (cli.json) writeFileSync(cli.json, JSON.stringify({ runs, rollingRestart: { requests: restart.requests, failed } }, null, 2));
  if (failed > 0) process.exitCode = 1;
}

await main();
