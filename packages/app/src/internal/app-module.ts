import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Server as NetServer } from 'node:net';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Loading the app an app module exports, the one way `fw emit` and `fw start` both do it: the
 * `default` export, else `app`; a function is called and a promise awaited. A TypeScript module is
 * loaded with tsx's loader hooks, resolved from the module's own folder (the project's tsx, a dev
 * dependency there), so `fw emit src/app.ts` works without `node --import tsx` (which pnpm's
 * shell-script `.bin/fw` cannot take anyway); a loader the process already has is used as it is.
 * Each failure is `fail(message, cause)`: the command's own error class, reported as one line.
 */
export async function loadExportedApp(
  file: string,
  spec: string,
  fail: (message: string, cause?: unknown) => Error,
  /** What to do about a TypeScript module when tsx is not installed: `install tsx in the project (npm install -D tsx) <this>`. */
  withoutTsx: string,
): Promise<{ readonly value: unknown; readonly name: 'default' | 'app' }> {
  if (!existsSync(file)) throw fail(`cannot find the app module ${spec} (no file at ${file})`);
  let mod: Record<string, unknown>;
  let listened: boolean;
  try {
    ({ value: mod, listened } = await countingListens(() => importModule(file)));
  } catch (err) {
    if (err === NO_TSX) throw fail(`${spec} is TypeScript: install tsx in the project (npm install -D tsx) ${withoutTsx}`);
    throw fail(`could not load ${spec}: ${err instanceof Error ? err.message : String(err)}`, err);
  }
  const name = mod.default !== undefined ? 'default' : mod.app !== undefined ? 'app' : undefined;
  if (name === undefined && listened) {
    // The entry point (a main.ts calling app.listen()) given instead of the module that builds the app.
    throw fail(`${spec} exports no app: it called listen() while loading instead. Export the app without listening, as the default export or as "app" (keep listen() in another file, e.g. main.ts)`);
  }
  if (name === undefined) throw fail(`${spec} exports no app: export it as the default export or as "app"`);
  let value: unknown = mod[name];
  try {
    if (typeof value === 'function') value = (value as () => unknown)();
    value = await value;
  } catch (err) {
    throw fail(`making the app exported by ${spec} failed: ${err instanceof Error ? err.message : String(err)}`, err);
  }
  return { value, name };
}

/** The message for an export that is not an fw app. */
export function notAnApp(spec: string, name: 'default' | 'app'): string {
  return `the ${name === 'default' ? 'default export' : '"app" export'} of ${spec} is not an fw app (createApp() or new Application())`;
}

/**
 * Runs `load` while counting the servers that start listening meanwhile: every node server (an fw
 * app, node:http, grpc-js) listens through `net.Server#listen`, which is wrapped for that time only.
 * Only the message of a module that exports nothing reads the count.
 */
async function countingListens<T>(load: () => Promise<T>): Promise<{ value: T; listened: boolean }> {
  const proto = NetServer.prototype;
  // Read as a plain function value: it is called below with the server as `this`.
  const original = Reflect.get(proto, 'listen') as (this: NetServer, ...a: unknown[]) => NetServer;
  let listened = false;
  const counting = function (this: NetServer, ...args: unknown[]): NetServer {
    listened = true;
    return original.apply(this, args);
  };
  proto.listen = counting as typeof proto.listen;
  try {
    const value = await load();
    return { value, listened };
  } finally {
    // Put back unless the module replaced it meanwhile.
    if (proto.listen === counting) proto.listen = original as typeof proto.listen;
  }
}

const TYPESCRIPT = /\.(?:c|m)?tsx?$/;
/** Thrown by `importModule` for a TypeScript module when the project has no tsx. */
const NO_TSX = Symbol('no tsx');

async function importModule(file: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(file).href;
  if (!TYPESCRIPT.test(file)) return (await import(url)) as Record<string, unknown>;
  try {
    return (await import(url)) as Record<string, unknown>;
  } catch (err) {
    if ((err as { code?: unknown } | null)?.code !== 'ERR_UNKNOWN_FILE_EXTENSION') throw err;
  }
  const api = tsxApi(file);
  // eslint-disable-next-line @typescript-eslint/only-throw-error -- a marker loadExportedApp turns into the command's own error
  if (api === undefined) throw NO_TSX;
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
