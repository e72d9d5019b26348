import type { Context, Next, Operation } from '@fw/core';
import { createLogger, type LogFunction, type Plugin, type PluginHost } from '@fw/core/plugin';
import { describeOperations, hasNoSideEffects, operationMethodPaths } from '@fw/grpc';
import { registryOf } from './internal/registry.js';
import { answerError, serveCall, type ServeOptions, type ServedMethod } from './internal/serve.js';
import { checkConnectConfig } from './internal/config.js';
import { CONNECT_DEFAULTS } from './options.js';
import type { ConnectConfig } from './types.js';

/** What `connectPlugin()` returns: a plugin, and the methods it serves. */
export interface ConnectPlugin extends Plugin {
  /** The paths served (`/<package>.<Service>/<Method>`), sorted; built from the app's operations now. */
  paths(): string[];
}

class Connect implements ConnectPlugin {
  readonly name = 'connect';
  #host: PluginHost | undefined;
  #log: LogFunction = () => undefined;
  #built: { operations: readonly Operation[]; methods: ReadonlyMap<string, ServedMethod> } | undefined;

  constructor(private readonly config: ConnectConfig) {}

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
    host.onOperation((op) => {
      for (const path of operationMethodPaths(op)) {
        if (claimed.has(path)) continue;
        claimed.add(path);
        host.claimPath(
          path,
          (ctx: Context) => {
            // The call's own failures are answered here, in its protocol, so that an app's error
            // middleware (which the guard is outside of) never rewrites them into another shape.
            const answer = (err: unknown): void => {
              if (ctx.res.headersSent || ctx.res.writableEnded) throw err;
              answerError(ctx, err, log);
            };
            try {
              const method = this.#methods().get(path);
              if (method === undefined) throw new Error(`No operation is served at ${path}`);
              return serveCall(ctx, method, options).then(undefined, answer);
            } catch (err) {
              answer(err);
              return Promise.resolve();
            }
          },
          { protocol: 'connect', guard },
        );
      }
    });
    // Built once the app listens, so that an operation that cannot map to proto fails listen().
    host.onListen(() => {
      this.#methods();
    });
  }

  paths(): string[] {
    return [...this.#methods().keys()].sort();
  }

  /** The served methods by path, built again when the operations changed. */
  #methods(): ReadonlyMap<string, ServedMethod> {
    const host = this.#host;
    if (host === undefined) throw new Error('connectPlugin: register the plugin on an application first');
    const operations = host.operations();
    if (this.#built?.operations === operations) return this.#built.methods;
    const described = describeOperations(operations, this.config.protoOut === undefined ? {} : { previous: this.config.protoOut });
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

/** The implementation of `connectPlugin`: the package exports ../lazy.ts's, which loads this on its first call. */
export function connectPlugin(config: ConnectConfig | true = {}): ConnectPlugin {
  return new Connect(checkConnectConfig(config === true ? {} : config));
}
