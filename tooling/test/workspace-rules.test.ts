/**
 * Checks the rules of DESIGN.md and STYLE.md that a compiler does not: the direction of
 * dependencies between packages, declared dependencies, and the publish shape of each package.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative, resolve } from 'node:path';

const root = resolve(__dirname, '..', '..');
const packagesDir = join(root, 'packages');
const packages = readdirSync(packagesDir).filter((d) => existsSync(join(packagesDir, d, 'package.json')));

/** Which of our packages each package may import. */
const ALLOWED: Record<string, (name: string) => boolean> = {
  core: () => false,
  app: (name) => name.startsWith('@fw/'),
  // Connect and gRPC-Web serve the operations' gRPC bindings: the descriptors and tables are @fw/grpc's.
  connect: (name) => name === '@fw/core' || name === '@fw/grpc',
};
const allowedFor = (dir: string) => ALLOWED[dir] ?? ((name: string) => name === '@fw/core');
/**
 * Core uses node built-ins, and busboy alone besides: the multipart/form-data parser, loaded on the
 * first multipart body (an app that takes none never loads it).
 */
const CORE_LIBRARIES: ReadonlySet<string> = new Set(['busboy']);

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    const full = join(dir, entry);
    if (statSync(full).isDirectory()) out.push(...sourceFiles(full));
    else if (/\.(ts|mts|cts)$/.test(entry) && !/\.(test|case|test-d)\.ts$/.test(entry) && !entry.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

function importsOf(file: string): string[] {
  // Comments are left out: an `@example` or an explanation may quote an import.
  const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  const specs: string[] = [];
  const re = /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|require\(\s*['"]([^'"]+)['"]\s*\)/gm;
  for (const m of text.matchAll(re)) specs.push((m[1] ?? m[2] ?? m[3])!);
  return specs;
}

const packageName = (spec: string) => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
const isBuiltin = (spec: string) => spec.startsWith('node:') || builtinModules.includes(spec.split('/')[0]!);

/** The subpaths a package's exports map makes public (`./plugin` of `@fw/core/plugin`). */
function publicSubpaths(name: string): Set<string> {
  const dir = name.slice('@fw/'.length);
  const file = join(packagesDir, dir, 'package.json');
  if (!existsSync(file)) return new Set();
  const exportsMap = (JSON.parse(readFileSync(file, 'utf8')) as { exports?: Record<string, unknown> }).exports ?? {};
  return new Set(Object.keys(exportsMap).filter((key) => key !== '.' && key !== './package.json'));
}

describe.each(packages)('packages/%s', (dir) => {
  const pkgDir = join(packagesDir, dir);
  const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
  const files = existsSync(join(pkgDir, 'src')) ? sourceFiles(join(pkgDir, 'src')) : [];

  it('imports only the packages its place in the design allows', () => {
    const bad: string[] = [];
    for (const file of files) {
      for (const spec of importsOf(file)) {
        if (spec.startsWith('.')) {
          const target = resolve(file, '..', spec);
          if (!target.startsWith(pkgDir)) bad.push(`${relative(root, file)} reaches outside its package: ${spec}`);
          continue;
        }
        if (isBuiltin(spec)) continue;
        const name = packageName(spec);
        if (name.startsWith('@fw/') && !allowedFor(dir)(name)) bad.push(`${relative(root, file)} imports ${name}`);
        if (dir === 'core' && !name.startsWith('@fw/') && !CORE_LIBRARIES.has(name)) bad.push(`${relative(root, file)} imports ${name} (core uses node built-ins and busboy only)`);
        if (name.startsWith('@fw/') && spec !== name && !publicSubpaths(name).has(`.${spec.slice(name.length)}`)) {
          bad.push(`${relative(root, file)} deep-imports ${spec}`);
        }
      }
    }
    expect(bad).toEqual([]);
  });

  it('declares every package it imports', () => {
    const declared = new Set([
      ...Object.keys(pkg.dependencies ?? {}),
      ...Object.keys(pkg.peerDependencies ?? {}),
      ...Object.keys(pkg.optionalDependencies ?? {}),
    ]);
    const missing = new Set<string>();
    for (const file of files) {
      for (const spec of importsOf(file)) {
        if (spec.startsWith('.') || isBuiltin(spec)) continue;
        const name = packageName(spec);
        if (!declared.has(name)) missing.add(`${name} (in ${relative(root, file)})`);
      }
    }
    expect([...missing]).toEqual([]);
  });

  it('has the publish shape: one entry, an exports map with types first, dist and the sources its maps name (and bin/ for commands), a README', () => {
    expect(existsSync(join(pkgDir, 'src', 'index.ts'))).toBe(true);
    expect(existsSync(join(pkgDir, 'README.md'))).toBe(true);
    expect(pkg.name).toBe(`@fw/${dir}`);
    // A command's launcher is a committed file in bin/ (linked at install, before any build).
    const bins = Object.values((pkg as { bin?: Record<string, string> }).bin ?? {});
    // src/ beside dist/: the source maps name it, so a stack trace resolves to a file that exists.
    const shipped = ['dist', 'src', '!src/**/*.test.ts'];
    expect(pkg.files).toEqual(bins.length > 0 ? [...shipped, 'bin'] : shipped);
    for (const target of bins) {
      expect(target).toMatch(/^\.\/bin\/[^/]+$/);
      expect(existsSync(join(pkgDir, target))).toBe(true);
    }
    expect(pkg.sideEffects).toBe(false);
    const entry = pkg.exports?.['.'];
    expect(entry).toBeDefined();
    for (const condition of ['import', 'require']) {
      expect(Object.keys(entry[condition])[0]).toBe('types');
    }
    expect(pkg.engines?.node).toBeDefined();
  });

  it('exports from src/index.ts by name only (no export *)', () => {
    const index = readFileSync(join(pkgDir, 'src', 'index.ts'), 'utf8');
    expect(index).not.toMatch(/export\s+\*/);
  });

  it('gives every public subpath an entry file and types first', () => {
    for (const subpath of publicSubpaths(pkg.name as string)) {
      const entry = (pkg.exports as Record<string, Record<string, Record<string, string>>>)[subpath]!;
      for (const condition of ['import', 'require']) {
        expect(Object.keys(entry[condition]!)[0]).toBe('types');
        expect(entry[condition]!.types).toMatch(/^\.\/dist\//);
      }
    }
  });
});
