// `tracingPlugin` is this package's own function, and loads its implementation (and
// @opentelemetry/api with it) on its first call: importing @fw/tracing, as @fw/app's root does for
// every app, loads no OpenTelemetry package, so an app without tracing never pays for one.
import type * as Implementation from './internal/implementation.js';
import type { TracingPlugin } from './plugin.js';
import type { TracingConfig } from './types.js';

let implementation: typeof Implementation | undefined;
// eslint-disable-next-line @typescript-eslint/no-require-imports -- synchronous on purpose: createApp and plugin factories are synchronous
const load = (): typeof Implementation => (implementation ??= require('./internal/implementation.js') as typeof Implementation);

/**
 * Traces every request, GraphQL operation and gRPC call of an application with OpenTelemetry:
 * one SERVER span each, W3C `traceparent` in and out, and the context's tracing helpers.
 * @example
 * const app = new Application();
 * app.register(tracingPlugin({ serviceName: 'users-api', exporter: 'console' }));
 * app.get('/users/:id', (ctx) => {
 *   ctx.addEvent?.('lookup');
 *   ctx.json({ id: ctx.params.id, traceId: ctx.trace?.traceId });
 * });
 * await app.listen(3000);
 */
export function tracingPlugin(config: TracingConfig = {}): TracingPlugin {
  return load().tracingPlugin(config);
}
