// Summarises a V8 .cpuprofile (node --cpu-prof): the functions with the most self time, and the
// total (inclusive) time of functions from files matching --focus (default: @fw packages).
//   node profile/top.mjs <file.cpuprofile> [--n 25] [--focus packages/core]
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({ options: { n: { type: 'string' }, focus: { type: 'string' } }, allowPositionals: true });
if (positionals.length !== 1) {
  console.error('Usage: node profile/top.mjs <file.cpuprofile> [--n 25] [--focus packages/core]');
  process.exit(2);
}
const n = Number(values.n ?? 25);
const focus = values.focus ?? '/packages/';
const profile = JSON.parse(readFileSync(positionals[0], 'utf8'));

const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map();
for (const node of profile.nodes) for (const c of node.children ?? []) parent.set(c, node.id);

// Self time per node from the samples and their time deltas.
const selfUs = new Map();
profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);

const keyOf = (cf) => {
  const file = cf.url ? cf.url.replace(/^file:\/\//, '').replace(/.*node_modules\/\.pnpm\/[^/]+\/node_modules\//, '') : '';
  return `${cf.functionName || '(anonymous)'} ${file ? `${file.split('/').slice(-3).join('/')}:${cf.lineNumber + 1}` : ''}`.trim();
};

const self = new Map();
const inclusive = new Map();
for (const [id, us] of selfUs) {
  const node = byId.get(id);
  const k = keyOf(node.callFrame);
  self.set(k, (self.get(k) ?? 0) + us);
  // Inclusive: credit every distinct focused frame on the stack once.
  const seen = new Set();
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const cf = byId.get(cur).callFrame;
    if (!cf.url.includes(focus)) continue;
    const fk = keyOf(cf);
    if (seen.has(fk)) continue;
    seen.add(fk);
    inclusive.set(fk, (inclusive.get(fk) ?? 0) + us);
  }
}

const pct = (us) => `${((100 * us) / total).toFixed(1).padStart(5)}%`;
console.log(`${positionals[0]}: ${(total / 1e6).toFixed(2)} s sampled\n\nTop self time:`);
for (const [k, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, n)) console.log(`${pct(us)}  ${k}`);
console.log(`\nInclusive time of frames from files matching "${focus}":`);
for (const [k, us] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, n)) console.log(`${pct(us)}  ${k}`);
