import { context, createContextKey, propagation, trace, type ContextManager, type TracerProvider } from '@opentelemetry/api';
import type { NodeSDKConfiguration } from '@opentelemetry/sdk-node';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { OtlpProtocol, TracingConfig } from '../types.js';
import { globalDelegate, registeredProvider } from './provider.js';

/** The SDK this package started: one per process, shared by every app that finds it registered. */
interface SharedSdk {
  readonly shutdown: () => Promise<void>;
  /** The provider the SDK registered (the API proxy's delegate). */
  readonly provider: TracerProvider;
  readonly ownsContextManager: boolean;
  readonly ownsPropagator: boolean;
  refs: number;
}

let shared: SharedSdk | undefined;
let starting: Promise<unknown> | undefined;

/** A handle on the SDK for one plugin; `release()` shuts it down once the last holder lets go. */
export interface SdkLease {
  readonly provider: TracerProvider;
  release(): Promise<void>;
}

/**
 * Resolves the provider for a plugin that found none of its own: the SDK another fw app already
 * started (shared), a provider someone registered meanwhile (undefined: use the global one), or
 * a freshly started SDK. Serialised, so two apps starting at once start one SDK.
 */
export async function acquireSdk(config: TracingConfig): Promise<SdkLease | undefined> {
  while (starting !== undefined) await starting.catch(() => undefined);
  const registered = registeredProvider();
  if (registered !== undefined && (shared === undefined || registered !== shared.provider)) return undefined;
  if (shared === undefined) {
    const start = startSdk(config);
    starting = start;
    try {
      shared = await start;
    } finally {
      starting = undefined;
    }
  } else {
    shared.refs++;
  }
  return lease(shared);
}

function lease(sdk: SharedSdk): SdkLease {
  let released = false;
  return {
    provider: sdk.provider,
    async release() {
      if (released) return;
      released = true;
      if (--sdk.refs > 0) return;
      if (shared === sdk) shared = undefined;
      try {
        await sdk.shutdown();
      } finally {
        // Unregister what we registered, so a later app in this process starts afresh rather
        // than finding a provider that has been shut down.
        if (globalDelegate() === sdk.provider) trace.disable();
        if (sdk.ownsPropagator) propagation.disable();
        if (sdk.ownsContextManager) context.disable();
      }
    },
  };
}

async function startSdk(config: TracingConfig): Promise<SharedSdk> {
  const { NodeSDK } = await loadPeer('@opentelemetry/sdk-node', () => import('@opentelemetry/sdk-node'));
  const ownsContextManager = !hasContextManager();
  const ownsPropagator = propagation.fields().length === 0;
  const env = process.env;
  const options: Partial<NodeSDKConfiguration> = {
    serviceName: config.serviceName,
    spanProcessors: await spanProcessors(config),
    // Tracing only: metrics and logs are set up from the environment when asked for there,
    // never by default (the SDK would otherwise export both to localhost:4318).
    metricReaders: env.OTEL_METRICS_EXPORTER ? undefined : [],
    logRecordProcessors: env.OTEL_LOGS_EXPORTER ? undefined : [],
    // null: leave what the application registered itself in place.
    contextManager: ownsContextManager ? undefined : (null as unknown as ContextManager),
    textMapPropagator: ownsPropagator ? undefined : null,
  };
  if (config.resourceAttributes !== undefined) {
    const { defaultResource, resourceFromAttributes } = await loadPeer('@opentelemetry/resources', () => import('@opentelemetry/resources'));
    options.resource = defaultResource().merge(resourceFromAttributes(config.resourceAttributes));
  }
  const sdk = new NodeSDK(options);
  sdk.start();
  const provider = registeredProvider();
  if (provider === undefined) {
    await sdk.shutdown().catch(() => undefined);
    throw new Error('@fw/tracing: the OpenTelemetry SDK started but registered no tracer provider');
  }
  return { shutdown: () => sdk.shutdown(), provider, ownsContextManager, ownsPropagator, refs: 1 };
}

/** The span processors for the SDK, or undefined to let the SDK configure them from OTEL_* variables. */
async function spanProcessors(config: TracingConfig): Promise<SpanProcessor[] | undefined> {
  if (config.spanProcessors !== undefined) return config.spanProcessors;
  const env = process.env;
  const envExporter = env.OTEL_TRACES_EXPORTER?.trim();
  const exporter = config.exporter ?? (envExporter ? (envExporter === 'none' ? 'none' : undefined) : 'otlp');
  // Anything else the variable names (zipkin, several exporters) is the SDK's own business.
  if (exporter === undefined) return undefined;
  const base = await loadPeer('@opentelemetry/sdk-trace-base', () => import('@opentelemetry/sdk-trace-base'));
  if (exporter === 'none') return [new base.NoopSpanProcessor()];
  if (exporter === 'console') return [new base.SimpleSpanProcessor(new base.ConsoleSpanExporter())];
  if (typeof exporter === 'object') return [new base.BatchSpanProcessor(exporter)];
  const protocol = config.otlpProtocol ?? (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL)?.trim();
  if (protocol === 'grpc' && config.endpoint === undefined && config.otlpHeaders === undefined) return undefined;
  const otlp = { url: config.endpoint === undefined ? undefined : tracesUrl(config.endpoint), headers: config.otlpHeaders };
  const { OTLPTraceExporter } = (protocol as OtlpProtocol | undefined) === 'http/json'
    ? await loadPeer('@opentelemetry/exporter-trace-otlp-http', () => import('@opentelemetry/exporter-trace-otlp-http'))
    : await loadPeer('@opentelemetry/exporter-trace-otlp-proto', () => import('@opentelemetry/exporter-trace-otlp-proto'));
  return [new base.BatchSpanProcessor(new OTLPTraceExporter(otlp))];
}

/** An endpoint given without a path is the collector's base URL: append the traces path. */
export function tracesUrl(endpoint: string): string {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch (err) {
    throw new TypeError(`@fw/tracing: endpoint must be an absolute URL, got "${endpoint}"`, { cause: err });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`@fw/tracing: endpoint must be an http(s) URL, got "${endpoint}"`);
  if (url.pathname === '/' || url.pathname === '') url.pathname = '/v1/traces';
  return url.toString();
}

/** Whether a context manager is registered (the API's default one keeps no values). */
function hasContextManager(): boolean {
  const key = createContextKey('@fw/tracing probe');
  return context.with(context.active().setValue(key, true), () => context.active().getValue(key) === true);
}

/**
 * Loads one of the SDK packages, optional peer dependencies that only starting the SDK here needs.
 * Rejects with an error naming the package and the command installing it when it is not installed.
 */
export async function loadPeer<T extends object>(name: string, importer: () => Promise<T>): Promise<T> {
  let mod: T & { default?: T };
  try {
    mod = await importer();
  } catch (err) {
    if (isNotInstalled(err, name)) {
      throw new Error(
        `@fw/tracing: no tracer provider is registered, so tracing starts the OpenTelemetry SDK, which needs "${name}", ` +
          `an optional peer dependency of @fw/tracing that is not installed. Install it (npm install ${name}) ` +
          `or register your own tracer provider.`,
        { cause: err },
      );
    }
    throw new Error(`@fw/tracing: "${name}" could not be loaded: ${errorText(err)}`, { cause: err });
  }
  // A CommonJS package imported from ESM may expose its names only on `default`.
  return mod.default !== undefined && typeof mod.default === 'object' ? { ...mod.default, ...mod } : mod;
}

/** Whether `err` says `name` itself cannot be found (not something it needs in turn). */
function isNotInstalled(err: unknown, name: string): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as NodeJS.ErrnoException).code;
  // require(): "Cannot find module 'x'"; import(): "Cannot find package 'x' imported from ...".
  return (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND') && err.message.includes(`'${name}'`);
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
