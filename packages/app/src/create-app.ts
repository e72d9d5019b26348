import { Application, type ApplicationConfig } from '@fw/core';
import { graphqlPlugin, validateGraphQLConfig, type GraphQLConfig } from '@fw/graphql';
import { grpcPlugin, validateGrpcConfig, GRPC_ADAPTER, type GrpcConfig } from '@fw/grpc';
import { tracingPlugin, type TracingConfig } from '@fw/tracing';
import { checkOptions } from './internal/check-options.js';
import { ProtocolManager } from './protocol-manager.js';

/** Which protocols the application serves besides REST. */
export interface ProtocolManagerConfig {
  /** The GraphQL endpoint. `true` alone is an error: a schema is required. */
  graphql?: GraphQLConfig | boolean;
  /** The gRPC server (needs `adapter.type` `node-http`). `true` alone is an error: services are required. */
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
 * services or on another adapter) throw here.
 * @example
 * const app = createApp({ protocols: { graphql: { schema } } });
 * app.get('/hello', (ctx) => ctx.json({ hello: 'world' }));
 * await app.listen(3000);
 */
export function createApp(options: AppOptions = {}): App {
  checkOptions(options);
  const { adapter, protocols = {}, observability, ...config } = options;
  if (adapter !== undefined && (adapter === null || typeof adapter !== 'object' || typeof adapter.type !== 'string')) {
    throw new TypeError(`createApp: adapter must be an object with a string "type" (e.g. { type: "${GRPC_ADAPTER}" })`);
  }
  const adapterType = adapter?.type ?? GRPC_ADAPTER;
  const { graphql, grpc } = protocols;
  // gRPC's own message names the adapter rule, so it is checked before the generic adapter check.
  if (grpc !== undefined && grpc !== false) validateGrpcConfig(grpc, adapterType);
  if (adapterType !== GRPC_ADAPTER) {
    throw new TypeError(`createApp: unknown adapter type "${adapterType}"; the only adapter is "${GRPC_ADAPTER}"`);
  }
  if (graphql !== undefined && graphql !== false) validateGraphQLConfig(graphql);

  const app = new Application(config) as App;
  // Tracing first: its wrapper must be the outermost, around every other plugin's work.
  const tracing = observability?.tracing;
  if (tracing !== undefined && tracing.enabled) app.register(tracingPlugin(tracing));
  // The app's log destination is the plugins' too, unless a plugin was given its own.
  const withLog = <T extends { onLog?: unknown }>(pluginConfig: T): T =>
    config.onLog !== undefined && pluginConfig.onLog === undefined ? { ...pluginConfig, onLog: config.onLog } : pluginConfig;
  const graphqlInstance = graphql !== undefined && graphql !== false ? graphqlPlugin(withLog(graphql)) : undefined;
  const grpcInstance = grpc !== undefined && grpc !== false ? grpcPlugin(withLog(grpc as GrpcConfig)) : undefined;
  if (graphqlInstance) app.register(graphqlInstance);
  if (grpcInstance) app.register(grpcInstance);
  const manager = graphqlInstance || grpcInstance ? new ProtocolManager(graphqlInstance, grpcInstance) : undefined;
  app.getProtocolManager = () => manager;
  return app;
}
