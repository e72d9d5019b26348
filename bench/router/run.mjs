// Router micro-benchmark: lookups per second on the GitHub-like route table, every route cycled
// with concrete paths, each router measured in turn round after round in this one process.
//   node router/run.mjs [--rounds 7] [--duration 0.5] [--only fw-trie,find-my-way] [--add FILE] [--json out.json]
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { applyOnly, parseCli } from '../lib/cli.mjs';
import { fixed, markdownTable, max, median, min, rotate } from '../lib/stats.mjs';
import { cpuPressureUs } from '../lib/proc.mjs';
import { referenceResolver } from './reference.mjs';
import { routers as builtIn } from './routers.mjs';

const usage = `Usage: node router/run.mjs [options]
  --rounds N       measured rounds per router and mode (default 7)
  --duration S     seconds per measurement (default 0.5)
  --only a,b       routers and/or modes to run (${builtIn.map((r) => r.name).join(', ')}; reused, sliced)
  --add FILE       also load the routers FILE exports as \`routers\` (same shape as routers.mjs; repeatable),
                   e.g. fw's matcher from another build, for a before/after in one run
  --json FILE      also write the raw results as JSON`;

const cli = parseCli({ usage, defaults: { rounds: 7, duration: 0.5 }, extra: { add: { type: 'string', multiple: true } } });
const allRouters = [...builtIn];
for (const file of cli.add ?? []) {
  const mod = await import(pathToFileURL(resolve(file)).href);
  if (!Array.isArray(mod.routers)) throw new TypeError(`--add ${file}: the module must export \`routers\`, an array like routers.mjs's`);
  allRouters.push(...mod.routers);
}

/** How the path reaches the router: the same string objects every cycle, or sliced from a URL per lookup as a server does. */
const allModes = [
  { name: 'reused', label: 'path strings reused every cycle' },
  { name: 'sliced', label: 'path sliced from the request URL on every lookup' },
];
const { routers, modes } = applyOnly(cli.only, { routers: allRouters, modes: allModes });

const table = JSON.parse(readFileSync(new URL('../data/github-routes.json', import.meta.url), 'utf8'));
const routes = table.routes;

// Concrete paths: every `:name` filled with a value no static segment uses.
const methods = [];
const paths = [];
const urls = [];
const expectedParams = [];
for (const [method, pattern] of routes) {
  const params = {};
  const path = pattern.replace(/:([A-Za-z0-9_]+)/g, (_, name) => (params[name] = `${name}-v${paths.length % 10}`));
  methods.push(method);
  paths.push(path);
  urls.push(`${path}?page=2`);
  expectedParams.push(params);
}

// 1. Correctness: every router resolves every path (and a few misses) exactly as the reference
// resolver for its documented rule does. Paths that several routes match are listed.
const reference = referenceResolver(routes);
const built = routers.map((r) => ({ ...r, ...r.build(routes) }));
let failures = 0;
const ambiguous = [];
for (let i = 0; i < routes.length; i++) {
  const ref = reference(methods[i], paths[i], 'registration');
  if (ref.candidates.length > 1) ambiguous.push(i);
}
for (const r of built) {
  for (let i = 0; i < routes.length; i++) {
    const want = reference(methods[i], paths[i], r.rule);
    const got = r.resolve(methods[i], paths[i]);
    const ok = got !== null && got.id === want.id && JSON.stringify(sortKeys(got.params)) === JSON.stringify(sortKeys(want.params));
    if (!ok) {
      failures++;
      if (failures <= 20) console.error(`MISMATCH ${r.name}: ${methods[i]} ${paths[i]} should be route ${want.id} (${routes[want.id][1]}) ${JSON.stringify(want.params)}, got ${got === null ? 'no match' : `route ${got.id} (${routes[got.id]?.[1]}) ${JSON.stringify(got.params)}`}`);
    }
  }
  for (const [method, path] of [['GET', '/no/such/route'], ['GET', '/repos/a/b/no-such-thing/x/y'], ['PROPFIND', '/events']]) {
    if (r.resolve(method, path) !== null) {
      failures++;
      console.error(`MISMATCH ${r.name}: ${method} ${path} should not match`);
    }
  }
}
if (failures > 0) {
  console.error(`${failures} routing mismatches: not measuring.`);
  process.exit(1);
}
console.log(`Correctness: ${routes.length} paths × ${built.length} routers resolve to the route and params their matching rule gives; misses miss.`);
let agreed = 0;
for (const i of ambiguous) {
  const picks = built.map((r) => ({ name: r.name, route: routes[r.resolve(methods[i], paths[i]).id][1] }));
  if (picks.every((p) => p.route === picks[0].route)) agreed++;
  else console.log(`  ${methods[i]} ${paths[i]} matches several routes; ${picks.map((p) => `${p.name} → ${p.route}`).join(', ')}`);
}
if (ambiguous.length > 0) console.log(`  (${ambiguous.length} paths match several routes; ${agreed} resolve alike everywhere, the others are listed above)`);

// 2. Timing. Each router/mode gets its own compiled loop, so no call site is shared between routers.
function makeLoop(mode) {
  const body =
    mode === 'reused'
      ? 'const r = lookup(methods[i], paths[i]);'
      : 'const u = urls[i]; const r = lookup(methods[i], u.slice(0, u.indexOf("?")));';
  // eslint-disable-next-line no-new-func
  return new Function(
    'lookup', 'methods', 'paths', 'urls', 'cycles',
    `let hits = 0; const n = methods.length;
     for (let c = 0; c < cycles; c++) for (let i = 0; i < n; i++) { ${body} if (r != null) hits++; }
     return hits;`,
  );
}

const runners = [];
for (const r of built) {
  for (const mode of modes) {
    const loop = makeLoop(mode.name);
    // Wall time, and this process's CPU time: on a shared machine the second leaves out the time
    // the process waited for a core, so it moves much less with other work.
    const measure = (cycles) => {
      const c0 = process.cpuUsage();
      const t0 = process.hrtime.bigint();
      const hits = loop(r.lookup, methods, paths, urls, cycles);
      const ns = Number(process.hrtime.bigint() - t0);
      const cpu = process.cpuUsage(c0);
      if (hits !== cycles * routes.length) throw new Error(`${r.name} missed ${cycles * routes.length - hits} lookups`);
      return { wall: ns / 1e9, cpu: (cpu.user + cpu.system) / 1e6 };
    };
    // Warm up (JIT) and calibrate the cycles that take about --duration seconds.
    let cycles = 10;
    let secs = measure(cycles).wall;
    while (secs < 0.2) {
      cycles *= 2;
      secs = measure(cycles).wall;
    }
    cycles = Math.max(1, Math.round((cycles * cli.duration) / secs));
    runners.push({ router: r, mode, measure, cycles, rates: [], cpuRates: [] });
  }
}

// Each round interleaves the routers in short slices, so background load on this shared machine
// hits them alike; a round's rate per router is its lookups over its summed time in that round.
const SLICES = 10;
const order = runners.map((_, i) => i);
const pressure0 = cpuPressureUs();
const timed0 = process.hrtime.bigint();
for (let round = 0; round < cli.rounds; round++) {
  const wall = runners.map(() => 0);
  const cpu = runners.map(() => 0);
  for (let s = 0; s < SLICES; s++) {
    for (const i of rotate(order, round + s)) {
      const t = runners[i].measure(Math.max(1, Math.round(runners[i].cycles / SLICES)));
      wall[i] += t.wall;
      cpu[i] += t.cpu;
    }
  }
  runners.forEach((x, i) => {
    const lookups = Math.max(1, Math.round(x.cycles / SLICES)) * SLICES * routes.length;
    x.rates.push(lookups / wall[i]);
    x.cpuRates.push(lookups / cpu[i]);
  });
  process.stdout.write(`round ${round + 1}/${cli.rounds} done\r`);
}
process.stdout.write('\n');
// The share of the timed rounds during which some task on the machine waited for a CPU.
const pressure = (cpuPressureUs() - pressure0) / (Number(process.hrtime.bigint() - timed0) / 1e3);

// 3. Report.
const results = [];
const spread = (values, scale = 1) => `${fixed(median(values) / scale)} (${fixed(min(values) / scale)}–${fixed(max(values) / scale)})`;
for (const mode of modes) {
  const inMode = runners.filter((x) => x.mode === mode);
  const base = inMode.find((x) => x.router.name === 'find-my-way');
  const rows = inMode.map((x) => {
    const ratios = base ? x.rates.map((v, k) => v / base.rates[k]) : [];
    const cpuRatios = base ? x.cpuRates.map((v, k) => v / base.cpuRates[k]) : [];
    const result = {
      mode: mode.name,
      router: x.router.name,
      label: x.router.label,
      medianLookupsPerSec: median(x.rates),
      minLookupsPerSec: min(x.rates),
      maxLookupsPerSec: max(x.rates),
      ratioToFindMyWay: base ? median(ratios) : NaN,
      ratioMin: base ? min(ratios) : NaN,
      ratioMax: base ? max(ratios) : NaN,
      medianLookupsPerCpuSec: median(x.cpuRates),
      cpuRatioToFindMyWay: base ? median(cpuRatios) : NaN,
      cpuRatioMin: base ? min(cpuRatios) : NaN,
      cpuRatioMax: base ? max(cpuRatios) : NaN,
      rates: x.rates,
      cpuRates: x.cpuRates,
    };
    results.push(result);
    return [
      x.router.label,
      spread(x.rates, 1e6),
      base ? spread(ratios) : '–',
      spread(x.cpuRates, 1e6),
      base ? spread(cpuRatios) : '–',
    ];
  });
  console.log(`\n### ${routes.length} routes, ${mode.label} (${cli.rounds} rounds × ${cli.duration} s, node ${process.version})\n`);
  console.log(
    markdownTable(
      ['router', 'M lookups/s: median (min–max)', '× find-my-way per round', 'M lookups per CPU s', '× find-my-way per round, CPU'],
      rows,
      'lrrrr',
    ),
  );
}
console.log(`\nCPU pressure during the timed rounds: ${Number.isFinite(pressure) ? `${Math.round(pressure * 100)}%` : 'not available (no /proc/pressure/cpu)'} (share of the time some task waited for a CPU; wall-clock rates drift with it, CPU-time rates much less).`);

if (results.some((r) => r.router === 'find-my-way')) {
  console.log('\nTarget "router lookups above find-my-way" (per-round ratio, median):');
  for (const r of results.filter((x) => x.router.startsWith('fw-'))) {
    console.log(`  ${r.label}, ${r.mode}: ${fixed(r.ratioToFindMyWay)}× (CPU time: ${fixed(r.cpuRatioToFindMyWay)}×) → ${r.ratioToFindMyWay > 1 && r.cpuRatioToFindMyWay > 1 ? 'met' : 'NOT met'}`);
  }
}
// What Router.findRoute adds to the matcher it wraps (method case, decoding, the result object),
// per round, for each fw build present (`fw-router` against `fw-trie`, `fw-router-x` against `fw-trie-x`).
const wrapped = runners.filter((x) => x.router.name.startsWith('fw-router'));
if (wrapped.some((x) => runners.some((y) => y.mode === x.mode && y.router.name === x.router.name.replace('fw-router', 'fw-trie')))) {
  console.log('\nTarget "Router.findRoute within 10% of the matcher" (findRoute ÷ TrieMatcher.match lookups/s per round: median (min–max)):');
  for (const x of wrapped) {
    const inner = runners.find((y) => y.mode === x.mode && y.router.name === x.router.name.replace('fw-router', 'fw-trie'));
    if (inner === undefined) continue;
    const ratios = x.rates.map((v, k) => v / inner.rates[k]);
    const cpuRatios = x.cpuRates.map((v, k) => v / inner.cpuRates[k]);
    const result = results.find((r) => r.router === x.router.name && r.mode === x.mode.name);
    Object.assign(result, {
      ratioToMatcher: median(ratios),
      ratioToMatcherMin: min(ratios),
      ratioToMatcherMax: max(ratios),
      cpuRatioToMatcher: median(cpuRatios),
      cpuRatioToMatcherMin: min(cpuRatios),
      cpuRatioToMatcherMax: max(cpuRatios),
    });
    const met = median(ratios) >= 0.9 && median(cpuRatios) >= 0.9;
    console.log(`  ${x.router.label}, ${x.mode.name}: ${spread(ratios)}; CPU time ${spread(cpuRatios)} → ${met ? 'met' : 'NOT met'}`);
  }
}
if (cli.json) writeFileSync(cli.json, JSON.stringify({ node: process.version, routes: routes.length, rounds: cli.rounds, duration: cli.duration, cpuPressure: pressure, results }, null, 2));

function sortKeys(obj) {
  return Object.fromEntries(Object.entries(obj).sort(([a], [b]) => a.localeCompare(b)));
}
