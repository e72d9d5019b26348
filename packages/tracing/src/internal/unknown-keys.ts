import { checkOptions } from '@fw/core/plugin';
import type { TracingConfig } from '../types.js';

// Every option name, typed: the compiler fails here when an option is added to TracingConfig but
// not to this list, so a valid option is never refused.
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

/**
 * Throws a TypeError for a key `tracingPlugin` does not know: a misspelt `exporter` would
 * otherwise export to OTLP, a misspelt `enabled` leave the default, without a word.
 */
export function refuseUnknownOptions(config: object): void {
  checkOptions(config, Object.keys(CONFIG_KEYS), { owner: 'tracingPlugin' });
}
