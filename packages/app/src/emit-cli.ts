import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { emit, type EmitTarget } from './emit.js';

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

Options:
  --out <dir>        where schema.graphql and openapi.json go (default: the current directory)
  --proto-out <dir>  where the .proto files go (default: the gRPC plugin's protoOut, else <out>/proto)
  --no-graphql       do not write schema.graphql
  --no-proto         do not write the .proto files
  --no-openapi       do not write openapi.json
  -h, --help         show this text
`;

/** A failure the command reports as one line, without a stack. */
class CliError extends Error {}

/**
 * Runs `fw <args>`: `emit` loads the app module, writes its schemas and prints what it wrote.
 * Resolves to the exit code: 0, or 1 with a message on stderr.
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
  const spec = positionals[0]!;
  const app = await loadApp(resolve(io.cwd, spec), spec);
  try {
    if (app.server !== undefined) throw new CliError(`${spec} started a server while loading: export the app without calling listen()`);
    const result = await emit({
      app,
      out: resolve(io.cwd, values.out ?? '.'),
      ...(values['proto-out'] === undefined ? {} : { protoOut: resolve(io.cwd, values['proto-out']) }),
      graphql: values['no-graphql'] !== true,
      proto: values['no-proto'] !== true,
      openapi: values['no-openapi'] !== true,
    });
    const shown = (path: string): string => relative(io.cwd, path) || path;
    for (const file of result.files) io.out(`${file.changed ? 'wrote' : 'unchanged'} ${shown(file.path)}\n`);
    for (const skipped of result.skipped) io.out(`skipped ${skipped.kind}: ${skipped.reason}\n`);
    return 0;
  } finally {
    if (app.server !== undefined && typeof app.close === 'function') await app.close();
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
      'no-graphql': { type: 'boolean' },
      'no-proto': { type: 'boolean' },
      'no-openapi': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

/** The app a module exports: `default`, else `app`; a function is called, a promise awaited. */
type LoadedApp = EmitTarget & { readonly server?: unknown; close?: () => Promise<void> };

async function loadApp(file: string, spec: string): Promise<LoadedApp> {
  if (!existsSync(file)) throw new CliError(`cannot find the app module ${spec} (no file at ${file})`);
  let mod: Record<string, unknown>;
  try {
    mod = await importModule(file, spec);
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError(`could not load ${spec}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const name = mod.default !== undefined ? 'default' : mod.app !== undefined ? 'app' : undefined;
  if (name === undefined) throw new CliError(`${spec} exports no app: export it as the default export or as "app"`);
  let value: unknown = mod[name];
  try {
    if (typeof value === 'function') value = (value as () => unknown)();
    value = await value;
  } catch (err) {
    throw new CliError(`making the app exported by ${spec} failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!isApp(value)) throw new CliError(`the ${name === 'default' ? 'default export' : '"app" export'} of ${spec} is not an fw app (createApp() or new Application())`);
  return value;
}

const TYPESCRIPT = /\.(?:c|m)?tsx?$/;

/**
 * Imports the app module. A TypeScript module is loaded with tsx's loader hooks, resolved from the
 * module's own folder (the project's tsx, a dev dependency there), so `fw emit src/app.ts` works
 * without `node --import tsx` (which pnpm's shell-script `.bin/fw` cannot take anyway); a loader the
 * process already has (`--import tsx`) is used as it is.
 */
async function importModule(file: string, spec: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(file).href;
  if (!TYPESCRIPT.test(file)) return (await import(url)) as Record<string, unknown>;
  try {
    return (await import(url)) as Record<string, unknown>;
  } catch (err) {
    if ((err as { code?: unknown } | null)?.code !== 'ERR_UNKNOWN_FILE_EXTENSION') throw err;
  }
  const api = tsxApi(file);
  if (api === undefined) {
    throw new CliError(`${spec} is TypeScript: install tsx in the project (npm install -D tsx) and run fw emit again, or emit from a compiled .js module`);
  }
  const tsx = (await import(api)) as { tsImport: (specifier: string, parentURL: string) => Promise<Record<string, unknown>> };
  const mod = await tsx.tsImport(url, url);
  // A module compiled as CommonJS (no "type": "module" above it) arrives as { default: exports }.
  const inner = mod.default as { __esModule?: unknown } | null | undefined;
  return inner !== null && typeof inner === 'object' && inner.__esModule === true ? inner : mod;
}

/**
 * The URL of tsx's ES module API (`tsx/esm/api`, import condition) as seen from `file`'s folder, or
 * undefined when tsx is not installed there. Read from its package.json's exports: a CommonJS
 * resolver only sees the require condition, and that build cannot start the loader from here.
 */
function tsxApi(file: string): string | undefined {
  let manifest: string;
  try {
    manifest = createRequire(file).resolve('tsx/package.json');
  } catch {
    return undefined;
  }
  const exported = (JSON.parse(readFileSync(manifest, 'utf8')) as { exports?: Record<string, unknown> }).exports?.['./esm/api'];
  const target = typeof exported === 'string' ? exported : (exported as { import?: { default?: unknown } } | undefined)?.import?.default;
  return typeof target === 'string' ? pathToFileURL(join(dirname(manifest), target)).href : undefined;
}

function isApp(value: unknown): value is LoadedApp {
  if (value === null || typeof value !== 'object') return false;
  const candidate = value as Partial<Record<keyof EmitTarget, unknown>>;
  return typeof candidate.getRoutes === 'function' && typeof candidate.getPlugin === 'function';
}
