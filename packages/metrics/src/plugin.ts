import { createContextKey, isHttpContext, type Context, type Next, type RequestContext } from '@fw/core';
import { observeOperations, type OperationObserver, type Plugin, type PluginHost } from '@fw/core/plugin';
import type { MeterProvider } from '@opentelemetry/api';
import { AdminServer, PROMETHEUS_CONTENT_TYPE } from './internal/admin-server.js';
import { validateMetricsConfig } from './internal/options.js';
import { methodName, Recorder } from './internal/recorder.js';
import { startSdk, type MetricsSdk } from './internal/sdk.js';
import { VERSION } from './internal/version.js';
import { METER_NAME } from './semconv.js';
import type { MetricsAddress, MetricsConfig } from './types.js';

/** When an HTTP request that arrived before the SDK had started began (`performance.now()`). */
const EARLY = createContextKey<number>('fw.metrics.early');

/** The plugin `metricsPlugin()` returns. */
export interface MetricsPlugin extends Plugin {
  readonly name: 'metrics';
  /** Whether requests are measured (`config.enabled`). */
  readonly enabled: boolean;
  /** The path the Prometheus text is served on, or undefined when none is. */
  readonly path: string | undefined;
  /** Where the admin server (`port`) listens, once the app listens; undefined without `port`. */
  readonly address: MetricsAddress | undefined;
  /** The SDK's meter provider once started: create your own instruments on it, and they are exported with fw's. */
  readonly meterProvider: MeterProvider | undefined;
  /** Starts the SDK now (done on `listen()` and on the first request anyway). */
  start(): Promise<void>;
  /** The Prometheus text of the metrics now (what `GET /metrics` answers). */
  scrape(): Promise<string>;
  /** Pushes pending OTLP metrics and stops the SDK (done on `app.close()`, after the drain). */
  shutdown(): Promise<void>;
}

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
  validateMetricsConfig(config);
  const enabled = config.enabled ?? true;
  const path = config.path === false ? undefined : (config.path ?? '/metrics');
  let host: PluginHost | undefined;
  let sdk: MetricsSdk | undefined;
  let recorder: Recorder | undefined;
  let starting: Promise<void> | undefined;
  let admin: AdminServer | undefined;
  let address: MetricsAddress | undefined;
  const ignore = config.ignore;

  const start = (): Promise<void> => {
    if (!enabled || sdk !== undefined) return Promise.resolve();
    starting ??= startSdk(config, methodName).then(
      (started) => {
        sdk = started;
        const meter = started.provider.getMeter(METER_NAME, VERSION);
        recorder = new Recorder(meter, started.httpDuration, () => host?.operations() ?? []);
        starting = undefined;
      },
      (err: unknown) => {
        starting = undefined;
        throw err;
      },
    );
    return starting;
  };

  const scrape = async (): Promise<string> => {
    await start();
    if (sdk?.scrape === undefined) throw new Error('@fw/metrics: no Prometheus text is served (path: false)');
    return sdk.scrape();
  };

  const ignored = (ctx: RequestContext): boolean => ctx.path === path || (ignore !== undefined && ignore(ctx));
  // Each operation call that ran, told by core when it ends: counted by its definition's name.
  const countOperation: OperationObserver = (op, ctx, failed, error) => {
    const rec = recorder;
    if (rec !== undefined) return rec.countOperation(op, ctx, failed, error);
    void start().then(() => recorder?.countOperation(op, ctx, failed, error), () => undefined);
  };
  // Calls of the other protocols (gRPC) are measured by a wrapper around each call.
  const middleware = (ctx: RequestContext, next: Next): Promise<void> => {
    if (ignored(ctx)) return next();
    observeOperations(ctx, countOperation);
    // A protocol served on the HTTP port runs the wrappers on an HTTP context once per connection
    // (a GraphQL WebSocket): its operations are counted, the connection is no call to time.
    if (isHttpContext(ctx)) return next();
    const rec = recorder;
    if (rec === undefined) return start().then(() => (recorder === undefined ? next() : recorder.measure(ctx, next)));
    return rec.measure(ctx, next);
  };
  // HTTP requests by the request and response hooks, which add no step to their chain. The SDK
  // starts with listen(): a request before it (app.inject() on an app that never listened) starts
  // it, and is recorded once it has started.
  const startHttp = (ctx: Context): void => {
    if (ignored(ctx)) return;
    observeOperations(ctx, countOperation);
    const rec = recorder;
    if (rec !== undefined) return rec.startHttp(ctx);
    ctx.set(EARLY, performance.now());
    void start().catch((err: unknown) => host?.log('@fw/metrics: the OpenTelemetry metrics SDK did not start', err));
  };
  const endHttp = (ctx: Context, status: number): void => {
    const rec = recorder;
    const early = ctx.get(EARLY);
    if (early === undefined) return rec?.endHttp(ctx, status);
    const seconds = (performance.now() - early) / 1000;
    void start().then(() => recorder?.recordHttp(ctx, status, seconds), () => undefined);
  };

  // The scrape endpoint on the app's port: answered by its guard, so the app's global middleware
  // (logging, rate limits, authentication) never runs for it.
  const answerScrape = async (ctx: Context): Promise<void> => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.setHeader('allow', 'GET, HEAD');
      ctx.text('Method Not Allowed\n', 405);
      return;
    }
    const text = await scrape();
    ctx.setHeader('content-type', PROMETHEUS_CONTENT_TYPE);
    ctx.text(text, 200);
  };

  const plugin: MetricsPlugin = {
    name: 'metrics',
    enabled,
    path,
    get address() {
      return address;
    },
    get meterProvider() {
      return sdk?.provider;
    },
    setup(appHost: PluginHost) {
      // Disabled: nothing is registered, so requests pay nothing.
      if (!enabled) return;
      if (host !== undefined) throw new Error('@fw/metrics: a metricsPlugin() instance can be registered with one application only');
      host = appHost;
      appHost.wrap(middleware, { http: false });
      appHost.onRequest(startHttp);
      appHost.onResponse(endHttp);
      if (path !== undefined && config.port === undefined) {
        appHost.claimPath(path, answerScrape, { guard: (ctx: Context) => answerScrape(ctx) });
      }
      appHost.onListen(async () => {
        await start();
        if (path !== undefined && config.port !== undefined) {
          admin = new AdminServer(path, scrape, (message, error) => appHost.log(message, error));
          address = await admin.listen(config.port, config.host ?? '0.0.0.0');
        }
      });
      // After the drain: the last requests are counted and a final scrape or push sees them.
      appHost.onClosed(() => plugin.shutdown());
    },
    start,
    scrape,
    async shutdown() {
      const server = admin;
      admin = undefined;
      address = undefined;
      if (starting !== undefined) await starting.catch(() => undefined);
      const started = sdk;
      sdk = undefined;
      recorder = undefined;
      await server?.close();
      const failure = await started?.shutdown();
      // Warned, not thrown: the app is closing either way, and what was not pushed is lost.
      if (failure !== undefined) host?.log(`@fw/metrics: the last metrics could not be pushed over OTLP when the app closed: ${failure.message}`);
    },
  };
  return plugin;
}
