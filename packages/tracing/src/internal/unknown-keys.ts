import { checkOptions } from '@fw/core/plugin';
import { TRACING_OPTION_NAMES } from '../options.js';

/**
 * Throws a TypeError for a key `tracingPlugin` does not know: a misspelt `exporter` would
 * otherwise export to OTLP, a misspelt `enabled` leave the default, without a word.
 */
export function refuseUnknownOptions(config: object): void {
  checkOptions(config, TRACING_OPTION_NAMES, { owner: 'tracingPlugin' });
}
