import type { ApplicationConfig } from '@fw/core';
import type { OtlpProtocol, TracingExporter } from '@fw/tracing';
import type { AppOptions, ProtocolManagerConfig, TracingOptions } from '../create-app.js';
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
  trustProxy: true,
  timeouts: true,
  closeTimeout: true,
  onLog: true,
  logUnhandledRejections: true,
  methodNotAllowed: true,
};
const APP_KEYS: Record<Exclude<keyof AppOptions, keyof ApplicationConfig>, true> = {
  protocols: true,
  adapter: true,
  observability: true,
  cors: true,
  middleware: true,
  onError: true,
  onNotFound: true,
};
const PROTOCOL_KEYS: Record<keyof ProtocolManagerConfig, true> = { graphql: true, grpc: true };
const OBSERVABILITY_KEYS: Record<keyof NonNullable<AppOptions['observability']>, true> = { tracing: true };
// Checked here, where `@fw/tracing` is not loaded: with tracing off it never is, and a misspelt
// `enabled` would otherwise leave tracing off without a word. Its values are checked by
// `tracingPlugin()` when tracing is on.
const TRACING_KEYS: Record<keyof TracingOptions, true> = {
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

// The named values of the tracing options, typed by `@fw/tracing`'s own types (a new one fails
// to compile here until it is listed), so a misspelt one is refused with tracing off as well.
const EXPORTERS: Record<Extract<TracingExporter, string>, true> = { otlp: true, console: true, none: true };
const OTLP_PROTOCOLS: Record<OtlpProtocol, true> = { 'http/protobuf': true, 'http/json': true };

/** Names other frameworks use for what fw calls otherwise; the message names the fw way. */
const HINTS: Record<string, string> = {
  hostname: 'did you mean "host"?',
  errorHandler: 'the error handler is "onError": createApp({ onError: (error, ctx) => ... })',
  notFound: 'the 404 handler is "onNotFound": createApp({ onNotFound: (ctx) => ... })',
  graphql: 'GraphQL is configured under protocols: createApp({ protocols: { graphql: { schema } } })',
  grpc: 'gRPC is configured under protocols: createApp({ protocols: { grpc: { services } } })',
  tracing: 'tracing is configured under observability: createApp({ observability: { tracing: { enabled: true, serviceName } } })',
};

function refuseUnknown(value: object, accepted: readonly string[], path: string, hints: Record<string, string> = {}): void {
  for (const key of Object.keys(value)) {
    if (accepted.includes(key)) continue;
    const name = path === '' ? key : `${path}.${key}`;
    const hint = Object.hasOwn(hints, key) ? hints[key] : undefined;
    if (hint !== undefined) throw new TypeError(`createApp: unknown option "${name}": ${hint}`);
    const near = loadCorePlugin().nearestName(key, accepted);
    const list = `ccepted ${path === '' ? 'options' : `keys of ${path}`} are: ${accepted.join(', ')}`;
    throw new TypeError(`createApp: unknown option "${name}"; ${near === undefined ? `the a${list}` : `did you mean "${near}"? The a${list}`}`);
  }
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
  if (exporter !== undefined && typeof exporter !== 'object' && !(typeof exporter === 'string' && Object.hasOwn(EXPORTERS, exporter))) {
    const near = typeof exporter === 'string' ? loadCorePlugin().nearestName(exporter, Object.keys(EXPORTERS)) : undefined;
    throw new TypeError(
      `${path}.exporter must be 'otlp', 'console', 'none' or a span exporter, got ${typeof exporter === 'string' ? `"${exporter}"` : kind(exporter)}${near === undefined ? '' : `; did you mean "${near}"?`}`,
    );
  }
  if (otlpProtocol !== undefined && !(typeof otlpProtocol === 'string' && Object.hasOwn(OTLP_PROTOCOLS, otlpProtocol))) {
    throw new TypeError(`${path}.otlpProtocol must be 'http/protobuf' or 'http/json', got ${typeof otlpProtocol === 'string' ? `"${otlpProtocol}"` : kind(otlpProtocol)}`);
  }
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
  const { protocols, observability } = options as AppOptions;
  if (protocols !== undefined) {
    if (!isObject(protocols)) throw new TypeError('createApp: protocols must be an object ({ graphql?, grpc? })');
    refuseUnknown(protocols, Object.keys(PROTOCOL_KEYS), 'protocols');
  }
  if (observability !== undefined) {
    if (!isObject(observability)) throw new TypeError('createApp: observability must be an object ({ tracing? })');
    refuseUnknown(observability, Object.keys(OBSERVABILITY_KEYS), 'observability');
    const { tracing } = observability as { tracing?: unknown };
    if (tracing !== undefined) {
      if (!isObject(tracing)) throw new TypeError(`createApp: observability.tracing must be an object ({ enabled, serviceName, ... }), got ${kind(tracing)}`);
      refuseUnknown(tracing, Object.keys(TRACING_KEYS), 'observability.tracing');
      checkTracingValues(tracing);
    }
  }
}
