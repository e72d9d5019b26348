/**
 * @fw/metrics/options — the option names of `metricsPlugin()`, alone: no other module of the
 * package is loaded with them, so `createApp` checks `observability.metrics` with metrics off
 * without loading metrics (or OpenTelemetry).
 */
import type { MetricsConfig, OtlpMetricsConfig } from './types.js';

// Every option name, typed: the compiler fails here when an option is added to the config types
// but not to these lists, so a valid option is never refused.
const CONFIG_KEYS: Record<keyof MetricsConfig, true> = {
  enabled: true,
  path: true,
  port: true,
  host: true,
  otlp: true,
  serviceName: true,
  resourceAttributes: true,
  ignore: true,
};
const OTLP_KEYS: Record<keyof OtlpMetricsConfig, true> = { endpoint: true, headers: true, protocol: true, interval: true };

/** The option names of `metricsPlugin()` (and of `createApp`'s `observability.metrics`). */
export const METRICS_OPTION_NAMES: readonly string[] = Object.freeze(Object.keys(CONFIG_KEYS));
/** The option names of `otlp`. */
export const OTLP_OPTION_NAMES: readonly string[] = Object.freeze(Object.keys(OTLP_KEYS));
