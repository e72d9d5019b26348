import type { App } from '../create-app.js';
import { loadExportedApp, notAnApp } from '../internal/app-module.js';
import { StartError } from './errors.js';

/**
 * The app an app module exports, loaded as `fw emit` loads it: the `default` export, else `app`; a
 * function is called and a promise awaited. A TypeScript module is loaded through the project's tsx
 * (its loader hooks, resolved from the module's folder) unless the process already has a loader.
 */
export async function loadAppModule(file: string, spec: string): Promise<App> {
  const { value, name } = await loadExportedApp(file, spec, (message, cause) => new StartError(message, { cause }), 'and run fw start again, or start a compiled .js module');
  if (!isApp(value)) throw new StartError(notAnApp(spec, name));
  if (value.server !== undefined) throw new StartError(`${spec} started a server while loading: export the app without calling listen(); fw start listens`);
  return value;
}

function isApp(value: unknown): value is App {
  if (value === null || typeof value !== 'object') return false;
  const candidate = value as Record<string, unknown>;
  return typeof candidate.listen === 'function' && typeof candidate.close === 'function' && typeof candidate.getPlugin === 'function';
}
