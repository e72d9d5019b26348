import { Server, ServerCredentials, type ChannelOptions, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';
import type { AnyMiddleware, Application, Plugin } from '@fw/core';
import { resolveGrpcConfig, type ResolvedGrpcConfig } from './internal/config.js';
import { HealthService, healthProtoPath } from './internal/health.js';
import { CallRunner } from './internal/runner.js';
import type { GrpcAddress, GrpcConfig, GrpcMiddleware, GrpcServingStatus } from './types.js';

/** The gRPC plugin: register it on an application; it serves while the app listens. */
export interface GrpcPlugin extends Plugin {
  /** Always `'grpc'`. */
  readonly name: 'grpc';
  /** Where the gRPC server listens, once `app.listen()` has resolved; undefined otherwise. */
  readonly address: GrpcAddress | undefined;
  /** The running grpc-js server, once listening. */
  readonly server: Server | undefined;
  /** Sets what the health service reports for `service` ('' is the whole server). Throws when health is off. */
  setServingStatus(service: string, status: GrpcServingStatus): void;
}

function bindAddress(host: string, port: number): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`;
}

function dialTarget(host: string, port: number): string {
  if (host === '0.0.0.0' || host === '::' || host === '[::]') return `localhost:${port}`;
  return bindAddress(host, port);
}

class GrpcServerPlugin implements GrpcPlugin {
  readonly name = 'grpc' as const;
  private app: Application | undefined;
  private running: { server: Server; address: GrpcAddress; health: HealthService | undefined } | undefined;
  private starting: Server | undefined;
  private readonly statusOverrides = new Map<string, GrpcServingStatus>();

  constructor(private readonly config: ResolvedGrpcConfig) {}

  get address(): GrpcAddress | undefined {
    return this.running?.address;
  }

  get server(): Server | undefined {
    return this.running?.server;
  }

  setup(app: Application): void {
    if (this.app !== undefined) throw new Error('This grpcPlugin is already registered on an application; create one per application');
    this.app = app;
    app.onListen(() => this.start());
    app.onClose(() => this.stop());
  }

  setServingStatus(service: string, status: GrpcServingStatus): void {
    if (!this.config.health) throw new Error('The gRPC health service is off (health: false)');
    this.statusOverrides.set(service, status);
    this.running?.health?.setStatus(service, status);
  }

  private async start(): Promise<void> {
    const app = this.app!;
    const config = this.config;
    if (this.running !== undefined || this.starting !== undefined) throw new Error('The gRPC server is already running');
    const middleware: Array<GrpcMiddleware | AnyMiddleware> = [];
    for (const entry of config.middleware) {
      if (entry === 'global') middleware.push(...app.getMiddleware());
      else middleware.push(entry);
    }
    const runner = new CallRunner(app.getWrappers(), middleware, { trustProxy: app.contextSettings.trustProxy, log: config.log });
    // Connections with no call for this long are closed (grpc-js keeps them forever otherwise,
    // so a client that connects and stays silent would hold a socket until the process ends).
    const options: ChannelOptions = { 'grpc.max_connection_idle_ms': DEFAULT_MAX_CONNECTION_IDLE_MS, ...config.serverOptions };
    if (config.maxReceiveMessageLength !== undefined) options['grpc.max_receive_message_length'] = config.maxReceiveMessageLength;
    if (config.maxSendMessageLength !== undefined) options['grpc.max_send_message_length'] = config.maxSendMessageLength;
    const server = new Server(options);
    this.starting = server;
    try {
      for (const service of config.services) {
        const implementation: UntypedServiceImplementation = {};
        for (const method of service.methods) implementation[method.rpc.method] = runner.handler(method);
        server.addService(service.definition, implementation);
      }
      const names = config.services.map((s) => s.name);
      let health: HealthService | undefined;
      if (config.health) {
        health = new HealthService();
        health.addToServer(server, names, this.statusOverrides);
      }
      if (config.reflection) this.addReflection(server, names);
      const port = await this.bind(server);
      this.running = { server, health, address: { host: config.host, port, target: dialTarget(config.host, port) } };
    } catch (err) {
      server.forceShutdown();
      throw err;
    } finally {
      this.starting = undefined;
    }
  }

  private addReflection(server: Server, services: string[]): void {
    // A static import (about 20 ms at load) rather than import(): dynamic import breaks CommonJS
    // test runners such as jest, where users exercise their apps.
    let definition = this.config.packageDefinition;
    if (this.config.health) {
      definition = { ...definition, ...loadSync(healthProtoPath, { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true }) };
      services = [...services, 'grpc.health.v1.Health'];
    }
    new ReflectionService(definition, { services }).addToServer(server);
  }

  private bind(server: Server): Promise<number> {
    const { host, port } = this.config;
    const credentials = this.config.credentials ?? ServerCredentials.createInsecure();
    return new Promise((resolve, reject) => {
      server.bindAsync(bindAddress(host, port), credentials, (err, boundPort) => {
        if (err === null) {
          resolve(boundPort);
          return;
        }
        const inUse = /EADDRINUSE/.test(err.message);
        reject(
          new Error(
            inUse ? `gRPC port ${port} is already in use on ${host}` : `gRPC server could not bind ${bindAddress(host, port)}: ${err.message}`,
            { cause: err },
          ),
        );
      });
    });
  }

  private async stop(): Promise<void> {
    const running = this.running;
    if (running === undefined) return;
    const { server, health } = running;
    health?.shutdown();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        // Calls still running after the grace period are cut; their contexts' signals abort.
        server.forceShutdown();
        resolve();
      }, this.config.closeTimeout);
      server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    });
    this.running = undefined;
  }
}

/**
 * Creates the gRPC plugin. The config is checked (and the proto loaded) now, so mistakes surface
 * at startup; the server binds when `app.listen()` runs and shuts down gracefully on `app.close()`.
 * @example
 * const grpc = grpcPlugin({ port: 50051, protoPath: './greeter.proto', services: { 'demo.Greeter': { SayHello } } });
 * app.register(grpc);
 * await app.listen(3000);
 * console.log(grpc.address?.target);
 */
/** How long a connection without calls stays open before the server closes it, unless `serverOptions` says otherwise. */
export const DEFAULT_MAX_CONNECTION_IDLE_MS = 120_000;

export function grpcPlugin(config: GrpcConfig): GrpcPlugin {
  return new GrpcServerPlugin(resolveGrpcConfig(config));
}
