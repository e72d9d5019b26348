// Command-line flags shared by every benchmark: --rounds, --duration, --only, --json, --help.
import { parseArgs } from 'node:util';

/**
 * Parses the common flags plus `extra` ones (node:util parseArgs option specs).
 * `defaults` gives the default rounds and duration (seconds) of this benchmark.
 */
export function parseCli({ usage, defaults, extra = {} }) {
  const { values } = parseArgs({
    args: cliArgs(),
    options: {
      rounds: { type: 'string' },
      duration: { type: 'string' },
      only: { type: 'string' },
      json: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      ...extra,
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) {
    console.log(usage);
    process.exit(0);
  }
  const rounds = positiveNumber('--rounds', values.rounds, defaults.rounds);
  if (!Number.isInteger(rounds)) throw new TypeError('--rounds must be a whole number');
  const duration = positiveNumber('--duration', values.duration, defaults.duration);
  const only = values.only === undefined ? null : values.only.split(',').map((s) => s.trim()).filter(Boolean);
  return { ...values, rounds, duration, only };
}

/** The command-line arguments, without the `--` that `pnpm run x -- --flag` passes through. */
export function cliArgs() {
  const args = process.argv.slice(2);
  return args[0] === '--' ? args.slice(1) : args;
}

export function positiveNumber(flag, raw, fallback) {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!(n > 0)) throw new TypeError(`${flag} must be a positive number, got "${raw}"`);
  return n;
}

/**
 * Filters each named list by the --only tokens: a list none of whose names is mentioned is kept
 * whole, so `--only fw,raw` picks servers and keeps every scenario, `--only static` the reverse.
 * Unknown names are an error unless `ignoreUnknown` (several suites share one --only).
 */
export function applyOnly(only, lists, { ignoreUnknown = false } = {}) {
  if (only === null) return lists;
  const known = new Set(Object.values(lists).flat().map((x) => x.name));
  const unknown = only.filter((t) => !known.has(t));
  if (unknown.length > 0 && !ignoreUnknown) throw new Error(`--only: unknown name(s) ${unknown.join(', ')}; known: ${[...known].join(', ')}`);
  const out = {};
  for (const [key, list] of Object.entries(lists)) {
    const picked = list.filter((x) => only.includes(x.name));
    out[key] = picked.length === 0 ? list : picked;
  }
  return out;
}
