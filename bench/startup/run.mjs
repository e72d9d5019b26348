// Start-up benchmark: each run is a fresh `node startup/child.mjs <case>` (NODE_ENV=production,
// pinned to one core); the cases take turns, round after round (the order rotates), after one
// discarded round that fills the file cache. Reported per case: medians (min–max) of the time to
// import and to create the app, their sum and its per-round ratio to @fw/core, RSS after create and
// its per-round ratio to @fw/core, the CPU time of import + create and its per-round ratio, then
// listen(0) time and RSS after it (tracing starts its SDK there), and the time node took before
// user code ran. `--baseline DIR` also runs every case from another copy of this directory (with
// its own node_modules, e.g. an earlier build of @fw/app), in the same rounds, for a before/after.
//   node startup/run.mjs [--rounds 20] [--only core,app-rest,...] [--cpu 1] [--baseline DIR] [--json FILE]
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { applyOnly, parseCli } from '../lib/cli.mjs';
import { fixed, markdownTable, max, median, min, rotate } from '../lib/stats.mjs';
import { pinned, pinning } from '../lib/tools.mjs';
import { fmtRatio } from '../http/report.mjs';
import { cases as allCases } from './cases.mjs';

const usage = `Usage: node startup/run.mjs [options]
  --rounds N   measured rounds; every case starts once per round in a fresh process (default 20)
  --only a,b   cases to run (${allCases.map((c) => c.name).join(', ')}); keep core for the ratios
  --cpu N      core the processes are pinned to (default 1)
  --baseline DIR  also run every case (but node) from DIR/startup/child.mjs, a copy of this
               benchmark whose node_modules hold another build (shown as "<case> (baseline)")
  --json FILE  also write every run as JSON`;

const cli = parseCli({ usage, defaults: { rounds: 20, duration: 1 }, extra: { cpu: { type: 'string' }, baseline: { type: 'string' } } });
const CHILD = fileURLToPath(new URL('./child.mjs', import.meta.url));
const picked = applyOnly(cli.only, { cases: allCases }).cases.map((c) => ({ ...c, child: CHILD }));
let baselineChild;
if (cli.baseline !== undefined) {
  baselineChild = resolve(cli.baseline, 'startup', 'child.mjs');
  if (!existsSync(baselineChild)) throw new Error(`--baseline: ${baselineChild} does not exist`);
}
const cases = baselineChild === undefined
  ? picked
  : [...picked, ...picked.filter((c) => c.name !== 'node').map((c) => ({ ...c, name: `${c.name}@baseline`, label: `${c.label} (baseline)`, arg: c.name, child: baselineChild }))];
const pin = pinning({ serverCpu: cli.cpu ?? 1, clientCpu: 0 });

function runOnce({ name, arg = name, child: childPath }) {
  const [cmd, args] = pinned(pin, 'server', process.execPath, [childPath, arg]);
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, NODE_ENV: 'production' } });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.once('error', reject);
    child.once('exit', (code) => {
      const line = out.split('\n').reverse().find((l) => l.startsWith('{"startup":true'));
      if (code !== 0 || !line) reject(new Error(`${name}: exited with code ${code}${line ? '' : ', no result line'}:\n${out}`));
      else resolve(JSON.parse(line));
    });
  });
}

console.log(`\n# Start-up: import + create, in a fresh process per run\n`);
console.log(`node ${process.version}; ${cli.rounds} rounds × ${cases.length} cases; ${pin.pinned ? `pinned to CPU ${pin.serverCpu}` : `unpinned (${pin.why})`}; NODE_ENV=production${baselineChild ? `; baseline: ${baselineChild}` : ''}`);
const t0 = Date.now();
for (const c of cases) await runOnce(c); // file cache, discarded
const runs = [];
for (let round = 0; round < cli.rounds; round++) {
  for (const c of rotate(cases, round)) runs.push({ round, case: c.name, ...(await runOnce(c)) });
}
console.log(`${runs.length} runs in ${Math.round((Date.now() - t0) / 1000)} s.\n`);

for (const r of runs) r.totalMs = r.importMs + r.createMs;
const of = (name, field) => runs.filter((r) => r.case === name).map((r) => r[field]);
// Per round: this case's figure ÷ @fw/core's in the same round.
const perRound = (name, field) =>
  [...Array(cli.rounds).keys()]
    .map((k) => {
      const x = runs.find((r) => r.round === k && r.case === name);
      const y = runs.find((r) => r.round === k && r.case === 'core');
      return x && y ? x[field] / y[field] : NaN;
    })
    .filter(Number.isFinite);
const ms = (xs) => `${fixed(median(xs), 1)} (${fixed(min(xs), 1)}–${fixed(max(xs), 1)})`;
const mib = (xs) => fixed(median(xs) / 1024, 1);
const hasCore = cases.some((c) => c.name === 'core');

const rows = cases.map((c) => [
  c.label,
  ms(of(c.name, 'importMs')),
  ms(of(c.name, 'createMs')),
  ms(of(c.name, 'totalMs')),
  ...(hasCore ? [fmtRatio(perRound(c.name, 'totalMs'))] : []),
  mib(of(c.name, 'rssKiB')),
  ...(hasCore ? [fmtRatio(perRound(c.name, 'rssKiB'))] : []),
  ms(of(c.name, 'cpuMs')),
  ...(hasCore ? [fmtRatio(perRound(c.name, 'cpuMs'))] : []),
  mib(of(c.name, 'heapKiB')),
  ms(of(c.name, 'listenMs')),
  mib(of(c.name, 'rssListenKiB')),
  fixed(median(of(c.name, 'bootMs')), 1),
]);
const header = [
  'case',
  'import ms',
  'create ms',
  'import + create ms',
  ...(hasCore ? ['× @fw/core'] : []),
  'RSS after create MiB',
  ...(hasCore ? ['RSS × @fw/core'] : []),
  'CPU ms (import + create)',
  ...(hasCore ? ['CPU × @fw/core'] : []),
  'heap used MiB',
  'listen(0) ms',
  'RSS after listen MiB',
  'node boot ms',
];
console.log('Medians (min–max) over the rounds; ratios per round, then the median (min–max).\n');
console.log(markdownTable(header, rows, `l${'r'.repeat(header.length - 1)}`));
if (cli.json) writeFileSync(cli.json, JSON.stringify({ node: process.version, pin, rounds: cli.rounds, baseline: baselineChild ?? null, runs }, null, 2));
