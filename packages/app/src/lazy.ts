// `emit` and `start` are this package's own functions, and load their implementation on their
// first call: every app imports @fw/app, few emit their schemas or run a cluster from it.
import type { EmitOptions, EmitResult } from './emit.js';
import type * as Implementation from './internal/implementation.js';
import type { StartedApp, StartOptions } from './start/primary.js';

let implementation: typeof Implementation | undefined;
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the implementation is part of this bundle, evaluated on first use
const load = (): typeof Implementation => (implementation ??= require('./internal/implementation.js') as typeof Implementation);

/**
 * Writes an application's schemas: `schema.graphql` (the GraphQL schema it serves, operations
 * included), the `.proto` files generated for its gRPC operations, and `openapi.json` (the
 * document of its `openapi` plugin, or one built from its routes), and with `client` the typed
 * client of its operations (a TypeScript module over `fetch`). Same app, same bytes: each file
 * ends with a newline and is written only when its content changed. All or nothing: everything is
 * generated and every target checked (no symbolic link may lead outside `out` or the proto
 * directory) before anything is written, and each file is written to a temporary file renamed
 * over it. Never listens. Throws when there is nothing to write. With `check`, writes nothing and
 * returns the changes from the files there.
 * @example
 * const { files } = await emit({ app, out: 'schemas' });
 * const { changes } = await emit({ app, out: 'schemas', check: true });
 * const breaking = changes!.filter((change) => change.breaking);
 */
export function emit(options: EmitOptions): Promise<EmitResult> {
  return load().emit(options);
}

/**
 * Runs the app module in `workers` processes with node:cluster, sharing the HTTP and gRPC ports;
 * resolves once every worker is ready. A worker that dies is replaced (after a backoff that grows
 * while they keep dying); `restart()` replaces them one at a time with no refused request;
 * `stop()` shuts them down in order. Call it from the process that should be the primary.
 * @example
 * const running = await start({ module: 'dist/app.js', workers: 2, port: 3000 });
 * process.on('SIGHUP', () => void running.restart());
 */
export function start(options: StartOptions): Promise<StartedApp> {
  return load().start(options);
}
