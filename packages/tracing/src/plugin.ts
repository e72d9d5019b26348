import type { Plugin, PluginHost } from '@fw/core/plugin';
import { TracingRuntime } from './internal/runtime.js';
import { tracesUrl } from './internal/sdk.js';
import { refuseUnknownOptions } from './internal/unknown-keys.js';
import { TRACING_EXPORTERS, TRACING_OTLP_PROTOCOLS } from './options.js';
import type { ProviderSource, TracingConfig } from './types.js';

/** The plugin `tracingPlugin()` returns. */
export interface TracingPlugin extends Plugin {
  readonly name: 'tracing';
  /** Whether requests are traced (`config.enabled`). */
  readonly enabled: boolean;
  /** Where the tracer provider came from once resolved: `option`, `global`, `sdk` (started here) or `disabled` (OTEL_SDK_DISABLED). */
  readonly source: ProviderSource | undefined;
  /** Resolves the tracer provider now, starting the SDK if none is registered (done on `listen()` and on the first request anyway). */
  start(): Promise<void>;
  /** Flushes pending spans and shuts down an SDK started here (done on `app.close()`). */
  shutdown(): Promise<void>;
}

/** The implementation of `tracingPlugin`: the package exports ./lazy.ts's, which loads this on its first call. */
export function tracingPlugin(config: TracingConfig = {}): TracingPlugin {
  validate(config);
  const enabled = config.enabled ?? true;
  const runtime = new TracingRuntime(config);
  let attached = false;
  return {
    name: 'tracing',
    enabled,
    get source() {
      return runtime.source;
    },
    setup(host: PluginHost) {
      // Disabled: nothing is registered, so requests pay nothing and contexts get no helpers.
      if (!enabled) return;
      if (attached) throw new Error('@fw/tracing: a tracingPlugin() instance can be registered with one application only');
      attached = true;
      runtime.log = (message, error) => host.log(message, error);
      host.wrap(runtime.middleware);
      host.onResponse(runtime.onResponse);
      host.onListen(() => runtime.start());
      // Warned, not thrown: the app is closing either way, and the spans not exported are lost.
      host.onClosed(() =>
        runtime.shutdown().catch((err: unknown) => {
          host.log(`@fw/tracing: the last spans could not be exported when the app closed: ${err instanceof Error ? err.message : String(err)}`);
        }),
      );
    },
    start: () => (enabled ? runtime.start() : Promise.resolve()),
    shutdown: () => runtime.shutdown(),
  };
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

function validate(config: TracingConfig): void {
  if (typeof config !== 'object' || config === null) throw new TypeError('tracingPlugin expects an options object');
  refuseUnknownOptions(config);
  for (const flag of ['enabled', 'activeContext'] as const) {
    if (config[flag] !== undefined && typeof config[flag] !== 'boolean') throw new TypeError(`tracing.${flag} must be true or false, got ${typeof config[flag]}`);
  }
  const { otlpHeaders, resourceAttributes, tracerProvider } = config as Record<string, unknown>;
  if (otlpHeaders !== undefined && (!isPlainObject(otlpHeaders) || Object.values(otlpHeaders).some((v) => typeof v !== 'string'))) {
    throw new TypeError('tracing.otlpHeaders must be an object of header names to string values');
  }
  if (resourceAttributes !== undefined && !isPlainObject(resourceAttributes)) throw new TypeError('tracing.resourceAttributes must be an object of attribute names to values');
  if (tracerProvider !== undefined && !(isPlainObject(tracerProvider) && typeof tracerProvider.getTracer === 'function')) {
    throw new TypeError('tracing.tracerProvider must be a TracerProvider (an object with getTracer())');
  }
  const { exporter, responseHeader, ignore, spanProcessors, serviceName } = config;
  if (serviceName !== undefined && (typeof serviceName !== 'string' || serviceName === '')) {
    throw new TypeError('tracing.serviceName must be a non-empty string');
  }
  if (exporter !== undefined && !(typeof exporter === 'string' && TRACING_EXPORTERS.includes(exporter)) && (typeof exporter !== 'object' || exporter === null || typeof exporter.export !== 'function')) {
    throw new TypeError(`tracing.exporter must be 'otlp', 'console', 'none' or a span exporter, got ${typeof exporter === 'object' ? 'an object without an export() method' : String(exporter)}`);
  }
  if (spanProcessors !== undefined && (!Array.isArray(spanProcessors) || spanProcessors.some((p) => typeof p?.onEnd !== 'function'))) {
    throw new TypeError('tracing.spanProcessors must be an array of span processors');
  }
  if (responseHeader !== undefined && responseHeader !== false && (typeof responseHeader !== 'string' || !/^[!#$%&'*+.^_`|~0-9a-z-]+$/i.test(responseHeader))) {
    throw new TypeError(`tracing.responseHeader must be a header name or false, got ${String(responseHeader)}`);
  }
  if (config.endpoint !== undefined) tracesUrl(config.endpoint);
  if (ignore !== undefined && typeof ignore !== 'function') throw new TypeError('tracing.ignore must be a function');
  if (config.otlpProtocol !== undefined && !TRACING_OTLP_PROTOCOLS.includes(config.otlpProtocol)) {
    throw new TypeError(`tracing.otlpProtocol must be 'http/protobuf' or 'http/json', got ${String(config.otlpProtocol)}`);
  }
}
