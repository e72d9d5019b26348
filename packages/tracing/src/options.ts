/**
 * @fw/tracing/options — the option names and named values of `tracingPlugin()`, alone: no other
 * module of the package is loaded with them, so `createApp` checks `observability.tracing` with
 * tracing off without loading tracing (or OpenTelemetry).
 */
import type { OtlpProtocol, TracingConfig, TracingExporter } from './types.js';

// Every name, typed: the compiler fails here when an option or a value is added to the types but
// not to these lists, so a valid one is never refused.
const CONFIG_KEYS: Record<keyof TracingConfig, true> = {
  enabled: true,
  serviceName: true,
  exporter: true,
  endpoint: true,
  otlpHeaders: true,
  otlpProtocol: true,
  spanProcessors: true,
  resourceAttributes: true,
  tracerProvider: true,
  responseHeader: true,
  activeContext: true,
  ignore: true,
};
const EXPORTERS: Record<Extract<TracingExporter, string>, true> = { otlp: true, console: true, none: true };
const OTLP_PROTOCOLS: Record<OtlpProtocol, true> = { 'http/protobuf': true, 'http/json': true };

/** The option names of `tracingPlugin()` (and of `createApp`'s `observability.tracing`). */
export const TRACING_OPTION_NAMES: readonly string[] = Object.freeze(Object.keys(CONFIG_KEYS));
/** The exporters `exporter` names by a string (it also takes a span exporter). */
export const TRACING_EXPORTERS: readonly string[] = Object.freeze(Object.keys(EXPORTERS));
/** The encodings `otlpProtocol` takes. */
export const TRACING_OTLP_PROTOCOLS: readonly string[] = Object.freeze(Object.keys(OTLP_PROTOCOLS));
