import { Application, type ApplicationConfig, type ErrorHandler, type Middleware } from '@fw/core';
import type { GraphQLConfig } from '@fw/graphql';
import type { GrpcConfig } from '@fw/grpc';
import type { CorsConfig } from '@fw/middleware';
import type { TracingConfig } from '@fw/tracing';
import { checkOptions } from './internal/check-options.js';
import { loadGraphQL, loadGrpc, loadMiddleware, loadTracing, NODE_HTTP_ADAPTER, type GraphQLModule, type GrpcModule } from './internal/optional.js';
import { ProtocolManager } from './protocol-manager.js';

/** Which protocols the application serves besides REST. */
export interface ProtocolManagerConfig {
  /** The GraphQL endpoint. `true`: served from the app's operations alone (the schema is generated). */
  graphql?: GraphQLConfig | boolean;
  /** The gRPC server (needs `adapter.type` `node-http`). `true`: served from the app's operations alone (the .proto is generated). */
  grpc?: GrpcConfig | boolean;
}

/** Tracing options: `enabled` and `serviceName`, plus the exporter settings of `@fw/tracing`. */
export interface TracingOptions extends TracingConfig {
  /** Whether requests of every protocol are traced. */
  enabled: boolean;
  /** The `service.name` of the spans. */
  serviceName: string;
}

/** Options of `createApp`: the application's fields plus the core server settings (`port` and `host` among them). */
export interface AppOptions extends ApplicationConfig {
  /** Enables GraphQL and/or gRPC. */
  protocols?: ProtocolManagerConfig;
  /** The HTTP adapter; `node-http` is the only one, and gRPC requires it. @default { type: 'node-http' } */
  adapter?: { type: string };
  /** Observability: `tracing` turns OpenTelemetry spans on for REST, GraphQL and gRPC. */
  observability?: { tracing?: TracingOptions };
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
}

/** The application `createApp` makes: core's, with the protocol manager of its options. */
class FwApplication extends Application implements App {
  #manager: ProtocolManager | undefined;

  /** Set once, by `createApp`, after the protocol plugins are registered. */
  attachProtocolManager(manager: ProtocolManager | undefined): void {
    this.#manager = manager;
  }

  getProtocolManager(): ProtocolManager | undefined {
    return this.#manager;
  }
}

/**
 * Creates an application serving REST, and GraphQL and gRPC when configured. Configuration errors
 * (an unknown or misspelt option at any level, a value of the wrong type, a GraphQL config without
 * a schema, gRPC on another adapter) throw here. `@fw/graphql`, `@fw/grpc` and `@fw/tracing` (and the
 * libraries under them) are loaded only when the options ask for them; when one is not installed,
 * the error names the packages to install.
 * @example
 * const app = createApp({ port: 3000, cors: true, middleware: [logger()], protocols: { graphql: { schema } } });
 * app.get('/hello', (ctx) => ctx.json({ hello: 'world' }));
 * await app.listen();
 */
export function createApp(options: AppOptions = {}): App {
  checkOptions(options);
  const { adapter, protocols = {}, observability, cors, middleware = [], onError, onNotFound, ...config } = options;
  if (adapter !== undefined && (adapter === null || typeof adapter !== 'object' || typeof adapter.type !== 'string')) {
    throw new TypeError(`createApp: adapter must be an object with a string "type" (e.g. { type: "${NODE_HTTP_ADAPTER}" })`);
  }
  const adapterType = adapter?.type ?? NODE_HTTP_ADAPTER;
  const { graphql, grpc } = protocols;
  const grpcModule: GrpcModule | undefined = grpc !== undefined && grpc !== false ? loadGrpc() : undefined;
  // gRPC's own message names the adapter rule, so it is checked before the generic adapter check.
  if (grpcModule) grpcModule.validateGrpcConfig(grpc, adapterType);
  if (adapterType !== NODE_HTTP_ADAPTER) {
    throw new TypeError(`createApp: unknown adapter type "${adapterType}"; the only adapter is "${NODE_HTTP_ADAPTER}"`);
  }
  const graphqlModule: GraphQLModule | undefined = graphql !== undefined && graphql !== false ? loadGraphQL() : undefined;
  if (graphqlModule) {
    // Typed explicitly: TypeScript calls an assertion function only through a declared type.
    const validateGraphQLConfig: GraphQLModule['validateGraphQLConfig'] = graphqlModule.validateGraphQLConfig;
    validateGraphQLConfig(graphql);
  }

  const app = new FwApplication(config);
  // cors first: a preflight is answered, and an error answer carries its headers, whatever the
  // middleware after it does.
  if (cors !== undefined && cors !== false) app.use(loadMiddleware().cors(cors === true ? {} : cors));
  for (const mw of middleware) app.use(mw);
  if (onError !== undefined) app.onError(onError);
  if (onNotFound !== undefined) app.notFound(onNotFound);
  // Tracing first: its wrapper must be the outermost, around every other plugin's work.
  const tracing = observability?.tracing;
  if (tracing !== undefined && tracing.enabled) app.register(loadTracing().tracingPlugin(tracing));
  // The app's log destination is the plugins' too, unless a plugin was given its own.
  const withLog = <T extends { onLog?: unknown }>(pluginConfig: T): T =>
    config.onLog !== undefined && pluginConfig.onLog === undefined ? { ...pluginConfig, onLog: config.onLog } : pluginConfig;
  // `true`: served from the app's operations alone (a generated schema, generated .proto files).
  const graphqlInstance = graphqlModule?.graphqlPlugin(withLog(graphql === true ? {} : (graphql as GraphQLConfig)));
  const grpcInstance = grpcModule?.grpcPlugin(withLog(grpc === true ? {} : (grpc as GrpcConfig)));
  if (graphqlInstance) app.register(graphqlInstance);
  if (grpcInstance) app.register(grpcInstance);
  const manager = graphqlInstance || grpcInstance ? new ProtocolManager(graphqlInstance, grpcInstance, app) : undefined;
  app.attachProtocolManager(manager);
  return app;
}
