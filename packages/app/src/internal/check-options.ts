import type { ApplicationConfig } from '@fw/core';
import { CONNECT_OPTION_NAMES } from '@fw/connect';
import { METRICS_OPTION_NAMES, OTLP_OPTION_NAMES, type MetricsConfig } from '@fw/metrics';
import { TRACING_EXPORTERS, TRACING_OPTION_NAMES, TRACING_OTLP_PROTOCOLS, type TracingConfig } from '@fw/tracing';
import type { AppOptions, MetricsOptions, ProtocolManagerConfig, TracingOptions } from '../create-app.js';
import type { HealthOptions } from '../production/health.js';
import type { ShutdownOptions } from '../production/signals.js';
import { loadCorePlugin } from './optional.js';

// Records keyed by every option name: the compiler fails here when an option is added to the
// types but not to these lists, so a valid option is never refused.
const CORE_KEYS: Record<keyof ApplicationConfig, true> = {
  port: true,
  host: true,
  bodyLimit: true,
  maxQueryKeys: true,
  maxUrlLength: true,
  maxJsonDepth: true,
  decompressBody: true,
  trustProxy: true,
  timeout: true,
  timeouts: true,
  closeTimeout: true,
  onLog: true,
  logUnhandledRejections: true,
  methodNotAllowed: true,
  streams: true,
  multipart: true,
};
const APP_KEYS: Record<Exclude<keyof AppOptions, keyof ApplicationConfig>, true> = {
  protocols: true,
  adapter: true,
  observability: true,
  cors: true,
  middleware: true,
  onError: true,
  onNotFound: true,
  health: true,
  shutdown: true,
};
const PROTOCOL_KEYS: Record<keyof ProtocolManagerConfig, true> = { graphql: true, grpc: true, connect: true };
const OBSERVABILITY_KEYS: Record<keyof NonNullable<AppOptions['observability']>, true> = { tracing: true, metrics: true };
const HEALTH_KEYS: Record<keyof HealthOptions, true> = { livePath: true, readyPath: true, checks: true, checkTimeout: true, checkInterval: true };
const SHUTDOWN_KEYS: Record<keyof ShutdownOptions, true> = { signals: true, delay: true, beforeExit: true };
// `observability.tracing` and `.metrics` are checked here, against the option names their packages
// define (importing them loads no OpenTelemetry), even when they are off: a misspelt `enabled`
// would otherwise leave tracing off without a word. Their values are checked by the plugins when
// they are on. The compiler fails here if createApp's own types add a key those lists cannot know.
type Within<Known, Keys extends Known> = Keys;
type _TracingKeys = Within<keyof TracingConfig, keyof TracingOptions>;
type _MetricsKeys = Within<keyof MetricsConfig, keyof MetricsOptions>;

/** Names other frameworks use for what fw calls otherwise; the message names the fw way. */
const HINTS: Record<string, string> = {
  hostname: 'did you mean "host"?',
  errorHandler: 'the error handler is "onError": createApp({ onError: (error, ctx) => ... })',
  notFound: 'the 404 handler is "onNotFound": createApp({ onNotFound: (ctx) => ... })',
  graphql: 'GraphQL is configured under protocols: createApp({ protocols: { graphql: { schema } } })',
  grpc: 'gRPC is configured under protocols: createApp({ protocols: { grpc: { services } } })',
  connect: 'Connect is configured under protocols: createApp({ protocols: { connect: true } })',
  tracing: 'tracing is configured under observability: createApp({ observability: { tracing: { enabled: true, serviceName } } })',
  metrics: 'metrics are configured under observability: createApp({ observability: { metrics: { enabled: true } } })',
};

function refuseUnknown(value: object, accepted: readonly string[], path: string, hints?: Record<string, string>): void {
  // `@fw/core/plugin` words the refusal; loaded only for a key to refuse, so a start never loads it.
  if (Object.keys(value).some((key) => !accepted.includes(key))) loadCorePlugin().checkOptions(value, accepted, { owner: 'createApp', path, hints });
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
const kind = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value);

/** The values of the options `createApp` itself applies (the others are checked where they are used: core's by core). */
function checkValues(options: AppOptions): void {
  // port and host are core's, checked by `new Application()`.
  const { cors, middleware, onError, onNotFound } = options as Record<keyof AppOptions, unknown>;
  if (cors !== undefined && typeof cors !== 'boolean' && !isObject(cors)) {
    throw new TypeError(`createApp: cors must be true, false or a CorsConfig object ({ origin, methods, ... }), got ${typeof cors === 'string' ? `"${cors}"` : kind(cors)}`);
  }
  if (middleware !== undefined) {
    if (!Array.isArray(middleware)) throw new TypeError(`createApp: middleware must be an array of middleware functions (ctx, next), got ${typeof middleware === 'string' ? `"${middleware}"` : kind(middleware)}`);
    middleware.forEach((fn: unknown, i) => {
      if (typeof fn !== 'function') throw new TypeError(`createApp: middleware[${i}] must be a function, got ${kind(fn)}`);
    });
  }
  if (onError !== undefined && typeof onError !== 'function') throw new TypeError(`createApp: onError must be a function (error, ctx), got ${kind(onError)}`);
  if (onNotFound !== undefined && typeof onNotFound !== 'function') throw new TypeError(`createApp: onNotFound must be a function (ctx), got ${kind(onNotFound)}`);
}

/** What can be checked of `observability.tracing` without loading `@fw/tracing` (which checks the rest when tracing is on). */
function checkTracingValues(tracing: Record<string, unknown>): void {
  const { enabled, serviceName, exporter, otlpProtocol } = tracing;
  const path = 'createApp: observability.tracing';
  if (typeof enabled !== 'boolean') throw new TypeError(`${path}.enabled must be true or false, got ${kind(enabled)}`);
  if (serviceName !== undefined && (typeof serviceName !== 'string' || serviceName === '')) throw new TypeError(`${path}.serviceName must be a non-empty string, got ${kind(serviceName)}`);
  if (exporter !== undefined && typeof exporter !== 'object' && !(typeof exporter === 'string' && TRACING_EXPORTERS.includes(exporter))) {
    const near = typeof exporter === 'string' ? loadCorePlugin().nearestName(exporter, TRACING_EXPORTERS) : undefined;
    throw new TypeError(
      `${path}.exporter must be 'otlp', 'console', 'none' or a span exporter, got ${typeof exporter === 'string' ? `"${exporter}"` : kind(exporter)}${near === undefined ? '' : `; did you mean "${near}"?`}`,
    );
  }
  if (otlpProtocol !== undefined && !(typeof otlpProtocol === 'string' && TRACING_OTLP_PROTOCOLS.includes(otlpProtocol))) {
    throw new TypeError(`${path}.otlpProtocol must be 'http/protobuf' or 'http/json', got ${typeof otlpProtocol === 'string' ? `"${otlpProtocol}"` : kind(otlpProtocol)}`);
  }
}

const isPath = (value: unknown): boolean => typeof value === 'string' && value.startsWith('/');
const isMs = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 0;

/** `health`: its keys and values (the checks are functions, the paths paths, the times whole milliseconds). */
function checkHealth(health: unknown): void {
  if (health === undefined || health === false) return;
  if (!isObject(health)) throw new TypeError(`createApp: health must be false or an object ({ livePath, readyPath, checks, ... }), got ${kind(health)}`);
  refuseUnknown(health, Object.keys(HEALTH_KEYS), 'health');
  const { livePath, readyPath, checks, checkTimeout, checkInterval } = health;
  for (const [name, path] of [['livePath', livePath], ['readyPath', readyPath]] as const) {
    if (path !== undefined && path !== false && !isPath(path)) throw new TypeError(`createApp: health.${name} must be a path starting with "/" or false, got ${JSON.stringify(path)}`);
  }
  if (livePath !== undefined && livePath !== false && livePath === readyPath) throw new TypeError('createApp: health.livePath and health.readyPath must differ');
  if (checks !== undefined) {
    if (!isObject(checks)) throw new TypeError(`createApp: health.checks must be an object of named check functions ({ redis: () => redis.ping() }), got ${kind(checks)}`);
    for (const [name, check] of Object.entries(checks)) {
      if (typeof check !== 'function') throw new TypeError(`createApp: health.checks.${name} must be a function, got ${kind(check)}`);
    }
  }
  if (checkTimeout !== undefined && !(isMs(checkTimeout) && checkTimeout > 0)) throw new TypeError(`createApp: health.checkTimeout must be a positive integer (milliseconds), got ${JSON.stringify(checkTimeout)}`);
  if (checkInterval !== undefined && !isMs(checkInterval)) throw new TypeError(`createApp: health.checkInterval must be an integer ≥ 0 (milliseconds), got ${JSON.stringify(checkInterval)}`);
}

/** `shutdown`: its keys and values. */
function checkShutdown(shutdown: unknown): void {
  if (shutdown === undefined || shutdown === false) return;
  if (!isObject(shutdown)) throw new TypeError(`createApp: shutdown must be false or an object ({ signals, delay, beforeExit }), got ${kind(shutdown)}`);
  refuseUnknown(shutdown, Object.keys(SHUTDOWN_KEYS), 'shutdown');
  const { signals, delay, beforeExit } = shutdown;
  if (signals !== undefined && !(Array.isArray(signals) && signals.every((s) => typeof s === 'string' && /^SIG[A-Z0-9]+$/.test(s)))) {
    throw new TypeError(`createApp: shutdown.signals must be an array of signal names (['SIGTERM', 'SIGINT']), got ${JSON.stringify(signals)}`);
  }
  if (delay !== undefined && !isMs(delay)) throw new TypeError(`createApp: shutdown.delay must be an integer ≥ 0 (milliseconds), got ${JSON.stringify(delay)}`);
  if (beforeExit !== undefined && typeof beforeExit !== 'function') throw new TypeError(`createApp: shutdown.beforeExit must be a function, got ${kind(beforeExit)}`);
}

/** What can be checked of `observability.metrics` without loading `@fw/metrics`. */
function checkMetrics(metrics: unknown): void {
  if (!isObject(metrics)) throw new TypeError(`createApp: observability.metrics must be an object ({ enabled, path, port, ... }), got ${kind(metrics)}`);
  refuseUnknown(metrics, METRICS_OPTION_NAMES, 'observability.metrics');
  if (typeof metrics.enabled !== 'boolean') throw new TypeError(`createApp: observability.metrics.enabled must be true or false, got ${kind(metrics.enabled)}`);
  if (isObject(metrics.otlp)) refuseUnknown(metrics.otlp, OTLP_OPTION_NAMES, 'observability.metrics.otlp');
}

/**
 * Throws a TypeError for a key `createApp` does not know (top level, `protocols`, `observability`,
 * `observability.tracing`; the GraphQL and gRPC configs are checked by their packages) and for a
 * value of the wrong type among the options it applies itself: silently ignoring `prot` or
 * `enabeld` would leave an app on another port or untraced.
 */
export function checkOptions(options: unknown): asserts options is AppOptions {
  if (!isObject(options)) throw new TypeError(`createApp: options must be an object, got ${kind(options)}`);
  refuseUnknown(options, [...Object.keys(APP_KEYS), ...Object.keys(CORE_KEYS)], '', HINTS);
  checkValues(options);
  checkHealth(options.health);
  checkShutdown(options.shutdown);
  const { protocols, observability } = options as AppOptions;
  if (protocols !== undefined) {
    if (!isObject(protocols)) throw new TypeError('createApp: protocols must be an object ({ graphql?, grpc?, connect? })');
    refuseUnknown(protocols, Object.keys(PROTOCOL_KEYS), 'protocols');
    // Checked against the names @fw/connect defines (importing them loads none of its codecs), even when it is off.
    const { connect } = protocols as { connect?: unknown };
    if (connect !== undefined && typeof connect !== 'boolean') {
      if (!isObject(connect)) throw new TypeError(`createApp: protocols.connect must be true, false or an object ({ protoOut, maxMessageBytes, ... }), got ${kind(connect)}`);
      refuseUnknown(connect, CONNECT_OPTION_NAMES, 'protocols.connect');
    }
  }
  if (observability !== undefined) {
    if (!isObject(observability)) throw new TypeError('createApp: observability must be an object ({ tracing?, metrics? })');
    refuseUnknown(observability, Object.keys(OBSERVABILITY_KEYS), 'observability');
    const { tracing, metrics } = observability as { tracing?: unknown; metrics?: unknown };
    if (metrics !== undefined) checkMetrics(metrics);
    if (tracing !== undefined) {
      if (!isObject(tracing)) throw new TypeError(`createApp: observability.tracing must be an object ({ enabled, serviceName, ... }), got ${kind(tracing)}`);
      refuseUnknown(tracing, TRACING_OPTION_NAMES, 'observability.tracing');
      checkTracingValues(tracing);
    }
  }
}
