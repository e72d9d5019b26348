// The application under soak: REST routes, rate-limited keys on a bounded memory store, error
// routes and GraphQL with a bounded document cache. Run by soak/run.mjs with --expose-gc and an
// IPC channel, over which it answers `stats` (optionally after a forced GC). Loopback only.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { buildSchema } from 'graphql';
import { createApp, HTTPError } from '@fw/app';
import { MemoryStore, rateLimit } from '@fw/app/middleware';

/** Bounds the soak checks: the store and the document cache must never grow past them. */
export const STORE_MAX_KEYS = 5_000;
export const DOCUMENT_CACHE_MAX_ENTRIES = 200;

if (typeof globalThis.gc !== 'function') throw new Error('run the soak server with --expose-gc');
if (typeof process.send !== 'function') throw new Error('run the soak server with an IPC channel (soak/run.mjs does)');

const schema = buildSchema(`
  type Book { id: ID!, title: String!, author: String! }
  type Query { book(id: ID!): Book, books(limit: Int): [Book!]! }
`);
const books = Array.from({ length: 100 }, (_, i) => ({ id: String(i), title: `Title ${i}`, author: `Author ${i % 17}` }));

// Counts documents that were parsed and validated, i.e. missed the document cache: extra
// validation rules run only for documents the cache does not hold.
let validatedDocuments = 0;
const countValidation = () => {
  validatedDocuments++;
  return {};
};

const store = new MemoryStore({ maxKeys: STORE_MAX_KEYS });
let peakStoreSize = 0;
let serverErrorsLogged = 0;

const app = createApp({
  // Error routes log on purpose; count instead of printing thousands of stacks.
  onLog: () => {
    serverErrorsLogged++;
  },
  protocols: {
    graphql: {
      schema,
      playground: false,
      documentCache: { maxEntries: DOCUMENT_CACHE_MAX_ENTRIES },
      validationRules: [countValidation],
      rootValue: {
        book: ({ id }) => books[Number(id)] ?? null,
        books: ({ limit }) => books.slice(0, Math.max(0, Math.min(limit ?? 10, 100))),
      },
    },
  },
});

// Ten-second windows: the cold keys of the load outnumber the store's bound while still live.
const limited = rateLimit({
  windowMs: 10_000,
  maxRequests: 100,
  store,
  keyGenerator: (ctx) => String(ctx.headers['x-client'] ?? ctx.ip),
});

app.get('/static', (ctx) => ctx.json({ ok: true }));
app.get('/users/:id', (ctx) => ctx.json({ id: ctx.params.id, name: `user ${ctx.params.id}` }));
app.get('/search', (ctx) => {
  const q = ctx.query;
  ctx.json({ q: q.q ?? '', page: Number(q.page ?? 1), tags: [q.tag ?? []].flat() });
});
app.post('/echo', (ctx) => ctx.json({ received: ctx.body }));
app.get('/slow', async (ctx) => {
  await new Promise((resolve) => setTimeout(resolve, 5));
  ctx.text('slow');
});
app.get('/limited', limited, (ctx) => {
  peakStoreSize = Math.max(peakStoreSize, store.size);
  ctx.json({ ok: true });
});
app.get('/error/400', () => {
  throw new HTTPError(400, 'Bad input on purpose', { field: 'x' });
});
app.get('/error/500', () => {
  throw new Error('A failure on purpose');
});

// The histogram records the time between samples, so an idle loop reads about RESOLUTION_MS:
// the delay is what lies beyond it.
const RESOLUTION_MS = 10;
const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
delay.enable();
const ms = (ns) => Math.max(0, Math.round((ns / 1e6 - RESOLUTION_MS) * 100) / 100);

process.on('message', (message) => {
  if (message?.type !== 'stats') return;
  if (message.gc) {
    // Two passes: the first may only queue finalizers.
    globalThis.gc();
    globalThis.gc();
  }
  const memory = process.memoryUsage();
  peakStoreSize = Math.max(peakStoreSize, store.size);
  process.send({
    type: 'stats',
    id: message.id,
    rss: memory.rss,
    heapUsed: memory.heapUsed,
    storeSize: store.size,
    peakStoreSize,
    storeMaxKeys: STORE_MAX_KEYS,
    validatedDocuments,
    documentCacheMaxEntries: DOCUMENT_CACHE_MAX_ENTRIES,
    serverErrorsLogged,
    eventLoopDelay: { p50: ms(delay.percentile(50)), p99: ms(delay.percentile(99)), max: ms(delay.max) },
  });
  if (message.resetDelay) delay.reset();
});

const { port } = await app.listen(0, '127.0.0.1');
process.send({ type: 'ready', port });
process.on('disconnect', () => {
  void app.close();
});
