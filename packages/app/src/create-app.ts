import { Application, type ApplicationConfig } from '@fw/core';
import type { GraphQLConfig } from '@fw/graphql';
import type { GrpcConfig } from '@fw/grpc';
import type { TracingConfig } from '@fw/tracing';
import { checkOptions } from './internal/check-options.js';
import { loadGraphQL, loadGrpc, loadTracing, NODE_HTTP_ADAPTER, type GraphQLModule, type GrpcModule } from './internal/optional.js';
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

/** Options of `createApp`: the application's fields plus the core server settings. */
export interface AppOptions extends ApplicationConfig {
  /** Enables GraphQL and/or gRPC. */
  protocols?: ProtocolManagerConfig;
  /** The HTTP adapter; `node-http` is the only one, and gRPC requires it. @default { type: 'node-http' } */
  adapter?: { type: string };
  /** Observability: `tracing` turns OpenTelemetry spans on for REST, GraphQL and gRPC. */
  observability?: { tracing?: TracingOptions };
}

/** The application object `createApp` returns. */
export interface App extends Application {
  /** The protocol manager, or undefined when no protocols are configured. */
  getProtocolManager(): ProtocolManager | undefined;
}

/**
 * Creates an application serving REST, and GraphQL and gRPC when configured. Configuration errors
 * (an unknown option such as `port` or `cors`, a GraphQL config without a schema, gRPC without
 * services or on another adapter) throw here. `@fw/graphql`, `@fw/grpc` and `@fw/tracing` (and the
 * libraries under them) are loaded only when the options ask for them; when one is not installed,
 * the error names the packages to install.
 * @example
 * const app = createApp({ protocols: { graphql: { schema } } });
 * app.get('/hello', (ctx) => ctx.json({ hello: 'world' }));
 * await app.listen(3000);
 */
export function createApp(options: AppOptions = {}): App {
  checkOptions(options);
  const { adapter, protocols = {}, observability, ...config } = options;
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

  const app = new Application(config) as App;
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
  app.getProtocolManager = () => manager;
  return app;
}
