/**
 * Every dependency with an install script is decided in the root package.json: allowed to run it
 * (`pnpm.onlyBuiltDependencies`) or not (`pnpm.ignoredBuiltDependencies`). pnpm prints its
 * "Ignored build scripts" box on every install for one that is neither, a warning nobody acts on.
 */
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '..', '..');
const store = join(root, 'node_modules', '.pnpm');
const LIFECYCLE = ['preinstall', 'install', 'postinstall'] as const;

interface Manifest {
  name?: string;
  scripts?: Record<string, string>;
}

/** The packages installed in the virtual store with a script pnpm runs on install (a binding.gyp counts: node-gyp rebuild). */
function packagesWithInstallScripts(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const consider = (dir: string): void => {
    const file = join(dir, 'package.json');
    if (!existsSync(file)) return;
    const manifest = JSON.parse(readFileSync(file, 'utf8')) as Manifest;
    const scripts = LIFECYCLE.filter((name) => manifest.scripts?.[name] !== undefined).map((name) => `${name}: ${manifest.scripts![name]}`);
    if (scripts.length === 0 && existsSync(join(dir, 'binding.gyp'))) scripts.push('binding.gyp');
    if (scripts.length > 0 && manifest.name !== undefined) found.set(manifest.name, scripts);
  };
  for (const key of readdirSync(store)) {
    const modules = join(store, key, 'node_modules');
    if (!existsSync(modules)) continue;
    // The package itself is the one real directory there; its dependencies are links.
    for (const entry of readdirSync(modules)) {
      const path = join(modules, entry);
      if (entry.startsWith('@')) {
        for (const scoped of readdirSync(path)) if (!lstatSync(join(path, scoped)).isSymbolicLink()) consider(join(path, scoped));
      } else if (!lstatSync(path).isSymbolicLink()) consider(path);
    }
  }
  return found;
}

describe('install scripts', () => {
  const pnpm = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { pnpm?: { onlyBuiltDependencies?: string[]; ignoredBuiltDependencies?: string[] } }).pnpm ?? {};
  const allowed = new Set(pnpm.onlyBuiltDependencies ?? []);
  const ignored = new Set(pnpm.ignoredBuiltDependencies ?? []);

  it('are each allowed or ignored in the root package.json, so that pnpm install prints no warning', () => {
    const undecided = [...packagesWithInstallScripts()].filter(([name]) => !allowed.has(name) && !ignored.has(name)).map(([name, scripts]) => `${name} (${scripts.join('; ')})`);
    expect(undecided).toEqual([]);
  });

  it('are decided once: no package is both allowed and ignored', () => {
    expect([...allowed].filter((name) => ignored.has(name))).toEqual([]);
  });
});
