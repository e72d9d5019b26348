// Tracing suite (issue 7), Fastify traced the way OpenTelemetry documents it: the Node SDK
// (@opentelemetry/sdk-node, same version @fw/tracing starts) with @opentelemetry/instrumentation-http
// and @opentelemetry/instrumentation-fastify, a BatchSpanProcessor and the same no-op exporter,
// metrics and logs off as in fw. The same routes as servers/fastify.mjs. Fastify is loaded with
// require() after sdk.start(), so the instrumentations' require hooks see it.
import { createRequire } from 'node:module';
import { FastifyInstrumentation } from '@opentelemetry/instrumentation-fastify';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { noopExporter, selfCheck } from './otel-noop.mjs';
import { announce } from './ready.mjs';
import { CORE_SCENARIOS, fastifyCoreRoutes } from './routes.mjs';

const exporter = noopExporter();
const sdk = new NodeSDK({
  serviceName: 'bench',
  spanProcessors: [new BatchSpanProcessor(exporter)],
  instrumentations: [new HttpInstrumentation(), new FastifyInstrumentation()],
  metricReaders: [],
  logRecordProcessors: [],
});
sdk.start();

const Fastify = createRequire(import.meta.url)('fastify');
const app = fastifyCoreRoutes(Fastify());
await app.listen({ port: 0, host: '127.0.0.1' });
const port = app.server.address().port;

const { names } = await selfCheck(`http://127.0.0.1:${port}/json`, exporter, (n) => n.includes('GET /json') && n.some((x) => /fastify/i.test(x)));
console.error(`[fastify-otel] self-check: spans ${names}`);
announce(port, CORE_SCENARIOS);
