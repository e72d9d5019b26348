// Editor cost of a typed client: how long TypeScript takes to check a consumer file that calls 20
// operations, for an API of N operations, with fw's generated client (`emit({ client })`), tRPC's
// inferred client (`createTRPCClient<AppRouter>`) and Hono's `hc<AppType>`, over the same routes
// and the same zod schemas. `tsc --noEmit --extendedDiagnostics` on each project, alternating, in
// fresh processes pinned to one core; the check time and memory it reports are compared per round.
//
//   node editor/run.mjs [--sizes 200,1000] [--rounds 3] [--cpu 1] [--keep DIR]
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { createApp, defineOperation, emit } from '@fw/app';

const require = createRequire(import.meta.url);
const TSC = require.resolve('typescript/bin/tsc');
const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? fallback : args[i + 1];
};
const SIZES = flag('sizes', '200,1000').split(',').map(Number);
const ROUNDS = Number(flag('rounds', '3'));
const CPU = flag('cpu', '1');
const KEEP = flag('keep', undefined);
const CALLED = 20;

const TSCONFIG = {
  compilerOptions: {
    strict: true,
    noEmit: true,
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    skipLibCheck: true,
    types: [],
    lib: ['ES2022', 'DOM'],
  },
};

/** The operations' shapes, the same on every side: a path param, an optional query field, an object answer. */
const inputOf = () => z.object({ id: z.string(), limit: z.coerce.number().int().optional() });
const outputOf = (i) => z.object({ id: z.string(), name: z.string(), priceCents: z.int32(), tags: z.array(z.string()) }).meta({ id: `Item${i}` });

async function writeFw(dir, n) {
  const app = createApp({ health: false, shutdown: false });
  for (let i = 0; i < n; i++) {
    app.operation(
      defineOperation({
        name: `getItem${i}`,
        input: inputOf(),
        output: outputOf(i),
        rest: { method: 'GET', path: `/items${i}/:id` },
        handler: ({ id }) => ({ id, name: 'x', priceCents: 1, tags: [] }),
      }),
    );
  }
  await emit({ app, client: join(dir, 'client.ts'), graphql: false, proto: false, openapi: false });
  const calls = Array.from({ length: CALLED }, (_, k) => {
    const i = Math.floor((k * n) / CALLED);
    return `  const r${k} = await client.getItem${i}({ id: '${k}', limit: 5 });\n  total += r${k}.priceCents + r${k}.tags.length;`;
  });
  writeFileSync(join(dir, 'consumer.ts'), `import { createClient } from './client.js';\n\nconst client = createClient({ baseUrl: 'http://localhost:3000' });\nexport async function use(): Promise<number> {\n  let total = 0;\n${calls.join('\n')}\n  return total;\n}\n`);
}

function writeTrpc(dir, n) {
  const procedures = Array.from(
    { length: n },
    (_, i) => `  getItem${i}: t.procedure.input(z.object({ id: z.string(), limit: z.number().int().optional() })).query(({ input }) => ({ id: input.id, name: 'x', priceCents: 1, tags: [] as string[] })),`,
  );
  writeFileSync(join(dir, 'router.ts'), `import { initTRPC } from '@trpc/server';\nimport { z } from 'zod';\n\nconst t = initTRPC.create();\nexport const appRouter = t.router({\n${procedures.join('\n')}\n});\nexport type AppRouter = typeof appRouter;\n`);
  const calls = Array.from({ length: CALLED }, (_, k) => {
    const i = Math.floor((k * n) / CALLED);
    return `  const r${k} = await client.getItem${i}.query({ id: '${k}', limit: 5 });\n  total += r${k}.priceCents + r${k}.tags.length;`;
  });
  writeFileSync(
    join(dir, 'consumer.ts'),
    `import { createTRPCClient, httpBatchLink } from '@trpc/client';\nimport type { AppRouter } from './router.js';\n\nconst client = createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: 'http://localhost:3000/trpc' })] });\nexport async function use(): Promise<number> {\n  let total = 0;\n${calls.join('\n')}\n  return total;\n}\n`,
  );
}

function writeHono(dir, n) {
  // hc infers from the app's type, so routes are chained, as Hono's RPC guide says; a larger app is
  // split into sub-apps of at most 50 routes mounted with .route(), as its "larger applications"
  // guide does (one chain of 1,000 routes overflows tsc's stack). The query is validated with the
  // same zod schema through @hono/zod-validator.
  const PER_APP = 50;
  const apps = [];
  for (let start = 0; start < n; start += PER_APP) {
    const routes = [];
    for (let i = start; i < Math.min(n, start + PER_APP); i++) {
      routes.push(`  .get('/items${i}/:id', zValidator('query', z.object({ limit: z.coerce.number().int().optional() })), (c) => c.json({ id: c.req.param('id'), name: 'x', priceCents: 1, tags: [] as string[] }))`);
    }
    apps.push(`const part${apps.length} = new Hono()\n${routes.join('\n')};`);
  }
  const mounted = apps.map((_, k) => `  .route('/', part${k})`).join('\n');
  writeFileSync(join(dir, 'app.ts'), `import { Hono } from 'hono';\nimport { zValidator } from '@hono/zod-validator';\nimport { z } from 'zod';\n\n${apps.join('\n\n')}\n\nconst app = new Hono()\n${mounted};\nexport type AppType = typeof app;\nexport default app;\n`);
  const calls = Array.from({ length: CALLED }, (_, k) => {
    const i = Math.floor((k * n) / CALLED);
    // The answer's type is the union of the handler's and the validator's (400): narrowed on ok.
    return `  const res${k} = await client.items${i}[':id'].$get({ param: { id: '${k}' }, query: { limit: '5' } });\n  if (res${k}.ok) {\n    const r${k} = await res${k}.json();\n    total += r${k}.priceCents + r${k}.tags.length;\n  }`;
  });
  writeFileSync(join(dir, 'consumer.ts'), `import { hc } from 'hono/client';\nimport type { AppType } from './app.js';\n\nconst client = hc<AppType>('http://localhost:3000');\nexport async function use(): Promise<number> {\n  let total = 0;\n${calls.join('\n')}\n  return total;\n}\n`);
}

/** One tsc run over a project: its check time, total time (s) and memory (KiB) as --extendedDiagnostics reports them. */
function tsc(dir) {
  return new Promise((resolve, reject) => {
    execFile('taskset', ['-c', CPU, process.execPath, TSC, '-p', join(dir, 'tsconfig.json'), '--extendedDiagnostics'], { maxBuffer: 16 * 1024 * 1024 }, (err, stdout) => {
      const field = (name) => {
        const m = new RegExp(`^${name}:\\s+([\\d.]+)([sK]?)`, 'm').exec(stdout);
        return m ? Number(m[1]) : NaN;
      };
      const errors = stdout.split('\n').filter((l) => l.includes('error TS'));
      if (errors.length > 0 || (err && !stdout.includes('Check time'))) return reject(new Error(`tsc failed in ${dir}:\n${errors.slice(0, 5).join('\n') || err?.message}`));
      resolve({ check: field('Check time'), total: field('Total time'), memoryKiB: field('Memory used'), types: field('Types') });
    });
  });
}

/** The editor's view, in a fresh process: the consumer's diagnostics and a completion (ms). */
function editor(dir) {
  return new Promise((resolve, reject) => {
    execFile('taskset', ['-c', CPU, process.execPath, join(import.meta.dirname, 'language-service.mjs'), dir], { maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`language service failed in ${dir}: ${stderr || err.message}`));
      const r = JSON.parse(stdout.trim().split('\n').pop());
      if (r.errors.length > 0) return reject(new Error(`the consumer in ${dir} has errors: ${r.errors.join('; ')}`));
      resolve(r);
    });
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const root = KEEP ?? mkdtempSync(join(tmpdir(), 'fw-bench-editor-'));
// The projects resolve @trpc/*, hono and zod from the bench package's node_modules.
const nodeModules = join(import.meta.dirname, '..', 'node_modules');
const SIDES = [
  ['fw', 'fw generated client (emit --client)', writeFw],
  ['trpc', 'tRPC 11 createTRPCClient<AppRouter>', writeTrpc],
  ['hono', 'Hono 4 hc<AppType>', writeHono],
];

const results = {};
try {
  for (const n of SIZES) {
    for (const [side, , write] of SIDES) {
      const dir = join(root, `${side}-${n}`);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ ...TSCONFIG, include: ['consumer.ts'] }, null, 2));
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
      rmSync(join(dir, 'node_modules'), { force: true });
      symlinkSync(nodeModules, join(dir, 'node_modules'), 'dir');
      await write(dir, n);
    }
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate the order per round, so no side always runs first.
      const order = round % 2 === 0 ? SIDES : [...SIDES].reverse();
      for (const [side] of order) {
        const r = { ...(await tsc(join(root, `${side}-${n}`))), ...(await editor(join(root, `${side}-${n}`))) };
        ((results[n] ??= {})[side] ??= []).push(r);
        console.log(
          `n=${n} round ${round + 1} ${side}: check ${r.check.toFixed(2)} s, total ${r.total.toFixed(2)} s, ${Math.round(r.memoryKiB / 1024)} MiB, ${r.types} types; editor: diagnostics ${Math.round(r.diagnosticsMs)} ms, completions ${Math.round(r.completionsMs)} ms`,
        );
      }
    }
  }
} finally {
  if (KEEP === undefined) rmSync(root, { recursive: true, force: true });
}

console.log(`\nA consumer calling ${CALLED} operations; tsc --noEmit --extendedDiagnostics, pinned to CPU ${CPU}, ${ROUNDS} rounds; medians (min–max).\n`);
console.log('| operations | client | tsc check s | tsc total s | tsc memory MiB | types | check × fw | editor: consumer diagnostics ms | editor: completions ms |');
console.log('| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const n of SIZES) {
  const fwChecks = results[n].fw.map((r) => r.check);
  for (const [side, label] of SIDES) {
    const rs = results[n][side];
    const checks = rs.map((r) => r.check);
    // Per round: this side's check time over fw's in the same round.
    const ratios = checks.map((c, i) => c / fwChecks[i]);
    const span = (xs, d = 2) => `${median(xs).toFixed(d)} (${Math.min(...xs).toFixed(d)}–${Math.max(...xs).toFixed(d)})`;
    console.log(
      `| ${n} | ${label} | ${span(checks)} | ${span(rs.map((r) => r.total))} | ${Math.round(median(rs.map((r) => r.memoryKiB)) / 1024)} | ${median(rs.map((r) => r.types))} | ${side === 'fw' ? '1.00' : span(ratios)} | ${span(rs.map((r) => r.diagnosticsMs), 0)} | ${span(rs.map((r) => r.completionsMs), 0)} |`,
    );
  }
}
const last = SIZES[SIZES.length - 1];
const first = SIZES[0];
const fwRatioToPeer = (n) => {
  const fw = results[n].fw.map((r) => r.check);
  const peer = results[n].trpc.map((r, i) => Math.min(r.check, results[n].hono[i].check));
  return median(fw.map((c, i) => c / peer[i]));
};
console.log(`\nTarget: at ${last} operations fw's check time ≤ 0.2× the faster peer's: ${fwRatioToPeer(last).toFixed(3)}× → ${fwRatioToPeer(last) <= 0.2 ? 'met' : 'not met'}`);
const flat = median(results[last].fw.map((r) => r.check)) / median(results[first].fw.map((r) => r.check));
console.log(`Target: flat from ${first} to ${last}: fw's check time ${flat.toFixed(2)}× (${first} → ${last})`);
const growth = (side, field) => median(results[last][side].map((r) => r[field])) / median(results[first][side].map((r) => r[field]));
for (const [side, label] of SIDES) {
  console.log(`${label}: ${first} → ${last} operations: tsc check ${growth(side, 'check').toFixed(2)}×, editor diagnostics ${growth(side, 'diagnosticsMs').toFixed(2)}×, completions ${growth(side, 'completionsMs').toFixed(2)}×`);
}
