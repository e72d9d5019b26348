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

/** The edit distance of two short strings (insertions, deletions, substitutions). */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * Throws a TypeError for a key `tracingPlugin` does not know: a misspelt `exporter` would
 * otherwise export to OTLP, a misspelt `enabled` leave the default, without a word.
 */
export function refuseUnknownOptions(config: object): void {
  const names = Object.keys(CONFIG_KEYS);
  for (const key of Object.keys(config)) {
    if (Object.hasOwn(CONFIG_KEYS, key)) continue;
    let near: string | undefined;
    let best = 3;
    for (const name of names) {
      const d = distance(key.toLowerCase(), name.toLowerCase());
      if (d < best) [near, best] = [name, d];
    }
    const list = `ccepted options are: ${names.join(', ')}`;
    throw new TypeError(`tracingPlugin: unknown option "${key}"; ${near === undefined ? `the a${list}` : `did you mean "${near}"? The a${list}`}`);
  }
}
