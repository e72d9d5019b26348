import type { Context, Next, Operation } from '@fw/core';
import { createLogger, type LogFunction, type Plugin, type PluginHost } from '@fw/core/plugin';
import { createGrpcServiceRunner, describeOperations, hasNoSideEffects, operationMethodPaths, type GrpcServiceRunner } from '@fw/grpc';
import { registryOf } from './internal/registry.js';
import { answerError, serveCall, type ServeOptions, type ServedMethod } from './internal/serve.js';
import { serveServiceCall, type ServedServiceMethod } from './internal/services.js';
import { checkConnectConfig } from './internal/config.js';
import { CONNECT_DEFAULTS } from './options.js';
import type { ConnectConfig } from './types.js';

/** What `connectPlugin()` returns: a plugin, and the methods it serves. */
export interface ConnectPlugin extends Plugin {
  /**
   * The paths served (`/<package>.<Service>/<Method>`), sorted: the operations' (built from the
   * app's operations now) and the methods of hand-written `services` (a client-streaming or bidi
   * one answers `unimplemented`).
   */
  paths(): string[];
}

class Connect implements ConnectPlugin {
  readonly name = 'connect';
  #host: PluginHost | undefined;
  #log: LogFunction = () => undefined;
  #built: { operations: readonly Operation[]; methods: ReadonlyMap<string, ServedMethod> } | undefined;
  readonly #runner: GrpcServiceRunner | undefined;
  #services: ReadonlyMap<string, ServedServiceMethod> | undefined;

  constructor(private readonly config: ConnectConfig) {
    this.#runner = config.services === undefined ? undefined : serviceRunner(config, () => this.#host, (message, error) => this.#log(message, error));
  }

  setup(host: PluginHost): void {
    this.#host = host;
    this.#log = this.config.onLog === undefined ? (message, error) => host.log(message, error) : createLogger(this.config.onLog);
    const options: ServeOptions = {
      host,
      log: this.#log,
      maxMessageBytes: this.config.maxMessageBytes ?? host.contextSettings.bodyLimit,
      maxJsonDepth: host.contextSettings.maxJsonDepth,
      compressMinBytes: this.config.compressMinBytes ?? CONNECT_DEFAULTS.compressMinBytes,
    };
    const log = this.#log;
    // Around the app's middleware on these paths only: what it throws (a 401, a 429) is answered as Connect or gRPC-Web expects.
    const guard = (ctx: Context, next: Next): Promise<void> =>
      next().then(undefined, (err: unknown) => {
        if (ctx.res.headersSent || ctx.res.writableEnded) throw err;
        answerError(ctx, err, log);
      });
    const claimed = new Set<string>();
    /** Claims `path` for calls that `serve` answers; the call's own failures are answered in its protocol. */
    const claim = (path: string, serve: (ctx: Context) => Promise<void>): void => {
      if (claimed.has(path)) return;
      claimed.add(path);
      host.claimPath(
        path,
        (ctx: Context) => {
          // Answered here, so that an app's error middleware (which the guard is outside of) never
          // rewrites them into another shape.
          const answer = (err: unknown): void => {
            if (ctx.res.headersSent || ctx.res.writableEnded) throw err;
            answerError(ctx, err, log);
          };
          try {
            return serve(ctx).then(undefined, answer);
          } catch (err) {
            answer(err);
            return Promise.resolve();
          }
        },
        { protocol: 'connect', guard },
      );
    };
    const runner = this.#runner;
    if (runner !== undefined) {
      for (const { path } of runner.methods) {
        claim(path, (ctx) => {
          const method = this.#serviceMethods(runner).get(path);
          if (method === undefined) throw new Error(`No hand-written method is served at ${path}`);
          return serveServiceCall(ctx, method, runner, options);
        });
      }
    }
    host.onOperation((op) => {
      for (const path of operationMethodPaths(op)) {
        claim(path, (ctx) => {
          const method = this.#methods().get(path);
          if (method === undefined) throw new Error(`No operation is served at ${path}`);
          return serveCall(ctx, method, options);
        });
      }
    });
    // Built once the app listens, so that an operation that cannot map to proto (or a descriptor
    // of the services that cannot be read) fails listen().
    host.onListen(() => {
      this.#methods();
      if (runner !== undefined) this.#serviceMethods(runner);
    });
  }

  paths(): string[] {
    return [...this.#methods().keys(), ...(this.#runner?.methods.map((method) => method.path) ?? [])].sort();
  }

  /** The hand-written methods by path, with their messages' descriptors (built once). */
  #serviceMethods(runner: GrpcServiceRunner): ReadonlyMap<string, ServedServiceMethod> {
    if (this.#services !== undefined) return this.#services;
    const registry = registryOf(runner.descriptors);
    const methods = new Map<string, ServedServiceMethod>();
    for (const method of runner.methods) {
      const desc = registry.getService(method.rpc.service)?.methods.find((m) => m.name === method.rpc.method);
      if (desc === undefined) throw new Error(`Connect: ${method.path} is not in the descriptors of the services' .proto`);
      methods.set(method.path, { method, input: desc.input, output: desc.output });
    }
    this.#services = methods;
    return methods;
  }

  /** The served methods by path, built again when the operations changed. */
  #methods(): ReadonlyMap<string, ServedMethod> {
    const host = this.#host;
    if (host === undefined) throw new Error('connectPlugin: register the plugin on an application first');
    const operations = host.operations();
    if (this.#built?.operations === operations) return this.#built.methods;
    // The services' own names are taken, as on the gRPC port: generated types never reuse them.
    const taken = this.#runner?.names;
    const described = describeOperations(operations, {
      ...(this.config.protoOut === undefined ? {} : { previous: this.config.protoOut }),
      ...(taken === undefined ? {} : { taken }),
    });
    const registry = registryOf(described.descriptors);
    const methods = new Map<string, ServedMethod>();
    for (const method of described.methods) {
      const input = registry.getMessage(method.input);
      const output = registry.getMessage(method.output);
      if (input === undefined || output === undefined) throw new Error(`Connect: the messages of ${method.path} are not in the generated descriptors`);
      methods.set(method.path, { described: method, input, output, readOnly: hasNoSideEffects(method.operation) });
    }
    this.#built = { operations, methods };
    return methods;
  }
}

/** The runner of the hand-written services (`@fw/grpc`'s, checked and loaded now); a config mistake names connectPlugin. */
function serviceRunner(config: ConnectConfig, host: () => PluginHost | undefined, log: LogFunction): GrpcServiceRunner {
  const attached = (): PluginHost => {
    const found = host();
    if (found === undefined) throw new Error('connectPlugin: register the plugin on an application first');
    return found;
  };
  const { services, protoPath, packageDefinition, loaderOptions, middleware } = config;
  try {
    return createGrpcServiceRunner(
      { services, protoPath, packageDefinition, loaderOptions, middleware },
      {
        ran: () => attached().middleware(),
        get trustProxy() {
          return attached().contextSettings.trustProxy;
        },
        log,
      },
    );
  } catch (err) {
    const message = err instanceof Error ? err.message.replace(/^gRPC config: /, '') : String(err);
    throw new Error(`connectPlugin: ${message}`, { cause: err });
  }
}

/** The implementation of `connectPlugin`: the package exports ../lazy.ts's, which loads this on its first call. */
export function connectPlugin(config: ConnectConfig | true = {}): ConnectPlugin {
  return new Connect(checkConnectConfig(config === true ? {} : config));
}
