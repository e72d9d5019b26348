/**
 * A strict reader of the Prometheus text exposition format (version 0.0.4) for tests: every line
 * must be a comment (`# HELP`, `# TYPE`, `# UNIT`), blank, or a sample `name{label="value",...} value`;
 * anything else throws, so a malformed scrape fails the test that reads it.
 */

/** One sample line. */
export interface PromSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** A metric family's metadata: its `# TYPE`, `# HELP` and `# UNIT` lines. */
export interface PromFamily {
  type?: string;
  help?: string;
  unit?: string;
}

/** What a scrape says: the families by name and every sample in order. */
export interface PromText {
  families: Map<string, PromFamily>;
  samples: PromSample[];
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(.*)\\})?\\s+(\\S+)(?:\\s+-?\\d+)?$`);
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(,|$)/y;

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  LABEL.lastIndex = 0;
  while (LABEL.lastIndex < text.length) {
    const start = LABEL.lastIndex;
    const match = LABEL.exec(text);
    if (match === null || LABEL.lastIndex === start) throw new Error(`malformed labels in line: ${line}`);
    labels[match[1]!] = match[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
  }
  return labels;
}

function parseValue(text: string, line: string): number {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  if (text === 'NaN') return NaN;
  const value = Number(text);
  if (Number.isNaN(value)) throw new Error(`malformed value in line: ${line}`);
  return value;
}

/** Reads a Prometheus text scrape; throws on any line that is not valid exposition format. */
export function parsePrometheusText(text: string): PromText {
  const families = new Map<string, PromFamily>();
  const samples: PromSample[] = [];
  const family = (name: string): PromFamily => {
    let found = families.get(name);
    if (found === undefined) families.set(name, (found = {}));
    return found;
  };
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    if (line.startsWith('#')) {
      const meta = new RegExp(`^# (HELP|TYPE|UNIT) (${NAME})(?: (.*))?$`).exec(line);
      if (meta === null) throw new Error(`malformed comment line: ${line}`);
      const key = meta[1]!.toLowerCase() as 'help' | 'type' | 'unit';
      family(meta[2]!)[key] = meta[3] ?? '';
      continue;
    }
    const match = SAMPLE.exec(line);
    if (match === null) throw new Error(`malformed sample line: ${line}`);
    samples.push({ name: match[1]!, labels: match[2] === undefined ? {} : parseLabels(match[2], line), value: parseValue(match[3]!, line) });
  }
  return { families, samples };
}

/** The samples of one name whose labels include every given label. */
export function samplesOf(scrape: PromText, name: string, labels: Record<string, string> = {}): PromSample[] {
  return scrape.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}
