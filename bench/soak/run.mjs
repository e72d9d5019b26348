// Soak test: a fixed-duration, high-concurrency mix of REST routes, rate-limited keys, error
// routes and GraphQL (hot and ever-new documents) against the app of soak/server.mjs in a child
// process, on loopback only. Bounded in time (--duration) and count (--max-requests).
//
// It reports the load, every failure other than the expected ones (429 on rate-limited keys,
// 400/500/404 on the error routes), RSS and heap after a forced GC at the start (after warm-up)
// and at the end, event-loop delay, p50/p99/max latency, the rate-limit store's size against its
// bound and how many GraphQL documents missed the bounded document cache.
//
//   node soak/run.mjs [--duration 60] [--concurrency 64] [--warmup 5] [--max-requests N] [--json out.json]
import { fork } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createHistogram } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const USAGE = 'node soak/run.mjs [--duration 60] [--concurrency 64] [--warmup 5] [--max-requests 10000000] [--json out.json]';
const args = process.argv.slice(2);
const { values } = parseArgs({
  args: args[0] === '--' ? args.slice(1) : args,
  options: {
    duration: { type: 'string', default: '60' },
    concurrency: { type: 'string', default: '64' },
    warmup: { type: 'string', default: '5' },
    'max-requests': { type: 'string', default: '10000000' },
    json: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
  strict: true,
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const positive = (flag, raw) => {
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new TypeError(`${flag} must be a positive number, got ${raw}`);
  return n;
};
const DURATION_S = positive('--duration', values.duration);
const CONCURRENCY = Math.round(positive('--concurrency', values.concurrency));
const WARMUP_S = Math.min(positive('--warmup', values.warmup), DURATION_S / 2);
const MAX_REQUESTS = Math.round(positive('--max-requests', values['max-requests']));
const SAMPLE_EVERY_MS = 10_000;

// ---- the server ------------------------------------------------------------------------------

const server = fork(fileURLToPath(new URL('./server.mjs', import.meta.url)), [], {
  execArgv: ['--expose-gc'],
  env: { ...process.env, NODE_ENV: 'production' },
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
const exited = new Promise((resolve) => server.once('exit', (code, signal) => resolve({ code, signal })));
const port = await new Promise((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error('soak server not ready after 20 s')), 20_000);
  server.on('message', (m) => {
    if (m?.type === 'ready') {
      clearTimeout(timer);
      resolve(m.port);
    }
  });
  server.once('exit', (code) => reject(new Error(`soak server exited with code ${code} before it was ready`)));
});

let statsId = 0;
const waiting = new Map();
server.on('message', (m) => {
  if (m?.type !== 'stats') return;
  waiting.get(m.id)?.(m);
  waiting.delete(m.id);
});
/** The server's figures; `gc` forces a full collection first, `resetDelay` restarts the delay histogram after. */
function stats({ gc = false, resetDelay = false } = {}) {
  const id = ++statsId;
  return new Promise((resolve) => {
    waiting.set(id, resolve);
    server.send({ type: 'stats', id, gc, resetDelay });
  });
}

// ---- the load --------------------------------------------------------------------------------

const HOT_QUERIES = Array.from({ length: 20 }, (_, i) =>
  i % 2 === 0 ? `query Hot${i} { book(id: "${i}") { id title author } }` : `query Hot${i} { books(limit: ${i}) { id title } }`,
);
let uniqueDocuments = 0;
const pick = (n) => Math.floor(Math.random() * n);
const JSON_HEADERS = { 'content-type': 'application/json' };

/** The mix: [weight, kind, make() → { method, path, headers?, body? }, expected statuses]. */
const MIX = [
  [20, 'static', () => ({ path: '/static' }), [200]],
  [15, 'param', () => ({ path: `/users/${pick(1e6)}` }), [200]],
  [10, 'query', () => ({ path: `/search?q=${encodeURIComponent(`term ${pick(1000)}`)}&page=${pick(50)}&tag=a&tag=b` }), [200]],
  [10, 'json body', () => ({ method: 'POST', path: '/echo', headers: JSON_HEADERS, body: JSON.stringify({ id: pick(1e6), items: [1, 2, 3], note: 'x'.repeat(pick(200)) }) }), [200]],
  [5, 'slow (5 ms)', () => ({ path: '/slow' }), [200]],
  // Many cold keys fill the store up to its bound; a few hot keys are limited (429) all along.
  [12, 'rate-limited, cold keys', () => ({ path: '/limited', headers: { 'x-client': `cold-${pick(50_000)}` } }), [200, 429]],
  [5, 'rate-limited, hot keys', () => ({ path: '/limited', headers: { 'x-client': `hot-${pick(4)}` } }), [200, 429]],
  [4, 'error 400', () => ({ path: '/error/400' }), [400]],
  [4, 'error 500', () => ({ path: '/error/500' }), [500]],
  [3, 'not found', () => ({ path: `/nowhere/${pick(1000)}` }), [404]],
  [10, 'graphql, hot documents', () => ({ method: 'POST', path: '/graphql', headers: JSON_HEADERS, body: JSON.stringify({ query: HOT_QUERIES[pick(HOT_QUERIES.length)] }) }), [200]],
  // Every one a document the cache has never seen: the cache must stay bounded.
  [2, 'graphql, new documents', () => ({ method: 'POST', path: '/graphql', headers: JSON_HEADERS, body: JSON.stringify({ query: `{ book(id: "${pick(100)}") { id u${++uniqueDocuments}: title } }` }) }), [200]],
];
const TOTAL_WEIGHT = MIX.reduce((n, [w]) => n + w, 0);
function nextRequest() {
  let r = Math.random() * TOTAL_WEIGHT;
  for (const entry of MIX) {
    r -= entry[0];
    if (r < 0) return entry;
  }
  return MIX[0];
}

const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY, maxFreeSockets: CONCURRENCY });
const latency = createHistogram();
const perKind = new Map(MIX.map(([, kind]) => [kind, { count: 0, statuses: {} }]));
const unexpected = new Map();
let sent = 0;
let completed = 0;
let intervalCompleted = 0;

function send({ method = 'GET', path, headers, body }) {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers, agent }, (res) => {
      res.on('data', () => undefined);
      res.on('end', () => resolve(res.statusCode));
      res.on('error', (err) => resolve(`response error ${err.code ?? err.message}`));
    });
    req.on('error', (err) => resolve(`request error ${err.code ?? err.message}`));
    req.end(body);
  });
}

let stopAt = Infinity;
async function worker() {
  while (Date.now() < stopAt && sent < MAX_REQUESTS) {
    sent++;
    const [, kind, make, expected] = nextRequest();
    const started = process.hrtime.bigint();
    const status = await send(make());
    latency.record(Math.max(1, Number((process.hrtime.bigint() - started) / 1000n)));
    completed++;
    intervalCompleted++;
    const entry = perKind.get(kind);
    entry.count++;
    entry.statuses[status] = (entry.statuses[status] ?? 0) + 1;
    if (!expected.includes(status)) {
      const key = `${kind}: ${status}`;
      unexpected.set(key, (unexpected.get(key) ?? 0) + 1);
    }
  }
}

// ---- the run ---------------------------------------------------------------------------------

const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const before = await stats({ gc: true });
console.log(`soak: ${DURATION_S} s at concurrency ${CONCURRENCY} against 127.0.0.1:${port} (server pid ${server.pid}), warm-up ${WARMUP_S} s`);
console.log(`  server before load (forced GC): RSS ${mb(before.rss)}, heap ${mb(before.heapUsed)}`);

const startedAt = Date.now();
stopAt = startedAt + DURATION_S * 1000;
const workers = Array.from({ length: CONCURRENCY }, () => worker());

await new Promise((resolve) => setTimeout(resolve, WARMUP_S * 1000));
const afterWarmup = await stats({ gc: true, resetDelay: true });
console.log(`  after ${WARMUP_S} s warm-up (forced GC): RSS ${mb(afterWarmup.rss)}, heap ${mb(afterWarmup.heapUsed)}`);
intervalCompleted = 0;
let lastSample = Date.now();
const samples = [];
const sampler = setInterval(async () => {
  const now = Date.now();
  const s = await stats({ resetDelay: true });
  const rps = (intervalCompleted / (now - lastSample)) * 1000;
  intervalCompleted = 0;
  lastSample = now;
  const sample = { t: Math.round((now - startedAt) / 1000), rps: Math.round(rps), rss: s.rss, heapUsed: s.heapUsed, storeSize: s.storeSize, eventLoopDelay: s.eventLoopDelay };
  samples.push(sample);
  console.log(`  t=${String(sample.t).padStart(3)} s  ${String(sample.rps).padStart(6)} req/s  RSS ${mb(s.rss)}  heap ${mb(s.heapUsed)}  store ${s.storeSize}  loop delay p99 ${s.eventLoopDelay.p99} ms`);
}, SAMPLE_EVERY_MS);

await Promise.all(workers);
clearInterval(sampler);
const elapsed = (Date.now() - startedAt) / 1000;
const loadEnd = await stats();
const end = await stats({ gc: true });
agent.destroy();
// Disconnecting makes the server call close(); it must then exit by itself.
server.disconnect();
let killer;
const exit = await Promise.race([
  exited,
  new Promise((resolve) => {
    killer = setTimeout(() => {
      server.kill('SIGKILL');
      resolve({ code: null, signal: 'did not exit within 15 s of close(); killed' });
    }, 15_000);
  }),
]);
clearTimeout(killer);

// ---- the report ------------------------------------------------------------------------------

const q = (p) => latency.percentile(p) / 1000;
// Event-loop delay per interval (the server resets its histogram at each sample), the last partial one included.
const intervals = [...samples.map((s) => s.eventLoopDelay), loadEnd.eventLoopDelay];
const sortedP99 = intervals.map((d) => d.p99).sort((a, b) => a - b);
const loopDelay = {
  p50Median: intervals.map((d) => d.p50).sort((a, b) => a - b)[intervals.length >> 1],
  p99Median: sortedP99[sortedP99.length >> 1],
  p99Worst: sortedP99[sortedP99.length - 1],
  max: Math.max(...intervals.map((d) => d.max)),
};
const expectedRejections = [...perKind.entries()].reduce((n, [kind, e]) => n + (kind.startsWith('rate-limited') ? (e.statuses[429] ?? 0) : 0), 0);
const unexpectedTotal = [...unexpected.values()].reduce((a, b) => a + b, 0);
const report = {
  durationS: Math.round(elapsed * 10) / 10,
  concurrency: CONCURRENCY,
  requests: completed,
  requestsPerSecond: Math.round(completed / elapsed),
  expected429: expectedRejections,
  unexpectedFailures: unexpectedTotal,
  unexpected: Object.fromEntries(unexpected),
  latencyMs: { p50: q(50), p99: q(99), max: latency.max / 1000 },
  rss: { beforeLoad: before.rss, afterWarmup: afterWarmup.rss, end: end.rss },
  heapUsed: { beforeLoad: before.heapUsed, afterWarmup: afterWarmup.heapUsed, end: end.heapUsed },
  eventLoopDelayMs: loopDelay,
  rateLimitStore: { size: end.storeSize, peak: end.peakStoreSize, maxKeys: end.storeMaxKeys },
  graphqlDocuments: { newDocumentsSent: uniqueDocuments, hotDocuments: HOT_QUERIES.length, validated: end.validatedDocuments, cacheMaxEntries: end.documentCacheMaxEntries },
  serverErrorsLogged: end.serverErrorsLogged,
  serverExit: exit,
  perKind: Object.fromEntries(perKind),
  samples,
};

console.log('');
console.log(`requests          ${completed.toLocaleString('en-US')} in ${report.durationS} s (${report.requestsPerSecond.toLocaleString('en-US')} req/s), concurrency ${CONCURRENCY}`);
console.log(`expected 429s     ${expectedRejections.toLocaleString('en-US')} (rate-limited keys)`);
console.log(`other failures    ${unexpectedTotal}${unexpectedTotal ? ` ${JSON.stringify(report.unexpected)}` : ''}`);
console.log(`latency           p50 ${q(50).toFixed(2)} ms, p99 ${q(99).toFixed(2)} ms, max ${(latency.max / 1000).toFixed(1)} ms`);
console.log(`RSS (forced GC)   before load ${mb(before.rss)}, after warm-up ${mb(afterWarmup.rss)}, end ${mb(end.rss)}`);
console.log(`heap (forced GC)  before load ${mb(before.heapUsed)}, after warm-up ${mb(afterWarmup.heapUsed)}, end ${mb(end.heapUsed)}`);
console.log(`event-loop delay  per 10 s interval after warm-up: p50 ${loopDelay.p50Median} ms, p99 ${loopDelay.p99Median} ms (worst interval ${loopDelay.p99Worst} ms), max ${loopDelay.max} ms`);
console.log(`rate-limit store  ${end.storeSize} keys at the end, peak ${end.peakStoreSize}, bound ${end.storeMaxKeys}`);
console.log(`graphql documents ${uniqueDocuments} new + ${HOT_QUERIES.length} hot sent; ${end.validatedDocuments} parsed and validated (cache misses); cache bound ${end.documentCacheMaxEntries} entries`);
console.log(`server            ${end.serverErrorsLogged} 5xx logged (the error route), exited with ${JSON.stringify(exit)}`);
console.log('');
console.log('per kind:');
for (const [kind, e] of perKind) console.log(`  ${kind.padEnd(26)} ${String(e.count).padStart(8)}  ${JSON.stringify(e.statuses)}`);
if (values.json) writeFileSync(values.json, `${JSON.stringify(report, null, 2)}\n`);

const flat = end.heapUsed < afterWarmup.heapUsed * 1.5 + 16 * 1024 * 1024;
const bounded = end.peakStoreSize <= end.storeMaxKeys;
if (unexpectedTotal > 0 || !flat || !bounded || exit.code !== 0) {
  console.error(`\nsoak FAILED: ${[unexpectedTotal > 0 && 'unexpected failures', !flat && 'heap grew', !bounded && 'store past its bound', exit.code !== 0 && 'server exit'].filter(Boolean).join(', ')}`);
  process.exitCode = 1;
}
