// Metrics suite, fw with metrics on: createApp({ observability: { metrics } }), the OpenTelemetry
// metrics SDK with its Prometheus reader (text served on an admin port, so the measured port serves
// only the routes); the same routes as servers/fw.mjs, whose default settings are the "off" side.
import { createApp } from '@fw/app';
import { announce } from './ready.mjs';
import { CORE_SCENARIOS, fwCoreRoutes } from './routes.mjs';

const app = fwCoreRoutes(createApp({ observability: { metrics: { enabled: true, serviceName: 'bench', port: 0, host: '127.0.0.1' } } }));
const { port } = await app.listen(0, '127.0.0.1');

// Self-check: a request to /json is counted, under its route template, on the admin port.
await (await fetch(`http://127.0.0.1:${port}/json`)).text();
const scrapeUrl = app.getPlugin('metrics').address.url;
const text = await (await fetch(scrapeUrl)).text();
if (!/^http_server_request_duration_seconds_count\{[^}]*http_route="\/json"[^}]*\} 1$/m.test(text)) {
  throw new Error(`metrics self-check: no count for /json in ${scrapeUrl}:\n${text.slice(0, 2000)}`);
}
console.error(`[fw-metrics] self-check: /json counted at ${scrapeUrl}`);
announce(port, CORE_SCENARIOS);
