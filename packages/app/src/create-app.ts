import { Application, type ApplicationConfig, type ErrorHandler, type Middleware, type RequestContext } from '@fw/core';
import type { Plugin } from '@fw/core/plugin';
import { CONNECT_CORS_ALLOWED_HEADERS, CONNECT_CORS_EXPOSED_HEADERS, connectPlugin, type ConnectConfig } from '@fw/connect';
import { graphqlPlugin, validateGraphQLConfig, type GraphQLConfig } from '@fw/graphql';
import { grpcPlugin, validateGrpcConfig, type GrpcConfig } from '@fw/grpc';
import { metricsPlugin, type MetricsConfig } from '@fw/metrics';
import { cors as corsMiddleware, DEFAULT_CORS_ALLOWED_HEADERS, type CorsConfig } from '@fw/middleware';
import { tracingPlugin, type TracingConfig } from '@fw/tracing';
import { checkOptions } from './internal/check-options.js';
import { CONNECT, GRAPHQL, GRPC, METRICS, NODE_HTTP_ADAPTER, TRACING, withOptional } from './internal/optional.js';
import { HealthPlugin, type AppHealth, type HealthOptions } from './production/health.js';
import { SHUTDOWN_DEFAULTS, shutdownDelay, watchSignals, type ShutdownOptions } from './production/signals.js';
import { ProtocolManager } from './protocol-manager.js';

export type { AppHealth, HealthCheck, HealthOptions, ReadinessReport } from './production/health.js';
export type { ShutdownOptions } from './production/signals.js';

/** Which protocols the application serves besides REST. */
export interface ProtocolManagerConfig {
  /** The GraphQL endpoint. `true`: served from the app's operations alone (the schema is generated). */
  graphql?: GraphQLConfig | boolean;
  /** The gRPC server (needs `adapter.type` `node-http`). `true`: served from the app's operations alone (the .proto is generated). */
  grpc?: GrpcConfig | boolean;
  /**
   * Connect and gRPC-Web on the HTTP port, for every operation with a `grpc` binding and the unary
   * and server-streaming methods of `grpc.services`, at `POST /<package>.<Service>/<Method>` (see
   * `@fw/connect`). `true`: the defaults, with the field numbers of `grpc.protoOut` when it is set.
   */
  connect?: ConnectConfig | boolean;
}

/** Tracing options: `enabled` and `serviceName`, plus the exporter settings of `@fw/tracing`. */
export interface TracingOptions extends TracingConfig {
  /** Whether requests of every protocol are traced. */
  enabled: boolean;
  /** The `service.name` of the spans. */
  serviceName: string;
}

/** Metrics options: `enabled`, plus the settings of `@fw/metrics` (`path`, `port`, `otlp`, ...). */
export interface MetricsOptions extends MetricsConfig {
  /** Whether requests of every protocol are measured (Prometheus text at `GET /metrics` by default). */
  enabled: boolean;
}

/** Options of `createApp`: the application's fields plus the core server settings (`port` and `host` among them). */
export interface AppOptions extends ApplicationConfig {
  /** Enables GraphQL and/or gRPC. */
  protocols?: ProtocolManagerConfig;
  /** The HTTP adapter; `node-http` is the only one, and gRPC requires it. @default { type: 'node-http' } */
  adapter?: { type: string };
  /** Observability: `tracing` turns OpenTelemetry spans on for REST, GraphQL and gRPC, `metrics` OpenTelemetry metrics. */
  observability?: { tracing?: TracingOptions; metrics?: MetricsOptions };
  /** Liveness and readiness (`GET /livez`, `GET /readyz`, shared with the gRPC health service); false serves neither. @default {} (both on) */
  health?: HealthOptions | false;
  /** What SIGTERM and SIGINT do once the app listens: not ready, a delay, the drain, the flush, exit 0; false installs no signal handler. @default {} (on) */
  shutdown?: ShutdownOptions | false;
  /** `true` or a `CorsConfig`: installs `cors()` (from `@fw/middleware`) before any other middleware. @default false */
  cors?: boolean | CorsConfig;
  /** Global middleware, installed in order after `cors` (as `app.use(mw)` for each). @default [] */
  middleware?: Middleware[];
  /** The error handler, as `app.onError(handler)`. @default core's (the error body, 500 for unknown errors) */
  onError?: ErrorHandler;
  /** The handler for requests no route matches, as `app.notFound(handler)`. @default core's 404 */
  onNotFound?: Middleware;
}

/** The application object `createApp` returns. */
export interface App extends Application {
  /** The protocol manager, or undefined when no protocols are configured. */
  getProtocolManager(): ProtocolManager | undefined;
  /** The health state behind `/livez`, `/readyz` and the gRPC health service; undefined with `health: false`. */
  readonly health: AppHealth | undefined;
  /**
   * Shuts down in the order load balancers need: not ready (readiness 503, gRPC NOT_SERVING), then
   * `delay` ms of serving as usual while they notice, then `close()` (the drain, the gRPC server,
   * the telemetry flush). What a termination signal does, without exiting.
   */
  shutdown(options?: { delay?: number }): Promise<void>;
}

/** The application `createApp` makes: core's, with the protocol manager, health and shutdown of its options. */
class FwApplication extends Application implements App {
  #manager: ProtocolManager | undefined;
  #health: HealthPlugin | undefined;
  #shutdownDelay: number = SHUTDOWN_DEFAULTS.delay;
  #shuttingDown: Promise<void> | undefined;

  /** Set once, by `createApp`, after the protocol plugins are registered. */
  attachProtocolManager(manager: ProtocolManager | undefined): void {
    this.#manager = manager;
  }

  /** Set once, by `createApp`. */
  attachProduction(health: HealthPlugin | undefined, shutdownDelay: number): void {
    this.#health = health;
    this.#shutdownDelay = shutdownDelay;
  }

  getProtocolManager(): ProtocolManager | undefined {
    return this.#manager;
  }

  get health(): AppHealth | undefined {
    return this.#health;
  }

  shutdown(options: { delay?: number } = {}): Promise<void> {
    this.#shuttingDown ??= (async () => {
      try {
        this.#health?.beginShutdown();
        const delay = options.delay ?? this.#shutdownDelay;
        // Not listening: nobody routes requests here, so there is nothing to wait for.
        if (delay > 0 && this.server !== undefined) await new Promise((resolve) => setTimeout(resolve, delay));
        await this.close();
      } finally {
        this.#shuttingDown = undefined;
      }
    })();
    return this.#shuttingDown;
  }
}

/**
 * Creates an application serving REST, and GraphQL and gRPC when configured. Configuration errors
 * (an unknown or misspelt option at any level, a value of the wrong type, a GraphQL config without
 * a schema, gRPC on another adapter) throw here. graphql, the gRPC libraries and OpenTelemetry are
 * loaded only when the options ask for them; when one is not installed, the error names the
 * packages to install.
 * @example
 * const app = createApp({ port: 3000, cors: true, middleware: [logger()], protocols: { graphql: { schema } } });
 * app.get('/hello', (ctx) => ctx.json({ hello: 'world' }));
 * await app.listen();
 */
export function createApp(options: AppOptions = {}): App {
  checkOptions(options);
  const { adapter, protocols = {}, observability, cors, middleware = [], onError, onNotFound, health, shutdown, ...config } = options;
  if (adapter !== undefined && (adapter === null || typeof adapter !== 'object' || typeof adapter.type !== 'string')) {
    throw new TypeError(`createApp: adapter must be an object with a string "type" (e.g. { type: "${NODE_HTTP_ADAPTER}" })`);
  }
  const adapterType = adapter?.type ?? NODE_HTTP_ADAPTER;
  const { graphql, grpc, connect } = protocols;
  const grpcOn = grpc !== undefined && grpc !== false;
  const connectOn = connect !== undefined && connect !== false;
  const graphqlOn = graphql !== undefined && graphql !== false;
  // gRPC's own message names the adapter rule, so it is checked before the generic adapter check.
  if (grpcOn) withOptional(GRPC, () => validateGrpcConfig(grpc, adapterType));
  if (adapterType !== NODE_HTTP_ADAPTER) {
    throw new TypeError(`createApp: unknown adapter type "${adapterType}"; the only adapter is "${NODE_HTTP_ADAPTER}"`);
  }
  if (graphqlOn) withOptional(GRAPHQL, () => validateGraphQLConfig(graphql));

  const app = new FwApplication(config);
  // cors first: a preflight is answered, and an error answer carries its headers, whatever the
  // middleware after it does.
  if (cors !== undefined && cors !== false) app.use(corsMiddleware(connectOn ? withConnectHeaders(cors) : cors === true ? {} : cors));
  for (const mw of middleware) app.use(mw);
  if (onError !== undefined) app.onError(onError);
  if (onNotFound !== undefined) app.notFound(onNotFound);
  // The health endpoints are answered before everything else and are neither traced nor measured.
  const healthPlugin = health === false ? undefined : new HealthPlugin(health ?? {});
  const unobserved = new Set(healthPlugin?.paths ?? []);
  const withoutHealth = <T extends { ignore?: (ctx: RequestContext) => boolean }>(observed: T): T => {
    if (unobserved.size === 0) return observed;
    const ignore = observed.ignore;
    return { ...observed, ignore: (ctx: RequestContext) => unobserved.has(ctx.path) || (ignore !== undefined && ignore(ctx)) };
  };
  // Tracing first: its wrapper must be the outermost, around every other plugin's work.
  const tracing = observability?.tracing;
  if (tracing !== undefined && tracing.enabled) app.register(withOptional(TRACING, () => tracingPlugin(withoutHealth(tracing))));
  const metrics = observability?.metrics;
  if (metrics !== undefined && metrics.enabled) app.register(withOptional(METRICS, () => metricsPlugin(withoutHealth(metrics))));
  // The app's log destination is the plugins' too, unless a plugin was given its own.
  const withLog = <T extends { onLog?: unknown }>(pluginConfig: T): T =>
    config.onLog !== undefined && pluginConfig.onLog === undefined ? { ...pluginConfig, onLog: config.onLog } : pluginConfig;
  // `true`: served from the app's operations alone (a generated schema, generated .proto files).
  const graphqlInstance = graphqlOn ? withOptional(GRAPHQL, () => graphqlPlugin(withLog(graphql === true ? {} : graphql))) : undefined;
  const grpcInstance = grpcOn ? withOptional(GRPC, () => grpcPlugin(withLog(grpc === true ? {} : grpc))) : undefined;
  if (graphqlInstance) app.register(graphqlInstance);
  if (grpcInstance) app.register(grpcInstance);
  if (connectOn) {
    const own: ConnectConfig = connect === true ? {} : connect;
    // The numbers of the gRPC port's committed files: one operation, one message layout on both.
    const protoOut = own.protoOut ?? (grpcOn && grpc !== true ? grpc.protoOut : undefined);
    const served: ConnectConfig = { ...own, ...(protoOut === undefined ? {} : { protoOut }) };
    // The gRPC port's hand-written services are served over Connect too (unless Connect names its own).
    if (own.services === undefined && grpcOn && grpc !== true && grpc.services !== undefined) {
      const { services, protoPath, packageDefinition, loaderOptions, middleware } = grpc;
      Object.assign(served, { services }, protoPath === undefined ? {} : { protoPath }, packageDefinition === undefined ? {} : { packageDefinition });
      if (loaderOptions !== undefined) served.loaderOptions = loaderOptions;
      if (middleware !== undefined) served.middleware = middleware;
    }
    app.register(withOptional(CONNECT, () => connectPlugin(withLog(served))));
  }
  const manager = graphqlInstance || grpcInstance || connectOn ? new ProtocolManager(graphqlInstance, grpcInstance, app, connectOn) : undefined;
  app.attachProtocolManager(manager);
  // Registered after the protocols: its listen hook (ready) runs once the gRPC server is up too.
  if (healthPlugin !== undefined) {
    // One readiness state: the gRPC health service's whole-server status follows it.
    if (grpcInstance !== undefined && (grpc === true || (grpc as GrpcConfig).health !== false)) healthPlugin.connectGrpc(grpcInstance);
    app.register(healthPlugin);
  }
  const shutdownOptions = shutdown === false ? undefined : (shutdown ?? {});
  app.attachProduction(healthPlugin, shutdownOptions?.delay ?? SHUTDOWN_DEFAULTS.delay);
  if (shutdownOptions !== undefined) app.register(signalsPlugin(app, shutdownOptions));
  return app;
}

/**
 * `cors` with the headers Connect and gRPC-Web clients send and read added to the lists it would
 * use (the defaults, or the ones given), so that a browser's preflight admits them.
 */
function withConnectHeaders(cors: true | CorsConfig): CorsConfig {
  const config = cors === true ? {} : cors;
  const allowed = config.allowedHeaders ?? DEFAULT_CORS_ALLOWED_HEADERS;
  const exposed = config.exposedHeaders ?? [];
  const missing = (list: readonly string[], add: readonly string[]): string[] => add.filter((name) => !list.some((have) => have.toLowerCase() === name.toLowerCase()));
  return { ...config, allowedHeaders: [...allowed, ...missing(allowed, CONNECT_CORS_ALLOWED_HEADERS)], exposedHeaders: [...exposed, ...missing(exposed, CONNECT_CORS_EXPOSED_HEADERS)] };
}

/** Watches the termination signals while the app listens: `shutdown()` in order, then exit. */
function signalsPlugin(app: FwApplication, options: ShutdownOptions): Plugin {
  let unwatch: (() => void) | undefined;
  return {
    name: 'shutdown-signals',
    setup(host) {
      host.onListen(() => {
        // Under fw start, Ctrl+C reaches every process of the terminal's group: the primary answers
        // it (SIGTERM to each worker) and says what happens, once. Taken here as well, the primary's
        // SIGTERM would be a second signal, which exits at once without the drain.
        const worker = process.env.FW_START_WORKER === '1';
        const signals = options.signals ?? SHUTDOWN_DEFAULTS.signals;
        unwatch = watchSignals(
          {
            shutdown: (delay) => app.shutdown({ delay }),
            beforeExit: options.beforeExit,
            log: (message, error) => host.log(message, error),
            delayOn: (signal) => shutdownDelay(signal, options.delay),
            quiet: worker,
          },
          worker ? signals.filter((signal) => signal !== 'SIGINT') : signals,
        );
      });
      host.onClosed(() => {
        unwatch?.();
        unwatch = undefined;
      });
    },
  };
}
