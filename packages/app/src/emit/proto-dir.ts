import { isAbsolute, join, resolve, sep } from 'node:path';
import type * as FsPromises from 'node:fs/promises';

const fs = (): typeof FsPromises => process.getBuiltinModule('node:fs/promises');

/** Where the `.proto` files go, where their previous numbers come from, and what they must stay in. */
export interface ProtoLocation {
  /** Where the files are written (or, with `check`, read from). */
  dir: string;
  /** Where the previous files (their field numbers) are read from. */
  previousDir: string;
  /** The directory the files, and every link on their way, must stay in. */
  root: string;
}

/**
 * Resolves the proto directories. The gRPC plugin's `protoOut`, when relative, is resolved against
 * `base` (the app's package directory for `fw emit`), not the current directory: the same files
 * whatever directory the command runs from. An explicit `protoOut` option moves the written files
 * but the numbers still come from the plugin's. Files in the default `<out>/proto` must stay in
 * `out`; in a named directory, in that directory.
 */
export function protoLocation(out: string, base: string, explicit: string | undefined, configured: string | undefined): ProtoLocation {
  const committed = configured === undefined ? undefined : resolve(base, configured);
  const dir = explicit !== undefined ? resolve(explicit) : (committed ?? join(out, 'proto'));
  // A directory the user named is a root of its own (it may itself be a link); the default one is part of `out`.
  return { dir, previousDir: committed ?? dir, root: explicit === undefined && committed === undefined ? out : dir };
}

/** Directories never searched for committed files. */
const SKIPPED = new Set(['node_modules', '.git']);
const MAX_DEPTH = 6;
const MAX_ENTRIES = 20_000;

/** Paths of files under `root` whose path ends with `/<file>`, searched breadth-first with bounds. */
async function findUnder(root: string, file: string): Promise<string[]> {
  const suffix = `${sep}${file.split('/').join(sep)}`;
  const found: string[] = [];
  let level = [root];
  let seen = 0;
  for (let depth = 0; depth <= MAX_DEPTH && level.length > 0 && seen < MAX_ENTRIES; depth++) {
    const next: string[] = [];
    for (const dir of level) {
      let entries: Array<{ name: string; isDirectory(): boolean; isFile(): boolean }>;
      try {
        entries = await fs().readdir(dir, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const entry of entries) {
        if (++seen > MAX_ENTRIES) break;
        const path = join(dir, entry.name);
        if (entry.isDirectory() && !SKIPPED.has(entry.name) && !entry.name.startsWith('.')) next.push(path);
        else if (entry.isFile() && path.endsWith(suffix)) found.push(path);
      }
    }
    level = next.sort();
  }
  return found.sort();
}

/** The proto package a file declares ('' for none). */
export const packageOf = (text: string): string => /^\s*package\s+([\w.]+)\s*;/m.exec(text)?.[1] ?? '';

/** A file `@fw/grpc` generated says so near its top; the user's own files in a directory are left alone. */
const GENERATED = /@fw\/grpc/;

/** The .proto files `@fw/grpc` generated under `dir` (name with '/' → text). */
export async function generatedProtosIn(dir: string): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  let entries: string[];
  try {
    entries = await fs().readdir(dir, { recursive: true });
  } catch {
    return found;
  }
  for (const entry of entries.filter((name) => name.endsWith('.proto')).sort()) {
    const text = await fs().readFile(join(dir, entry), 'utf8').catch(() => undefined);
    if (text !== undefined && GENERATED.test(text.slice(0, 400))) found.set(entry.split(sep).join('/'), text);
  }
  return found;
}

/**
 * One warning per file `@fw/grpc` generated in `dir` for a proto package it now generates under
 * another name (the layout changed): left there, it defines the same names again for any tool
 * that loads the directory.
 */
export async function leftoverWarnings(dir: string, generated: ReadonlyArray<{ file: string; text: string }>): Promise<string[]> {
  const now = new Map(generated.map(({ file, text }) => [packageOf(text), file]));
  const warnings: string[] = [];
  for (const [name, text] of await generatedProtosIn(dir)) {
    const replacement = now.get(packageOf(text));
    if (replacement !== undefined && replacement !== name) {
      warnings.push(`${join(dir, name)} was generated for proto package ${packageOf(text) || '(none)'}, now generated as ${replacement}: delete it once its numbers are in the new file`);
    }
  }
  return warnings;
}

/** Whether `path` holds a file `@fw/grpc` generated (it says so at its top) for the proto package `pkg`. */
async function isGeneratedFor(path: string, pkg: string | undefined): Promise<boolean> {
  const text = await fs().readFile(path, 'utf8').catch(() => undefined);
  return text !== undefined && GENERATED.test(text.slice(0, 400)) && packageOf(text) === pkg;
}

/**
 * One warning per generated file that had no previous version in `previousDir` while a file
 * generated for the same proto package exists elsewhere (the configured directory resolved from
 * the current directory, the default `<out>/proto`, or anywhere under the places searched): its
 * numbers were not read, so the new file is numbered from scratch and can give an old field's
 * number to another field.
 */
export async function missingPreviousWarnings(
  generated: ReadonlyArray<{ file: string; text: string }>,
  location: ProtoLocation,
  configured: string | undefined,
  places: { cwd: string; base: string; out: string },
): Promise<string[]> {
  const warnings: string[] = [];
  const exists = (path: string): Promise<boolean> => fs().stat(path).then((stat) => stat.isFile(), () => false);
  for (const { file, text } of generated) {
    if (await exists(join(location.previousDir, file))) continue;
    const pkg = packageOf(text);
    const candidates = new Set<string>();
    const dirs = [join(places.out, 'proto'), location.dir];
    if (configured !== undefined && !isAbsolute(configured)) dirs.unshift(resolve(places.cwd, configured));
    for (const dir of dirs) if (await isGeneratedFor(join(dir, file), pkg)) candidates.add(join(dir, file));
    if (candidates.size === 0) {
      for (const root of new Set([places.base, places.cwd])) for (const path of await findUnder(root, file)) if (await isGeneratedFor(path, pkg)) candidates.add(path);
    }
    candidates.delete(join(location.previousDir, file));
    if (candidates.size === 0) continue;
    const shown = [...candidates].slice(0, 3).join(', ');
    warnings.push(
      `no previous ${file} in ${location.previousDir}, so its field numbers start from scratch, but ${shown} ${candidates.size === 1 ? 'exists' : 'exist'}: ` +
        `if that is the committed file, point the gRPC plugin's protoOut at its directory (a relative protoOut is resolved from ${places.base}), ` +
        'or numbers given to old fields may go to new ones',
    );
  }
  return warnings;
}
