import { mkdir, readFile, writeFile } from 'node:fs/promises';
import type { Http2Server, Settings } from 'node:http2';
import path from 'node:path';
import { Server, ServerCredentials, type ChannelOptions, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { loadSync, type PackageDefinition } from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';
import type { AnyMiddleware, Operation } from '@fw/core';
import { createLogger, metaOf, type LogFunction, type Plugin, type PluginHost } from '@fw/core/plugin';
import { DEFAULT_MAX_CONNECTION_IDLE_MS, GRPC_DEFAULTS, resolveGrpcConfig, type ResolvedGrpcConfig, type ResolvedService } from './internal/config.js';
import { withValidDescriptors } from './internal/descriptors.js';
import { HealthService, healthProtoPath } from './internal/health.js';
import { CallRunner, type ConfiguredMiddleware } from './internal/runner.js';
import { previousFromDirectory } from './operations/generate.js';
import { buildModel } from './operations/model.js';
import { printModel, type GeneratedProto, type PreviousSource } from './operations/print.js';
import { serveOperations } from './operations/serve.js';
import type { GrpcAddress, GrpcConfig, GrpcServingStatus } from './types.js';

/** The gRPC plugin: register it on an application; it serves while the app listens. */
export interface GrpcPlugin extends Plugin {
  /** Always `'grpc'`. */
  readonly name: 'grpc';
  /** Where the gRPC server listens, once `app.listen()` has resolved; undefined otherwise. */
  readonly address: GrpcAddress | undefined;
  /** The running grpc-js server, once listening. */
  readonly server: Server | undefined;
  /** The directory of the committed .proto files of the operations (the `protoOut` option), if set. */
  readonly protoOut: string | undefined;
  /** Sets what the health service reports for `service` ('' is the whole server). Throws when health is off. */
  setServingStatus(service: string, status: GrpcServingStatus): void;
  /**
   * The .proto files of the app's operations that name gRPC services, one per proto package,
   * numbered from the files in `previousDir` (default: `protoOut`; without either, declaration order).
   * Writes nothing.
   */
  generateProtos(previousDir?: string): GeneratedProto[];
  /**
   * Writes the generated .proto files to `dir` (default: `protoOut`), numbered from the files
   * already there; a file is written only when its content changed. Resolves with the paths of all
   * generated files. `fw emit` calls it; `listen()` never writes.
   */
  writeProtos(dir?: string): Promise<string[]>;
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
  private attached: { host: PluginHost; log: LogFunction } | undefined;
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

  setup(host: PluginHost): void {
    if (this.attached !== undefined) throw new Error('This grpcPlugin is already registered on an application; create one per application');
    const onLog = this.config.onLog;
    this.attached = { host, log: onLog === undefined ? (message, error) => host.log(message, error) : createLogger(onLog) };
    host.onOperation((op) => this.checkOperation(host, op));
    host.onListen(() => this.start());
    host.onClose(() => this.stop());
  }

  /** Refuses an operation the server cannot serve: registered while it runs, or one whose types cannot map. */
  private checkOperation(host: PluginHost, op: Operation): void {
    if (op.grpc === undefined) return;
    if (this.running !== undefined || this.starting !== undefined) {
      throw new Error(`Operation "${op.name}" names gRPC service "${op.grpc.service}", but the gRPC server is already running: register gRPC operations before listen()`);
    }
    const known = host.operations();
    buildModel(known.includes(op) ? known : [...known, op], this.takenNames());
  }

  /** The fully-qualified names generated types may not reuse: the user's proto, the health service. */
  private takenNames(): Set<string> {
    const taken = new Set(Object.keys(this.config.packageDefinition));
    if (this.config.health) taken.add('grpc.health.v1.Health');
    return taken;
  }

  private previous(dir: string | undefined): PreviousSource {
    return dir === undefined ? () => undefined : previousFromDirectory(dir);
  }

  get protoOut(): string | undefined {
    return this.config.protoOut;
  }

  generateProtos(previousDir?: string): GeneratedProto[] {
    if (this.attached === undefined) throw new Error('generateProtos: register the gRPC plugin on an application first');
    return printModel(buildModel(this.attached.host.operations(), this.takenNames()), this.previous(previousDir ?? this.config.protoOut));
  }

  async writeProtos(dir?: string): Promise<string[]> {
    const target = dir ?? this.config.protoOut;
    if (target === undefined) throw new Error('writeProtos: give a directory, or set `protoOut` in the gRPC config');
    const written: string[] = [];
    for (const file of this.generateProtos(target)) {
      const full = path.join(target, file.file);
      const current = await readFile(full, 'utf8').catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return undefined;
        throw err;
      });
      if (current !== file.text) {
        await mkdir(path.dirname(full), { recursive: true });
        await writeFile(full, file.text);
      }
      written.push(full);
    }
    return written;
  }

  /** The services to serve and the definition they come from: the configured ones, then the operations'. */
  private served(host: PluginHost, log: LogFunction): { services: ResolvedService[]; definition: PackageDefinition } {
    const config = this.config;
    const operations = host.operations().filter((op) => op.grpc !== undefined);
    if (operations.length === 0) {
      if (config.services.length === 0) {
        throw new Error(
          'gRPC: nothing to serve. Give `services` (with `protoPath`) in the gRPC config, or register operations that name a gRPC service ' +
            "(grpc: { service: '<package>.<Service>' }) before listen()",
        );
      }
      return { services: config.services, definition: config.packageDefinition };
    }
    const previous = this.previous(config.protoOut);
    const generated = serveOperations(operations, previous, this.takenNames(), { openStream: (options) => host.openStream(options), streams: host.streams, log });
    if (config.protoOut !== undefined) {
      // Numbers given now but not committed can be given again to another field by a later version.
      const stale = generated.files.filter((file) => previous(file.file) !== file.text).map((file) => file.file);
      if (stale.length > 0) {
        log(
          `gRPC: ${stale.join(', ')} in protoOut (${config.protoOut}) ${stale.length === 1 ? 'is' : 'are'} missing or out of date with the operations: ` +
            `write and commit ${stale.length === 1 ? 'it' : 'them'} (\`fw emit\`, or the plugin's writeProtos()), so that the field numbers in use now stay reserved`,
        );
      }
    }
    return { services: [...config.services, ...generated.services], definition: { ...config.packageDefinition, ...generated.definition } };
  }

  setServingStatus(service: string, status: GrpcServingStatus): void {
    if (!this.config.health) throw new Error('The gRPC health service is off (health: false)');
    this.statusOverrides.set(service, status);
    this.running?.health?.setStatus(service, status);
  }

  private async start(): Promise<void> {
    const { host, log } = this.attached!;
    const config = this.config;
    if (this.running !== undefined || this.starting !== undefined) throw new Error('The gRPC server is already running');
    const { services, definition } = this.served(host, log);
    warnAboutSkippedAuthentication(host.middleware(), config.middleware, log);
    const runner = new CallRunner(host, config.middleware, { trustProxy: host.contextSettings.trustProxy, log });
    const options = serverOptions(config);
    const { 'grpc.max_metadata_size': metadataOption, ...grpcOptions } = options;
    const maxMetadataSize = config.maxMetadataSize ?? (typeof metadataOption === 'number' ? metadataOption : GRPC_DEFAULTS.maxMetadataSize);
    const server = new Server(grpcOptions);
    this.starting = server;
    try {
      for (const service of services) {
        const implementation: UntypedServiceImplementation = {};
        for (const method of service.methods) implementation[method.rpc.method] = runner.handler(method);
        server.addService(service.definition, implementation);
      }
      const names = services.map((s) => s.name);
      let health: HealthService | undefined;
      if (config.health) {
        health = new HealthService(config.maxHealthWatches);
        health.addToServer(server, names, this.statusOverrides);
      }
      if (config.reflection) this.addReflection(server, names, definition);
      const port = await this.bind(server);
      if (!applySessionSettings(server, { maxHeaderListSize: maxMetadataSize })) {
        log(`gRPC: maxMetadataSize (${maxMetadataSize} bytes) could not be applied: this version of @grpc/grpc-js does not expose its HTTP/2 servers`);
      }
      this.running = { server, health, address: { host: config.host, port, target: dialTarget(config.host, port) } };
    } catch (err) {
      server.forceShutdown();
      throw err;
    } finally {
      this.starting = undefined;
    }
  }

  private addReflection(server: Server, services: string[], definition: PackageDefinition): void {
    // A static import (about 20 ms at load) rather than import(): dynamic import breaks CommonJS
    // test runners such as jest, where users exercise their apps.
    if (this.config.health) {
      definition = { ...definition, ...loadSync(healthProtoPath, { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true }) };
      services = [...services, 'grpc.health.v1.Health'];
    }
    // protobufjs's descriptors are invalid for strict clients (map entries, relative names): serve fixed ones.
    new ReflectionService(withValidDescriptors(definition), { services }).addToServer(server);
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
 * The grpc-js server options: our defaults, then `serverOptions`, then the explicit options.
 * Connections with no call for a while are closed (grpc-js keeps them forever otherwise, so a client
 * that connects and stays silent would hold a socket until the process ends); each connection runs
 * a bounded number of streams, and lives a bounded time, so no client can hold memory indefinitely.
 */
function serverOptions(config: ResolvedGrpcConfig): ChannelOptions {
  const options: ChannelOptions = {
    'grpc.max_connection_idle_ms': DEFAULT_MAX_CONNECTION_IDLE_MS,
    'grpc.max_concurrent_streams': GRPC_DEFAULTS.maxConcurrentStreams,
    'grpc.max_connection_age_ms': GRPC_DEFAULTS.maxConnectionAge,
    'grpc.max_connection_age_grace_ms': GRPC_DEFAULTS.maxConnectionAgeGrace,
    ...config.serverOptions,
  };
  if (config.maxReceiveMessageLength !== undefined) options['grpc.max_receive_message_length'] = config.maxReceiveMessageLength;
  if (config.maxSendMessageLength !== undefined) options['grpc.max_send_message_length'] = config.maxSendMessageLength;
  if (config.maxConcurrentStreams !== undefined) options['grpc.max_concurrent_streams'] = config.maxConcurrentStreams;
  if (config.maxConnectionAge !== undefined) options['grpc.max_connection_age_ms'] = config.maxConnectionAge;
  if (config.maxConnectionAgeGrace !== undefined) options['grpc.max_connection_age_grace_ms'] = config.maxConnectionAgeGrace;
  return options;
}

/**
 * Sets HTTP/2 settings of the connections grpc-js accepts from now on. grpc-js has no option for the
 * header list size, and without one a client's oversized metadata is only stopped by HPACK limits,
 * which fail the whole connection; with it, Node refuses just the offending stream
 * (RST_STREAM ENHANCE_YOUR_CALM, which clients see as RESOURCE_EXHAUSTED).
 */
function applySessionSettings(server: Server, settings: Settings): boolean {
  const servers = (server as unknown as { http2Servers?: unknown }).http2Servers;
  if (!(servers instanceof Map)) return false;
  for (const http2Server of servers.keys() as IterableIterator<Http2Server>) {
    if (typeof http2Server.updateSettings !== 'function') return false;
    http2Server.updateSettings(settings);
  }
  return true;
}

// Kept for middleware written before `auth` was core's route meta key (a `verifyJwt` function):
// the warning errs towards speaking. Middleware declares itself with `withMeta(fn, { auth: true })`.
const AUTH_NAME = /auth|jwt|bearer|session|passport|api_?key/i;

/** Whether a middleware authenticates: it says so (core's `auth`/`authOptional` route meta), or its name does. */
function looksLikeAuthentication(fn: AnyMiddleware): boolean {
  const meta = metaOf(fn);
  if (meta !== undefined && (meta.auth === true || meta.authOptional === true)) return true;
  return AUTH_NAME.test(fn.name);
}

/**
 * gRPC calls do not run `app.use()` middleware unless told to: an app that authenticates globally
 * would otherwise serve its gRPC methods to anyone without noticing. Says so once, at start-up.
 */
function warnAboutSkippedAuthentication(global: readonly AnyMiddleware[], configured: ConfiguredMiddleware, log: LogFunction): void {
  if (configured.includes('global')) return;
  const skipped = global.filter((fn) => !configured.includes(fn) && looksLikeAuthentication(fn));
  if (skipped.length === 0) return;
  const names = skipped.map((fn) => `"${fn.name || 'anonymous'}"`).join(', ');
  log(
    `gRPC: the app's global middleware ${names} looks like authentication, but gRPC calls do not run app middleware, ` +
      `so gRPC methods are served without it. Set \`middleware: 'global'\` in the gRPC config (or list the middleware to run).`,
  );
}

/** The implementation of `grpcPlugin`: the package exports ./lazy.ts's, which loads this on its first call. */
export function grpcPlugin(config: GrpcConfig | true = {}): GrpcPlugin {
  return new GrpcServerPlugin(resolveGrpcConfig(config));
}
