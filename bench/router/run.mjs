// Router micro-benchmark: lookups per second on the GitHub-like route table, every route cycled
// with concrete paths, each router measured in turn round after round in this one process.
//   node router/run.mjs [--rounds 7] [--duration 0.5] [--only fw-trie,find-my-way] [--json out.json]
import { readFileSync, writeFileSync } from 'node:fs';
import { applyOnly, parseCli } from '../lib/cli.mjs';
import { fixed, markdownTable, max, median, min, rotate } from '../lib/stats.mjs';
import { referenceResolver } from './reference.mjs';
import { routers as allRouters } from './routers.mjs';

const usage = `Usage: node router/run.mjs [options]
  --rounds N       measured rounds per router and mode (default 7)
  --duration S     seconds per measurement (default 0.5)
  --only a,b       routers and/or modes to run (${allRouters.map((r) => r.name).join(', ')}; reused, sliced)
  --json FILE      also write the raw results as JSON`;

const cli = parseCli({ usage, defaults: { rounds: 7, duration: 0.5 } });

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
    const measure = (cycles) => {
      const t0 = process.hrtime.bigint();
      const hits = loop(r.lookup, methods, paths, urls, cycles);
      const ns = Number(process.hrtime.bigint() - t0);
      if (hits !== cycles * routes.length) throw new Error(`${r.name} missed ${cycles * routes.length - hits} lookups`);
      return ns / 1e9;
    };
    // Warm up (JIT) and calibrate the cycles that take about --duration seconds.
    let cycles = 10;
    let secs = measure(cycles);
    while (secs < 0.2) {
      cycles *= 2;
      secs = measure(cycles);
    }
    cycles = Math.max(1, Math.round((cycles * cli.duration) / secs));
    runners.push({ router: r, mode, measure, cycles, rates: [] });
  }
}

// Each round interleaves the routers in short slices, so background load on this shared machine
// hits them alike; a round's rate per router is its lookups over its summed time in that round.
const SLICES = 10;
const order = runners.map((_, i) => i);
for (let round = 0; round < cli.rounds; round++) {
  const secs = runners.map(() => 0);
  for (let s = 0; s < SLICES; s++) {
    for (const i of rotate(order, round + s)) secs[i] += runners[i].measure(Math.max(1, Math.round(runners[i].cycles / SLICES)));
  }
  runners.forEach((x, i) => x.rates.push((Math.max(1, Math.round(x.cycles / SLICES)) * SLICES * routes.length) / secs[i]));
  process.stdout.write(`round ${round + 1}/${cli.rounds} done\r`);
}
process.stdout.write('\n');

// 3. Report.
const results = [];
for (const mode of modes) {
  const inMode = runners.filter((x) => x.mode === mode);
  const base = inMode.find((x) => x.router.name === 'find-my-way');
  const rows = inMode.map((x) => {
    const ratios = base ? x.rates.map((v, k) => v / base.rates[k]) : [];
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
      rates: x.rates,
    };
    results.push(result);
    return [
      x.router.label,
      fixed(result.medianLookupsPerSec / 1e6, 2),
      `${fixed(result.minLookupsPerSec / 1e6, 2)}–${fixed(result.maxLookupsPerSec / 1e6, 2)}`,
      base ? `${fixed(result.ratioToFindMyWay)} (${fixed(result.ratioMin)}–${fixed(result.ratioMax)})` : '–',
    ];
  });
  console.log(`\n### ${routes.length} routes, ${mode.label} (${cli.rounds} rounds × ${cli.duration} s, node ${process.version})\n`);
  console.log(markdownTable(['router', 'M lookups/s (median)', 'min–max', '× find-my-way per round: median (min–max)'], rows, 'lrrr'));
}

const fmwSliced = results.filter((r) => r.router === 'find-my-way');
if (fmwSliced.length > 0) {
  console.log('\nTarget "router lookups above find-my-way":');
  for (const r of results.filter((x) => x.router.startsWith('fw-'))) {
    console.log(`  ${r.label}, ${r.mode}: ${fixed(r.ratioToFindMyWay)}× → ${r.ratioToFindMyWay > 1 ? 'met' : 'NOT met'}`);
  }
}
if (cli.json) writeFileSync(cli.json, JSON.stringify({ node: process.version, routes: routes.length, rounds: cli.rounds, duration: cli.duration, results }, null, 2));

function sortKeys(obj) {
  return Object.fromEntries(Object.entries(obj).sort(([a], [b]) => a.localeCompare(b)));
}
