// `metricsPlugin` is this package's own function, and loads its implementation on its first call:
// importing @fw/metrics, as @fw/app's root does for every app, compiles none of the plugin's code,
// so an app without metrics never pays for it.
import type * as Implementation from './internal/implementation.js';
import type { MetricsPlugin } from './plugin.js';
import type { MetricsConfig } from './types.js';

let implementation: typeof Implementation | undefined;
// eslint-disable-next-line @typescript-eslint/no-require-imports -- synchronous on purpose: createApp and plugin factories are synchronous
const load = (): typeof Implementation => (implementation ??= require('./internal/implementation.js') as typeof Implementation);

/**
 * Measures every request, GraphQL operation and gRPC call of an application with OpenTelemetry's
 * metric names and units, and serves them as Prometheus text (`GET /metrics` on the app's port, or
 * on an admin `port`) and/or pushes them over OTLP. Attributes are bounded by construction.
 * @example
 * const app = new Application();
 * app.register(metricsPlugin({ serviceName: 'users-api' }));
 * app.get('/users/:id', (ctx) => ctx.json({ id: ctx.params.id }));
 * await app.listen(3000); // GET /metrics: http_server_request_duration_seconds{http_route="/users/:id",...}
 */
export function metricsPlugin(config: MetricsConfig = {}): MetricsPlugin {
  return load().metricsPlugin(config);
}
