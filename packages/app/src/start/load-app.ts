import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { App } from '../create-app.js';
import { StartError } from './errors.js';

/**
 * The app an app module exports, loaded as `fw emit` loads it: the `default` export, else `app`; a
 * function is called and a promise awaited. A TypeScript module is loaded through the project's tsx
 * (its loader hooks, resolved from the module's folder) unless the process already has a loader.
 */
export async function loadAppModule(file: string, spec: string): Promise<App> {
  if (!existsSync(file)) throw new StartError(`cannot find the app module ${spec} (no file at ${file})`);
  let mod: Record<string, unknown>;
  try {
    mod = await importModule(file, spec);
  } catch (err) {
    if (err instanceof StartError) throw err;
    throw new StartError(`could not load ${spec}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  const name = mod.default !== undefined ? 'default' : mod.app !== undefined ? 'app' : undefined;
  if (name === undefined) throw new StartError(`${spec} exports no app: export it as the default export or as "app"`);
  let value: unknown = mod[name];
  try {
    if (typeof value === 'function') value = (value as () => unknown)();
    value = await value;
  } catch (err) {
    throw new StartError(`making the app exported by ${spec} failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  if (!isApp(value)) throw new StartError(`the ${name === 'default' ? 'default export' : '"app" export'} of ${spec} is not an fw app (createApp() or new Application())`);
  if (value.server !== undefined) throw new StartError(`${spec} started a server while loading: export the app without calling listen(); fw start listens`);
  return value;
}

const TYPESCRIPT = /\.(?:c|m)?tsx?$/;

async function importModule(file: string, spec: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(file).href;
  if (!TYPESCRIPT.test(file)) return (await import(url)) as Record<string, unknown>;
  try {
    return (await import(url)) as Record<string, unknown>;
  } catch (err) {
    if ((err as { code?: unknown } | null)?.code !== 'ERR_UNKNOWN_FILE_EXTENSION') throw err;
  }
  const api = tsxApi(file);
  if (api === undefined) throw new StartError(`${spec} is TypeScript: install tsx in the project (npm install -D tsx), or start a compiled .js module`);
  const tsx = (await import(api)) as { tsImport: (specifier: string, parentURL: string) => Promise<Record<string, unknown>> };
  const mod = await tsx.tsImport(url, url);
  // A module compiled as CommonJS arrives as { default: exports }.
  const inner = mod.default as { __esModule?: unknown } | null | undefined;
  return inner !== null && typeof inner === 'object' && inner.__esModule === true ? inner : mod;
}

/** tsx's ES module API (`tsx/esm/api`, import condition) as seen from `file`'s folder. */
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

function isApp(value: unknown): value is App {
  if (value === null || typeof value !== 'object') return false;
  const candidate = value as Record<string, unknown>;
  return typeof candidate.listen === 'function' && typeof candidate.close === 'function' && typeof candidate.getPlugin === 'function';
}
