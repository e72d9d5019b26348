import { STREAM_DEFAULTS } from '../config.js';
import type { ContextSettings } from '../context.js';
import { StreamRegistry } from '../stream-registry.js';
import { createLogger, type LogFunction } from './logging.js';

/** What a stream served over HTTP needs from its application: the registry (limits, timing) and the log. */
export interface StreamHost {
  readonly registry: StreamRegistry;
  readonly log: LogFunction;
}

const hosts = new WeakMap<Readonly<ContextSettings>, StreamHost>();
let fallback: StreamHost | undefined;

/** Links an application's context settings to its stream host (contexts carry only their settings). */
export function linkStreamHost(settings: Readonly<ContextSettings>, host: StreamHost): void {
  hosts.set(settings, host);
}

/** The stream host of the application whose settings these are; a context made outside an application gets defaults. */
export function streamHostOf(settings: Readonly<ContextSettings>): StreamHost {
  return hosts.get(settings) ?? (fallback ??= { registry: new StreamRegistry(STREAM_DEFAULTS), log: createLogger() });
}
