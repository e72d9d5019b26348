import * as CorePlugin from '@fw/core/plugin';

// What an option needs installed besides the fw packages (which are dependencies of @fw/app): the
// library each protocol package is built on, a peer dependency that the user installs. Each
// package loads its library when an option or a first call needs it; when it is not installed,
// createApp names what to install instead of "Cannot find module".

/** The adapter `createApp` serves on (and the one gRPC needs); equal to `@fw/grpc`'s `GRPC_ADAPTER`. */
export const NODE_HTTP_ADAPTER = 'node-http';

/** `@fw/core/plugin` (an option check that fails words its refusal with its `checkOptions`). */
export const loadCorePlugin = (): typeof CorePlugin => CorePlugin;

/** What an option needs installed: the library whose absence the message names first, then its fw package. */
export interface Optional {
  /** The option that needs the packages, e.g. `protocols.graphql`. */
  option: string;
  /** The fw package that serves it, e.g. `@fw/graphql`. */
  fwPackage: string;
  /** The library it is built on, which users install beside it, e.g. `graphql`. */
  library: string;
}

export const GRAPHQL: Optional = { option: 'protocols.graphql', fwPackage: '@fw/graphql', library: 'graphql' };
export const GRPC: Optional = { option: 'protocols.grpc', fwPackage: '@fw/grpc', library: '@grpc/grpc-js' };
/** Connect loads @fw/grpc's generator, which is built on grpc-js's proto loader. */
export const CONNECT: Optional = { option: 'protocols.connect', fwPackage: '@fw/connect', library: '@grpc/grpc-js' };
export const TRACING: Optional = { option: 'observability.tracing', fwPackage: '@fw/tracing', library: '@opentelemetry/api' };
export const METRICS: Optional = { option: 'observability.metrics', fwPackage: '@fw/metrics', library: '@opentelemetry/api' };

/** The package a "not found" error names: `Cannot find module 'x'` (require) or `Cannot find package 'x'` (import). */
function missingPackage(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== 'MODULE_NOT_FOUND' && code !== 'ERR_MODULE_NOT_FOUND') return undefined;
  return /Cannot find (?:module|package) '((?:@[^/']+\/)?[^/']+)/.exec(error.message)?.[1];
}

/**
 * Runs what an option does (its config check, its plugin's creation) and, when that fails because
 * the option's library is not installed, says which packages to install. Any other failure is
 * reported as it is.
 */
export function withOptional<T>(what: Optional, run: () => T): T {
  try {
    return run();
  } catch (error) {
    const missing = missingPackage(error);
    if (missing !== what.fwPackage && missing !== what.library) throw error;
    // Only what is missing: the fw packages are @fw/app's own dependencies, already installed.
    throw new Error(`${what.option} needs the ${missing} package: npm install ${missing}`, { cause: error });
  }
}
