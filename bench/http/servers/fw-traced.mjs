// Tracing suite (issue 7), fw with tracing on: createApp({ observability: { tracing } }) with the
// OpenTelemetry SDK that @fw/tracing starts itself (a BatchSpanProcessor, since the exporter is an
// object) exporting to a no-op exporter; the same routes as servers/fw.mjs.
import { createApp } from '@fw/app';
import { noopExporter, selfCheck } from './otel-noop.mjs';
import { announce } from './ready.mjs';
import { CORE_SCENARIOS, fwCoreRoutes } from './routes.mjs';

const exporter = noopExporter();
const app = fwCoreRoutes(createApp({ observability: { tracing: { enabled: true, serviceName: 'bench', exporter } } }));
const { port } = await app.listen(0, '127.0.0.1');

const { names, headers } = await selfCheck(`http://127.0.0.1:${port}/json`, exporter, (n) => n.includes('GET /json'));
if (!/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/.test(headers.get('traceparent') ?? '')) throw new Error('tracing self-check: no traceparent response header');
console.error(`[fw-traced] self-check: spans ${names}; traceparent returned`);
announce(port, CORE_SCENARIOS);
