import type { MethodDefinition, PackageDefinition, ServiceDefinition } from '@grpc/proto-loader';
import type { ChannelOptions, ServerCredentials } from '@grpc/grpc-js';
import type { AnyMiddleware } from '@fw/core';
import { checkOptions, type LogFunction } from '@fw/core/plugin';
import type { GrpcConfig, GrpcHealthWatchLimits, GrpcLoaderOptions, GrpcMethodType, GrpcMiddleware } from '../types.js';
import type { RunnableMethod } from './call-state.js';
import { protoLoader } from './libraries.js';

/** How long a connection without calls stays open before the server closes it, unless `serverOptions` says otherwise. */
export const DEFAULT_MAX_CONNECTION_IDLE_MS = 120_000;

/** Defaults of the gRPC config. */
export const GRPC_DEFAULTS = {
  port: 50051,
  host: '0.0.0.0',
  closeTimeout: 5000,
  maxReceiveMessageLength: 4 * 1024 * 1024,
  maxConcurrentStreams: 100,
  maxConnectionAge: 30 * 60_000,
  maxConnectionAgeGrace: 5 * 60_000,
  maxMetadataSize: 16 * 1024,
  maxHealthWatches: { perConnection: 10, total: 1000 },
} as const;

/** The proto-loader options used unless the config overrides them (grpc-node's documented set). */
export const DEFAULT_LOADER_OPTIONS: GrpcLoaderOptions = { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true };

/** One service to serve, checked against the proto. */
export interface ResolvedService {
  name: string;
  definition: ServiceDefinition;
  methods: RunnableMethod[];
}

/** The config with defaults applied, the proto loaded and every name checked. */
export interface ResolvedGrpcConfig {
  port: number;
  host: string;
  credentials: ServerCredentials | undefined;
  packageDefinition: PackageDefinition;
  services: ResolvedService[];
  health: boolean;
  reflection: boolean;
  maxReceiveMessageLength: number | undefined;
  maxSendMessageLength: number | undefined;
  closeTimeout: number;
  maxConcurrentStreams: number | undefined;
  maxConnectionAge: number | undefined;
  maxConnectionAgeGrace: number | undefined;
  maxMetadataSize: number | undefined;
  maxHealthWatches: { perConnection: number; total: number };
  middleware: ReadonlyArray<GrpcMiddleware | AnyMiddleware | 'global'>;
  serverOptions: ChannelOptions;
  /** The config's own log sink; undefined logs through the app's logger. */
  onLog: LogFunction | undefined;
  /** Where generated .proto files of operations are kept (read at listen, written by `writeProtos`). */
  protoOut: string | undefined;
}

const resolved = new WeakMap<object, ResolvedGrpcConfig>();

// Every option name, typed: the compiler fails here when an option is added to GrpcConfig but not
// to this list, so a valid option is never refused.
const CONFIG_KEYS: Record<keyof GrpcConfig, true> = {
  port: true,
  host: true,
  services: true,
  credentials: true,
  protoPath: true,
  protoOut: true,
  loaderOptions: true,
  packageDefinition: true,
  health: true,
  reflection: true,
  maxReceiveMessageLength: true,
  maxSendMessageLength: true,
  maxConcurrentStreams: true,
  maxConnectionAge: true,
  maxConnectionAgeGrace: true,
  maxMetadataSize: true,
  maxHealthWatches: true,
  closeTimeout: true,
  middleware: true,
  serverOptions: true,
  onLog: true,
};
const HEALTH_WATCH_KEYS: Record<keyof GrpcHealthWatchLimits, true> = { perConnection: true, total: true };

/**
 * Throws for a key the config does not know: a misspelt `port` or `middleware` would otherwise
 * leave the server on the default port, or its calls without the app's middleware (authentication).
 */
function refuseUnknown(value: object, accepted: Record<string, true>, path: string): void {
  checkOptions(value, Object.keys(accepted), { owner: 'gRPC config', path, error: Error });
}

function fail(message: string, cause?: unknown): never {
  throw new Error(`gRPC config: ${message}`, cause !== undefined ? { cause } : undefined);
}

function isServiceDefinition(value: unknown): value is ServiceDefinition {
  if (value === null || typeof value !== 'object' || 'format' in value) return false;
  const methods = Object.values(value as Record<string, unknown>);
  return methods.length > 0 && methods.every((m) => m !== null && typeof m === 'object' && typeof (m as MethodDefinition<unknown, unknown>).path === 'string');
}

function methodType(definition: { requestStream: boolean; responseStream: boolean }): GrpcMethodType {
  if (definition.requestStream) return definition.responseStream ? 'bidi' : 'clientStream';
  return definition.responseStream ? 'serverStream' : 'unary';
}

function describe(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
}

/** A value as an error message shows it: primitives as they are, anything else by its kind. */
function shown(value: unknown): string {
  return typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean' || typeof value === 'bigint' ? String(value) : describe(value);
}

function optionalNumber(name: string, value: unknown, check: (n: number) => boolean, rule: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !check(value)) fail(`\`${name}\` must be ${rule}, got ${shown(value)}`);
  return value;
}

function loadDefinition(config: GrpcConfig, hasServices: boolean): { definition: PackageDefinition; source: string } {
  const { protoPath, packageDefinition } = config;
  if (protoPath !== undefined && packageDefinition !== undefined) fail('give either `protoPath` or `packageDefinition`, not both');
  if (packageDefinition !== undefined) {
    if (packageDefinition === null || typeof packageDefinition !== 'object') fail(`\`packageDefinition\` must be a package definition from @grpc/proto-loader, got ${describe(packageDefinition)}`);
    return { definition: packageDefinition, source: 'the packageDefinition' };
  }
  if (protoPath === undefined) {
    // Operations bring their own generated proto; hand-written services need the user's.
    if (!hasServices) return { definition: {}, source: 'no proto' };
    fail('give `protoPath` (your .proto file) or `packageDefinition`, so that the services and messages are known');
  }
  const paths = Array.isArray(protoPath) ? protoPath : [protoPath];
  if (paths.length === 0 || paths.some((p) => typeof p !== 'string' || p.length === 0)) fail('`protoPath` must be a file path or a non-empty array of file paths');
  const source = paths.length === 1 ? `"${paths[0]}"` : `[${paths.map((p) => `"${p}"`).join(', ')}]`;
  try {
    return { definition: protoLoader().loadSync(paths, { ...DEFAULT_LOADER_OPTIONS, ...config.loaderOptions }), source };
  } catch (err) {
    fail(`could not load protoPath ${source}: ${err instanceof Error ? err.message : String(err)}`, err);
  }
}

function checkServices(services: unknown): asserts services is Record<string, unknown> | undefined {
  if (services === undefined) return;
  if (services === null || typeof services !== 'object' || Array.isArray(services)) {
    fail(`\`services\` must be an object mapping "<package>.<Service>" to method implementations, got ${describe(services)}`);
  }
  if (Object.keys(services).length === 0) fail('`services` is empty: name at least one "<package>.<Service>" to serve, or leave `services` out when operations are served');
}

function resolveServices(services: Record<string, unknown>, definition: PackageDefinition, source: string): ResolvedService[] {
  const names = Object.keys(services);
  const declared = Object.keys(definition).filter((key) => isServiceDefinition(definition[key]));
  return names.map((name) => {
    const serviceDefinition = definition[name];
    if (!isServiceDefinition(serviceDefinition)) {
      if (serviceDefinition !== undefined) fail(`"${name}" in ${source} is a message or enum type, not a service`);
      const near = declared.filter((d) => d.endsWith(`.${name}`));
      const hint = near.length === 1 ? ` Did you mean "${near[0]}"?` : '';
      fail(`service "${name}" is not defined in ${source}.${hint} Defined services: ${declared.length > 0 ? declared.join(', ') : 'none'}`);
    }
    const implementation = services[name];
    if (implementation === null || typeof implementation !== 'object' || Array.isArray(implementation)) {
      fail(`services["${name}"] must be an object of method implementations, got ${describe(implementation)}`);
    }
    const byName = new Map<string, string>();
    for (const [methodName, method] of Object.entries(serviceDefinition)) {
      byName.set(methodName, methodName);
      if (typeof method.originalName === 'string') byName.set(method.originalName, methodName);
    }
    const impls = new Map<string, RunnableMethod['impl']>();
    for (const [key, fn] of Object.entries(implementation as Record<string, unknown>)) {
      const methodName = byName.get(key);
      if (methodName === undefined) {
        fail(`method "${key}" of service "${name}" is not declared in ${source}. Declared methods: ${Object.keys(serviceDefinition).join(', ')}`);
      }
      if (typeof fn !== 'function') fail(`services["${name}"].${key} must be a function, got ${describe(fn)}`);
      if (impls.has(methodName)) fail(`method "${methodName}" of service "${name}" is implemented twice (as "${methodName}" and its camelCase name)`);
      impls.set(methodName, fn as RunnableMethod['impl']);
    }
    const methods = Object.entries(serviceDefinition).map(([methodName, method]): RunnableMethod => ({
      rpc: { service: name, method: methodName, type: methodType(method) },
      path: method.path,
      impl: impls.get(methodName),
    }));
    return { name, definition: serviceDefinition, methods };
  });
}

function resolveMiddleware(value: GrpcConfig['middleware']): ReadonlyArray<GrpcMiddleware | AnyMiddleware | 'global'> {
  if (value === undefined) return [];
  if (value === 'global') return ['global'];
  if (!Array.isArray(value as unknown)) fail(`\`middleware\` must be 'global' or an array of middleware functions, got ${typeof value === 'string' ? `"${value as string}"` : describe(value)}`);
  value.forEach((fn, i) => {
    if (typeof fn !== 'function' && fn !== 'global') fail(`middleware at position ${i} must be a function or 'global', got ${describe(fn)}`);
  });
  return value.slice();
}

const NO_CONFIG: GrpcConfig = Object.freeze({});

/**
 * Applies defaults, loads the proto and checks every name; throws an error naming the culprit.
 * `true` is the empty config (operations only). Cached per config object.
 */
export function resolveGrpcConfig(config: GrpcConfig | true): ResolvedGrpcConfig {
  if (config === true) config = NO_CONFIG;
  if (config === null || typeof config !== 'object' || Array.isArray(config)) {
    fail(`expected an object (\`services\` and \`protoPath\`, or nothing when operations are served), got ${describe(config)}`);
  }
  const cached = resolved.get(config);
  if (cached !== undefined) return cached;
  refuseUnknown(config, CONFIG_KEYS, '');
  const port = optionalNumber('port', config.port, (n) => Number.isInteger(n) && n >= 0 && n <= 65535, 'an integer from 0 to 65535') ?? GRPC_DEFAULTS.port;
  const host = config.host ?? GRPC_DEFAULTS.host;
  if (typeof host !== 'string' || host.length === 0) fail(`\`host\` must be a non-empty string, got ${String(host)}`);
  if (config.credentials !== undefined && (config.credentials === null || typeof config.credentials !== 'object')) {
    fail('`credentials` must be grpc-js ServerCredentials (ServerCredentials.createInsecure() or createSsl(...))');
  }
  for (const flag of ['health', 'reflection'] as const) {
    if (config[flag] !== undefined && typeof config[flag] !== 'boolean') fail(`\`${flag}\` must be a boolean, got ${describe(config[flag])}`);
  }
  const size = (n: number): boolean => n === -1 || (Number.isInteger(n) && n > 0);
  const maxReceiveMessageLength = optionalNumber('maxReceiveMessageLength', config.maxReceiveMessageLength, size, 'a positive integer (bytes) or -1 for unlimited');
  const maxSendMessageLength = optionalNumber('maxSendMessageLength', config.maxSendMessageLength, size, 'a positive integer (bytes) or -1 for unlimited');
  const closeTimeout = optionalNumber('closeTimeout', config.closeTimeout, (n) => Number.isFinite(n) && n >= 0, 'a number of milliseconds ≥ 0') ?? GRPC_DEFAULTS.closeTimeout;
  const positive = (n: number): boolean => Number.isInteger(n) && n > 0;
  const maxConcurrentStreams = optionalNumber('maxConcurrentStreams', config.maxConcurrentStreams, positive, 'a positive integer');
  const maxConnectionAge = optionalNumber('maxConnectionAge', config.maxConnectionAge, positive, 'a positive integer (ms)');
  const maxConnectionAgeGrace = optionalNumber('maxConnectionAgeGrace', config.maxConnectionAgeGrace, positive, 'a positive integer (ms)');
  const maxMetadataSize = optionalNumber('maxMetadataSize', config.maxMetadataSize, positive, 'a positive integer (bytes)');
  const watches = config.maxHealthWatches;
  if (watches !== undefined && (watches === null || typeof watches !== 'object' || Array.isArray(watches))) {
    fail(`\`maxHealthWatches\` must be an object { perConnection?, total }, got ${describe(watches)}`);
  }
  if (watches !== undefined) refuseUnknown(watches, HEALTH_WATCH_KEYS, 'maxHealthWatches');
  const maxHealthWatches = {
    perConnection: optionalNumber('maxHealthWatches.perConnection', watches?.perConnection, positive, 'a positive integer') ?? GRPC_DEFAULTS.maxHealthWatches.perConnection,
    total: optionalNumber('maxHealthWatches.total', watches?.total, positive, 'a positive integer') ?? GRPC_DEFAULTS.maxHealthWatches.total,
  };
  if (config.serverOptions !== undefined && (config.serverOptions === null || typeof config.serverOptions !== 'object')) fail('`serverOptions` must be an object of grpc-js server options');
  if (config.onLog !== undefined && typeof config.onLog !== 'function') fail('`onLog` must be a function');
  const middleware = resolveMiddleware(config.middleware);
  if (config.protoOut !== undefined && (typeof config.protoOut !== 'string' || config.protoOut.length === 0)) {
    fail(`\`protoOut\` must be a directory path, got ${shown(config.protoOut)}`);
  }
  const serviceMap: unknown = config.services;
  checkServices(serviceMap);
  const { definition, source } = loadDefinition(config, serviceMap !== undefined);
  const services = serviceMap === undefined ? [] : resolveServices(serviceMap, definition, source);
  const result: ResolvedGrpcConfig = {
    port,
    host,
    credentials: config.credentials,
    packageDefinition: definition,
    services,
    health: config.health ?? true,
    reflection: config.reflection ?? false,
    maxReceiveMessageLength,
    maxSendMessageLength,
    closeTimeout,
    maxConcurrentStreams,
    maxConnectionAge,
    maxConnectionAgeGrace,
    maxMetadataSize,
    maxHealthWatches,
    middleware,
    serverOptions: config.serverOptions ?? {},
    onLog: config.onLog,
    protoOut: config.protoOut,
  };
  resolved.set(config, result);
  return result;
}
