// GraphQL validation cost at the default limits (reliability issue 1): the worst documents of each
// shape that @fw/graphql's default limits still accept, and how long graphql's parse + validate
// takes on them. Each shape grows until the endpoint refuses it with a limit error (asked
// in-process, through the real handler), then the largest accepted one is timed.
//
//   node graphql-validation/run.mjs [--runs 7] [--json FILE]
//   npx -y pnpm@10.34.9 --filter @fw/bench bench:graphql-validation   (after building the @fw packages)
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { buildSchema, parse, specifiedRules, validate } from 'graphql';
import { Application } from '@fw/app/core';
import { DEFAULT_GRAPHQL_LIMITS, graphqlPlugin } from '@fw/app/graphql';
import fixture from '../../packages/graphql/test/fixtures/validation-shapes.cjs';

const { shapes, typeDefs } = fixture;

const { values } = parseArgs({ options: { runs: { type: 'string', default: '7' }, json: { type: 'string' } } });
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs must be a positive integer');

const schema = buildSchema(typeDefs);
const app = new Application({ onLog: () => undefined });
// No document cache, so each probe goes through the limits again.
app.register(graphqlPlugin({ schema, documentCache: false, onLog: () => undefined }));

/** Whether the endpoint lets `query` through its limits (it may still fail validation: that is fine). */
async function accepted(query) {
  const res = await app.inject({
    method: 'POST',
    url: '/graphql',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query }),
  });
  const body = JSON.parse(res.body);
  return body.errors?.[0]?.extensions?.limit === undefined;
}

async function largest(shape) {
  let low = 1;
  let high = 2;
  while (high < 1 << 16 && (await accepted(shape(high)))) (low = high), (high *= 2);
  while (high - low > 1) {
    const mid = (low + high) >> 1;
    if (await accepted(shape(mid))) low = mid;
    else high = mid;
  }
  return low;
}

/** Wall-clock and CPU time (this process's own, so other load on the machine counts less) of one parse + validate, in ms. */
function time(query) {
  const cpu = process.cpuUsage();
  const start = performance.now();
  validate(schema, parse(query), specifiedRules);
  const wall = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { wall, cpu: (used.user + used.system) / 1000 };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

console.log(`default limits: ${JSON.stringify(DEFAULT_GRAPHQL_LIMITS)}`);
console.log(`parse + validate (graphql ${(await import('graphql')).version}), median of ${runs} runs after one warm-up\n`);
const rows = [];
for (const [name, shape] of Object.entries(shapes)) {
  const n = await largest(shape);
  const query = shape(n);
  time(query);
  const samples = Array.from({ length: runs }, () => time(query));
  const row = {
    shape: name,
    n,
    chars: query.length,
    medianMs: median(samples.map((s) => s.wall)),
    maxMs: Math.max(...samples.map((s) => s.wall)),
    medianCpuMs: median(samples.map((s) => s.cpu)),
    refusedAtNextN: !(await accepted(shape(n + 1))),
  };
  rows.push(row);
  const ms = (x) => x.toFixed(1).padStart(6);
  console.log(`${name.padEnd(62)} n=${String(n).padStart(5)} ${String(query.length).padStart(6)} chars  median ${ms(row.medianMs)} ms (CPU ${ms(row.medianCpuMs)} ms)  max ${ms(row.maxMs)} ms${row.refusedAtNextN ? '' : '  (n+1 NOT refused)'}`);
}
const worst = rows.reduce((a, b) => (b.medianMs > a.medianMs ? b : a));
console.log(`\nworst: ${worst.shape}, median ${worst.medianMs.toFixed(1)} ms, CPU ${worst.medianCpuMs.toFixed(1)} ms (budget: 50 ms)`);
if (values.json !== undefined) writeFileSync(values.json, `${JSON.stringify({ limits: DEFAULT_GRAPHQL_LIMITS, runs, rows }, null, 2)}\n`);
