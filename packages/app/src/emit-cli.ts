import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { emit, type EmitResult, type EmitTarget } from './emit.js';
import { loadExportedApp, notAnApp } from './internal/app-module.js';

/** Where the command line writes: `process.stdout`/`process.stderr` in the `fw` binary. */
export interface CliIO {
  cwd: string;
  out(text: string): void;
  err(text: string): void;
}

/** The command line's usage text. */
export const USAGE = `Usage: fw emit <app-module> [options]

Writes the schemas of the app the module exports (default export or "app": the app, a function
returning it, or a promise of it; the module must not call listen()):
  schema.graphql   the GraphQL schema, when the app serves GraphQL
  <name>.proto     the .proto files of its gRPC operations
  openapi.json     its OpenAPI document
  <file>.ts        with --client: a typed TypeScript client of its operations' REST routes

Options:
  --out <dir>        where schema.graphql and openapi.json go (default: the current directory)
  --proto-out <dir>  where the .proto files go (default: the gRPC plugin's protoOut, else <out>/proto)
  --no-graphql       do not write schema.graphql
  --no-proto         do not write the .proto files
  --no-openapi       do not write openapi.json
  --client <file>    also write the typed client of the operations to <file> (a .ts module
                     that needs nothing but fetch: createClient, FwClientError, one method
                     per operation); with --check, report it when it is out of date
  --check            write nothing: compare with the files there (the committed ones), print
                     each change (breaking, dangerous or safe), and exit 2 when one breaks
                     existing clients
  --strict           with --check: exit 2 on a dangerous change too (clients keep working but
                     may get what they do not handle: a new enum value in a response, a default)
  -h, --help         show this text

A relative protoOut in the gRPC config is read from the app's package directory (the nearest
folder at or above the module with a package.json), whatever the current directory.

Also: fw start <app-module> [--workers N] [--port P] serves the app (fw start --help).
`;

/** A failure the command reports as one line, without a stack. */
class CliError extends Error {}

/**
 * Runs `fw <args>`: `emit` loads the app module, writes its schemas and prints what it wrote
 * (`--check`: compares them with the files there and prints the changes). Resolves to the exit
 * code: 0; 1 with a message on stderr; 2 when `--check` found a change that breaks clients (with
 * `--strict`, or a dangerous one).
 */
export async function runCli(args: readonly string[], io: CliIO): Promise<number> {
  try {
    return await run(args, io);
  } catch (err) {
    io.err(`fw: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}

async function run(args: readonly string[], io: CliIO): Promise<number> {
  const [command, ...rest] = args;
  if (command === undefined || command === '-h' || command === '--help' || command === 'help') {
    io.out(USAGE);
    return command === undefined ? 1 : 0;
  }
  if (command !== 'emit') throw new CliError(`unknown command "${command}"\n\n${USAGE}`);
  let parsed: ReturnType<typeof parseEmitArgs>;
  try {
    parsed = parseEmitArgs(rest);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    // node's message goes on about positionals starting with '-': name the option only.
    const unknown = /^Unknown option '([^']+)'/.exec(message);
    throw new CliError(`${unknown === null ? message : `unknown option ${unknown[1]}`}\n\n${USAGE}`);
  }
  const { values, positionals } = parsed;
  if (values.help === true) {
    io.out(USAGE);
    return 0;
  }
  if (positionals.length !== 1) throw new CliError(`emit takes one app module, got ${positionals.length}\n\n${USAGE}`);
  if (values.strict === true && values.check !== true) throw new CliError(`--strict goes with --check\n\n${USAGE}`);
  const spec = positionals[0]!;
  const app = await loadApp(resolve(io.cwd, spec), spec);
  try {
    if (app.server !== undefined) throw new CliError(`${spec} started a server while loading: export the app without calling listen()`);
    const check = values.check === true;
    const strict = values.strict === true;
    const result = await emit({
      app,
      out: resolve(io.cwd, values.out ?? '.'),
      base: packageDirectory(resolve(io.cwd, spec)),
      check,
      strict,
      ...(values['proto-out'] === undefined ? {} : { protoOut: resolve(io.cwd, values['proto-out']) }),
      ...(values.client === undefined ? {} : { client: resolve(io.cwd, values.client) }),
      graphql: values['no-graphql'] !== true,
      proto: values['no-proto'] !== true,
      openapi: values['no-openapi'] !== true,
    });
    const shown = (path: string): string => relative(io.cwd, path) || path;
    for (const warning of result.warnings) io.err(`fw: warning: ${warning}\n`);
    if (check) return report(result, shown, io);
    for (const file of result.files) io.out(`${file.changed ? 'wrote' : 'unchanged'} ${shown(file.path)}\n`);
    for (const skipped of result.skipped) io.out(`skipped ${skipped.kind}: ${skipped.reason}\n`);
    return 0;
  } finally {
    if (app.server !== undefined && typeof app.close === 'function') await app.close();
  }
}

/** Exit code of `fw emit --check` when a change breaks existing clients (1 stays "the command failed"). */
const BREAKING_EXIT_CODE = 2;

/**
 * Prints `--check`'s findings: one line per change, those that break clients first
 * (`breaking <file>: <what>`, with `[wire]`, `[json]` or `[api]` for a .proto change), then the
 * dangerous ones (`dangerous <file>: <what>`; with `--strict` they count as breaking), then the
 * safe ones, the files out of date, and a summary. Resolves to 2 when anything breaks, else 0.
 */
function report(result: EmitResult, shown: (path: string) => string, io: CliIO): number {
  const changes = result.changes ?? [];
  for (const change of changes) {
    const label = change.dangerous ? 'dangerous' : change.breaking ? 'breaking' : 'safe';
    io.out(`${label} ${change.file}: ${change.message}${change.level === undefined ? '' : ` [${change.level}]`}\n`);
  }
  for (const file of result.files) if (file.changed) io.out(`out of date ${shown(file.path)}\n`);
  for (const skipped of result.skipped) io.out(`skipped ${skipped.kind}: ${skipped.reason}\n`);
  const breaking = changes.filter((change) => change.breaking).length;
  const dangerous = changes.filter((change) => change.dangerous).length;
  const stale = result.files.filter((file) => file.changed).length;
  const files = `${stale} ${stale === 1 ? 'file' : 'files'} to emit and commit`;
  if (breaking > 0) {
    // With --strict the dangerous changes are among the breaking ones: say how many.
    const counted = changes.some((change) => change.breaking && change.dangerous) ? ` (${dangerous} dangerous, counted by --strict)` : '';
    io.err(`fw: ${breaking} ${breaking === 1 ? 'change breaks' : 'changes break'} existing clients${counted}\n`);
    return BREAKING_EXIT_CODE;
  }
  if (dangerous > 0) io.out(`no breaking changes (${dangerous} dangerous, which --strict refuses; ${files})\n`);
  else io.out(stale === 0 ? 'no changes\n' : `no breaking changes (${files})\n`);
  return 0;
}

/** The nearest directory at or above `file`'s holding a package.json, else `file`'s own directory. */
function packageDirectory(file: string): string {
  const start = dirname(file);
  for (let dir = start; ; ) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return start;
    dir = parent;
  }
}

function parseEmitArgs(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: {
      out: { type: 'string' },
      'proto-out': { type: 'string' },
      client: { type: 'string' },
      'no-graphql': { type: 'boolean' },
      'no-proto': { type: 'boolean' },
      'no-openapi': { type: 'boolean' },
      check: { type: 'boolean' },
      strict: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

/** The app a module exports: `default`, else `app`; a function is called, a promise awaited. */
type LoadedApp = EmitTarget & { readonly server?: unknown; close?: () => Promise<void> };

async function loadApp(file: string, spec: string): Promise<LoadedApp> {
  const { value, name } = await loadExportedApp(file, spec, (message) => new CliError(message), 'and run fw emit again, or emit from a compiled .js module');
  if (!isApp(value)) throw new CliError(notAnApp(spec, name));
  return value;
}

function isApp(value: unknown): value is LoadedApp {
  if (value === null || typeof value !== 'object') return false;
  const candidate = value as Partial<Record<keyof EmitTarget, unknown>>;
  return typeof candidate.getRoutes === 'function' && typeof candidate.getPlugin === 'function';
}
