import { checkOptions } from '@fw/core/plugin';
import { METRICS_OPTION_NAMES, OTLP_OPTION_NAMES } from '../options.js';
import type { MetricsConfig } from '../types.js';

// The keys of `otlp` are listed as "the accepted options", as at the top level.
const listing = (names: string): string => `the accepted options are: ${names}`;

const isPlainObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
const isPort = (value: unknown): boolean => typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 65535;

/** Throws a TypeError for an unknown key (with the key meant) or a value of the wrong type. */
export function validateMetricsConfig(config: unknown): asserts config is MetricsConfig {
  if (!isPlainObject(config)) throw new TypeError('metricsPlugin expects an options object');
  checkOptions(config, METRICS_OPTION_NAMES, { owner: 'metricsPlugin' });
  const { enabled, path, port, host, otlp, serviceName, resourceAttributes, ignore } = config;
  if (enabled !== undefined && typeof enabled !== 'boolean') throw new TypeError(`metrics.enabled must be true or false, got ${typeof enabled}`);
  if (path !== undefined && path !== false && (typeof path !== 'string' || !path.startsWith('/'))) {
    throw new TypeError(`metrics.path must be a path starting with "/" or false, got ${JSON.stringify(path)}`);
  }
  if (port !== undefined && !isPort(port)) throw new TypeError(`metrics.port must be an integer from 0 to 65535, got ${JSON.stringify(port)}`);
  if (host !== undefined && (typeof host !== 'string' || host === '')) throw new TypeError('metrics.host must be a non-empty string');
  if (host !== undefined && port === undefined) throw new TypeError('metrics.host is the admin server\'s interface: give metrics.port too');
  if (serviceName !== undefined && (typeof serviceName !== 'string' || serviceName === '')) throw new TypeError('metrics.serviceName must be a non-empty string');
  if (resourceAttributes !== undefined && !isPlainObject(resourceAttributes)) throw new TypeError('metrics.resourceAttributes must be an object of attribute names to values');
  if (ignore !== undefined && typeof ignore !== 'function') throw new TypeError('metrics.ignore must be a function');
  if (otlp !== undefined && typeof otlp !== 'boolean') {
    if (!isPlainObject(otlp)) throw new TypeError('metrics.otlp must be true, false or an object ({ endpoint, headers, protocol, interval })');
    checkOptions(otlp, OTLP_OPTION_NAMES, { owner: 'metricsPlugin', path: 'otlp', listing });
    const { endpoint, headers, protocol, interval } = otlp;
    if (endpoint !== undefined) metricsUrl(endpoint);
    if (headers !== undefined && (!isPlainObject(headers) || Object.values(headers).some((v) => typeof v !== 'string'))) {
      throw new TypeError('metrics.otlp.headers must be an object of header names to string values');
    }
    if (protocol !== undefined && protocol !== 'http/protobuf' && protocol !== 'http/json') {
      throw new TypeError(`metrics.otlp.protocol must be 'http/protobuf' or 'http/json', got ${JSON.stringify(protocol)}`);
    }
    if (interval !== undefined && !(typeof interval === 'number' && Number.isInteger(interval) && interval > 0)) {
      throw new TypeError(`metrics.otlp.interval must be a positive integer (milliseconds), got ${JSON.stringify(interval)}`);
    }
  }
}

/** An endpoint given without a path is the collector's base URL: append the metrics path. */
export function metricsUrl(endpoint: unknown): string {
  let url: URL;
  try {
    url = new URL(String(endpoint));
  } catch (err) {
    throw new TypeError(`metrics.otlp.endpoint must be an absolute URL, got "${String(endpoint)}"`, { cause: err });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`metrics.otlp.endpoint must be an http(s) URL, got "${String(endpoint)}"`);
  if (url.pathname === '/' || url.pathname === '') url.pathname = '/v1/metrics';
  return url.toString();
}
