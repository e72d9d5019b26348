import { createApp } from '@fw/app';
const mode = process.argv[2];
const logs = [];
const app = createApp({ shutdown: false, onLog: (m, e) => logs.push([m, String(e)]), observability: mode === 'trace'
  ? { tracing: { enabled: true, serviceName: 'x', exporter: { export: (spans, cb) => cb({ code: 1, error: new Error('collector down') }), shutdown: async () => {} } } }
  : mode === 'otlp' ? { tracing: { enabled: true, serviceName: 'x', exporter: 'otlp', endpoint: 'http://127.0.0.1:9' } } : {} });
app.get('/x', (ctx) => ctx.json({ ok: 1 }));
await app.listen(0, '127.0.0.1');
console.log((await app.inject('/x')).statusCode);
const t = Date.now();
await app.close();
console.log('closed in', Date.now() - t, JSON.stringify(logs));
