/**
 * Sums the Prometheus text of several processes of one app into one exposition: what `fw start`
 * serves on the metrics path, so a scrape sees the whole instance and never one worker's counters.
 *
 * Written here rather than taken from prom-client's AggregatorRegistry: that one merges the JSON of
 * prom-client registries, while fw's metrics come from the OpenTelemetry Prometheus exporter as
 * text. The rule is prom-client's: a sample with the same name and labels in several workers is
 * summed (counters, histogram buckets, `_sum` and `_count`, and gauges such as in-flight requests),
 * except info series (`target_info`, `*_info`), which describe the process and are kept once.
 */

interface Family {
  /** `# HELP`, `# TYPE`, `# UNIT` lines, from the first text that had them. */
  readonly meta: string[];
  /** Samples by name and sorted labels, in the order first seen. */
  readonly samples: Map<string, Sample>;
  info: boolean;
}

interface Sample {
  readonly series: string;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})?\s+(\S+)(?:\s+-?\d+)?$/;
const SUFFIXES = ['_bucket', '_sum', '_count', '_total', '_created'];

/** One exposition in which the samples of equal name and labels are summed across `texts`. */
export function mergePrometheusText(texts: readonly string[]): string {
  const families = new Map<string, Family>();
  const familyOf = (name: string): Family => {
    let family = families.get(name);
    if (family === undefined) families.set(name, (family = { meta: [], samples: new Map(), info: name === 'target_info' || name.endsWith('_info') }));
    return family;
  };
  for (const text of texts) {
    let current: string | undefined;
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      if (line.startsWith('#')) {
        const meta = /^#\s+(HELP|TYPE|UNIT)\s+(\S+)/.exec(line);
        if (meta === null) continue;
        current = meta[2]!;
        const family = familyOf(current);
        if (meta[1] === 'TYPE' && / info$/.test(line)) family.info = true;
        // Metadata comes from the first text that has the family; the others repeat it.
        if (!family.meta.some((kept) => kept.startsWith(`# ${meta[1]} `))) family.meta.push(line);
        continue;
      }
      const sample = SAMPLE.exec(line);
      if (sample === null) continue;
      const name = sample[1]!;
      const family = familyOf(current !== undefined && belongsTo(name, current) ? current : name);
      const series = `${name}${canonicalLabels(sample[2])}`;
      const value = parseValue(sample[3]!);
      const known = family.samples.get(series);
      if (known === undefined) family.samples.set(series, { series, value });
      else known.value = family.info ? Math.max(known.value, value) : known.value + value;
    }
  }
  const out: string[] = [];
  for (const family of families.values()) {
    out.push(...family.meta);
    for (const sample of family.samples.values()) out.push(`${sample.series} ${formatValue(sample.value)}`);
  }
  return out.length === 0 ? '' : `${out.join('\n')}\n`;
}

function belongsTo(sample: string, family: string): boolean {
  return sample === family || SUFFIXES.some((suffix) => sample === family + suffix);
}

/** The label set with its pairs sorted by name, so the same series matches whatever the order. */
function canonicalLabels(block: string | undefined): string {
  if (block === undefined || block === '{}') return '';
  const pairs: string[] = [];
  const body = block.slice(1, -1);
  const pair = /\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*,?/y;
  let match: RegExpExecArray | null;
  while (pair.lastIndex < body.length && (match = pair.exec(body)) !== null) pairs.push(`${match[1]}="${match[2]}"`);
  pairs.sort((a, b) => (a.slice(0, a.indexOf('=')) < b.slice(0, b.indexOf('=')) ? -1 : 1));
  return `{${pairs.join(',')}}`;
}

function parseValue(text: string): number {
  if (text === '+Inf') return Number.POSITIVE_INFINITY;
  if (text === '-Inf') return Number.NEGATIVE_INFINITY;
  return Number(text);
}

function formatValue(value: number): string {
  if (value === Number.POSITIVE_INFINITY) return '+Inf';
  if (value === Number.NEGATIVE_INFINITY) return '-Inf';
  return Number.isNaN(value) ? 'NaN' : String(value);
}
