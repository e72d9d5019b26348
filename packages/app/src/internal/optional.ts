import type * as CorePlugin from '@fw/core/plugin';
import type * as GraphQLPackage from '@fw/graphql';
import type * as GrpcPackage from '@fw/grpc';
import type * as MetricsPackage from '@fw/metrics';
import type * as MiddlewarePackage from '@fw/middleware';
import type * as OpenAPIPackage from '@fw/openapi';
import type * as TracingPackage from '@fw/tracing';
import type * as ValidatePackage from '@fw/validate';

/** `@fw/graphql`'s exports. */
export type GraphQLModule = typeof GraphQLPackage;
/** `@fw/grpc`'s exports. */
export type GrpcModule = typeof GrpcPackage;
/** `@fw/tracing`'s exports. */
export type TracingModule = typeof TracingPackage;
/** `@fw/metrics`'s exports. */
export type MetricsModule = typeof MetricsPackage;
/** `@fw/openapi`'s exports. */
export type OpenAPIModule = typeof OpenAPIPackage;
/** `@fw/middleware`'s exports. */
export type MiddlewareModule = typeof MiddlewarePackage;
/** `@fw/validate`'s exports. */
export type ValidateModule = typeof ValidatePackage;

/** The adapter `createApp` serves on (and the one gRPC needs); equal to `@fw/grpc`'s `GRPC_ADAPTER`. */
export const NODE_HTTP_ADAPTER = 'node-http';

/**
 * A synchronous `require` resolving from this package, so that `createApp` stays synchronous and
 * loads a protocol package only when an option asks for it. Every `@fw/*` package's code is its
 * CommonJS build (an `import` gets a wrapper over it), so this loads the module an `import` would:
 * one copy of `@fw/core` (one `HTTPError` class) whichever way the app was loaded. Made on first
 * use: a REST-only app never needs it.
 */
let ownLoad: NodeJS.Require | undefined;
const load = (name: string): unknown => (ownLoad ??= ownRequire())(name);

/**
 * The ES module build makes a `require` from its own URL. The CommonJS build (where the bundler
 * leaves `import.meta` empty) uses the module's own `require`: the one a host such as jest gives
 * it, so the protocol packages come from the same module registry as the rest of the app.
 * (`typeof require` cannot tell the builds apart: `node -e` defines a global `require`, which an
 * ES module it loads would see.)
 */
function ownRequire(): NodeJS.Require {
  const url = (import.meta as Partial<ImportMeta>).url;
  return url === undefined ? require : process.getBuiltinModule('node:module').createRequire(url);
}

/**
 * `@fw/core/plugin`, loaded when it is needed (an option check that fails words its refusal with
 * its `checkOptions`; `emit` sorts files with its `compareNames`): a REST-only start never loads it.
 */
export const loadCorePlugin = (): typeof CorePlugin => load('@fw/core/plugin') as typeof CorePlugin;

/** What an option needs installed: the package whose absence the message names first, then the rest. */
interface Optional {
  /** The option that needs the packages, e.g. `protocols.graphql`. */
  option: string;
  /** The fw package loaded, e.g. `@fw/graphql`. */
  fwPackage: string;
  /** The library it is built on, which users install beside it, e.g. `graphql`. */
  library: string;
}

const GRAPHQL: Optional = { option: 'protocols.graphql', fwPackage: '@fw/graphql', library: 'graphql' };
const GRPC: Optional = { option: 'protocols.grpc', fwPackage: '@fw/grpc', library: '@grpc/grpc-js' };
const TRACING: Optional = { option: 'observability.tracing', fwPackage: '@fw/tracing', library: '@opentelemetry/api' };
const METRICS: Optional = { option: 'observability.metrics', fwPackage: '@fw/metrics', library: '@opentelemetry/api' };

/** The package a "not found" error names: `Cannot find module 'x'` (require) or `Cannot find package 'x'` (import). */
function missingPackage(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== 'MODULE_NOT_FOUND' && code !== 'ERR_MODULE_NOT_FOUND') return undefined;
  const name = /Cannot find (?:module|package) '((?:@[^/']+\/)?[^/']+)/.exec(error.message)?.[1];
  return name;
}

function loadOptional<T>(what: Optional): T {
  try {
    return load(what.fwPackage) as T;
  } catch (error) {
    const missing = missingPackage(error);
    // Only the packages the option needs get the install hint; any other failure is reported as it is.
    if (missing !== what.fwPackage && missing !== what.library) throw error;
    throw new Error(`${what.option} needs the ${what.library} package: npm install ${what.library} ${what.fwPackage}`, { cause: error });
  }
}

// Each package is kept once loaded: the root entry's functions call through these on every use
// (`authenticate` as middleware: on every request), and `require` resolves its argument each time.
let graphqlModule: GraphQLModule | undefined;
let grpcModule: GrpcModule | undefined;
let tracingModule: TracingModule | undefined;
let metricsModule: MetricsModule | undefined;
let openapiModule: OpenAPIModule | undefined;
let middlewareModule: MiddlewareModule | undefined;
let validateModule: ValidateModule | undefined;

/** `@fw/graphql`, loaded on the first app that configures `protocols.graphql` (or the first call of one of its functions). */
export const loadGraphQL = (): GraphQLModule => (graphqlModule ??= loadOptional<GraphQLModule>(GRAPHQL));

/** `@fw/grpc` (and `@grpc/grpc-js`), loaded on the first app that configures `protocols.grpc`. */
export const loadGrpc = (): GrpcModule => (grpcModule ??= loadOptional<GrpcModule>(GRPC));

/** `@fw/tracing` (and `@opentelemetry/api`; the SDK is loaded at `listen()`), loaded when tracing is enabled. */
export const loadTracing = (): TracingModule => (tracingModule ??= loadOptional<TracingModule>(TRACING));

/** `@fw/metrics` (and `@opentelemetry/api`; the SDK is loaded at `listen()`), loaded when metrics are enabled. */
export const loadMetrics = (): MetricsModule => (metricsModule ??= loadOptional<MetricsModule>(METRICS));

/** `@fw/openapi` (a dependency of this package), loaded when `emit()` builds an OpenAPI document or one of its functions is called. */
export const loadOpenAPI = (): OpenAPIModule => (openapiModule ??= load('@fw/openapi') as OpenAPIModule);

/** `@fw/middleware` (a dependency of this package), loaded on the first call of one of its functions. */
export const loadMiddleware = (): MiddlewareModule => (middlewareModule ??= load('@fw/middleware') as MiddlewareModule);

/** `@fw/validate` (a dependency of this package), loaded on the first call of one of its functions. */
export const loadValidate = (): ValidateModule => (validateModule ??= load('@fw/validate') as ValidateModule);
