import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path';
import type * as FsPromises from 'node:fs/promises';

/** `node:fs/promises`, taken when `emit` writes: importing it would load it (and its streams) into every app. */
const fs = (): typeof FsPromises => process.getBuiltinModule('node:fs/promises');

/** One file to write: `path` must stay inside `root`, symbolic links resolved. */
export interface PlannedWrite {
  /** The absolute path asked for. */
  path: string;
  /** The directory the file (and every link on its way) must stay in. */
  root: string;
  /** The content, ending with a newline. */
  content: string;
}

/** Whether `path` is `dir` itself or below it (both absolute, already resolved). */
export function isInside(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

const errnoOf = (err: unknown): string | undefined => (err as NodeJS.ErrnoException | null)?.code;

/** `realpath`, or undefined when nothing is there (ENOENT). */
async function realOrNothing(path: string): Promise<string | undefined> {
  try {
    return await fs().realpath(path);
  } catch (err) {
    if (errnoOf(err) === 'ENOENT' || errnoOf(err) === 'ENOTDIR') return undefined;
    throw err;
  }
}

/**
 * Where `path` really is once every symbolic link on its way is followed: the real path of its
 * deepest existing ancestor (or of itself), with the parts that do not exist yet appended. A link
 * that leads nowhere (its target missing) is refused: writing through it would create its target,
 * wherever that is.
 */
async function realLocation(path: string): Promise<string> {
  const missing: string[] = [];
  let at = path;
  for (;;) {
    const real = await realOrNothing(at);
    if (real !== undefined) return missing.length === 0 ? real : join(real, ...missing.reverse());
    let isLink = false;
    try {
      isLink = (await fs().lstat(at)).isSymbolicLink();
    } catch (err) {
      if (errnoOf(err) !== 'ENOENT' && errnoOf(err) !== 'ENOTDIR') throw err;
    }
    if (isLink) throw new Error(`emit: ${at} is a symbolic link to nothing (${await fs().readlink(at)}); refusing to write through it`);
    const parent = dirname(at);
    if (parent === at) return join(at, ...missing.reverse());
    missing.push(basename(at));
    at = parent;
  }
}

/**
 * Where a planned file is really written: its real location, refused when a symbolic link (the
 * file itself, or a directory on its way) leads outside its root, or when something other than a
 * directory stands on its way (or other than a regular file at its place). Checked for every file
 * before any is written.
 */
export async function resolveTarget(file: PlannedWrite): Promise<string> {
  const root = await realLocation(file.root);
  const target = await realLocation(file.path);
  if (!isInside(root, target)) {
    throw new Error(`emit: ${file.path} leads to ${target} through a symbolic link, outside ${file.root}; refusing to write it`);
  }
  // Everything on the way that exists must be a directory, and the file a regular file.
  let at = target;
  for (;;) {
    let stat: Awaited<ReturnType<typeof FsPromises.stat>> | undefined;
    try {
      stat = await fs().stat(at);
    } catch (err) {
      if (errnoOf(err) !== 'ENOENT' && errnoOf(err) !== 'ENOTDIR') throw err;
    }
    if (stat !== undefined) {
      if (at === target && !stat.isFile()) throw new Error(`emit: ${file.path} exists and is not a regular file; refusing to replace it`);
      if (at !== target && !stat.isDirectory()) throw new Error(`emit: ${at} is on the way to ${file.path} and is not a directory`);
      if (at !== target) break;
    }
    const parent = dirname(at);
    if (parent === at) break;
    at = parent;
  }
  return target;
}

/** A name for the temporary file beside `target`, unique to this process and call. */
const temporaryName = (target: string, index: number): string =>
  join(dirname(target), `.${basename(target)}.${process.pid}.${Date.now().toString(36)}.${index}.tmp`);

/**
 * Writes every file atomically, all or nothing: each goes to a temporary file in its own directory,
 * and only when all of them are written are they renamed onto their targets (a rename within a
 * directory replaces a file in one step: a reader sees the old content or the new, never half).
 * When any temporary file fails, the temporary files and the directories made for them are removed
 * and the error is thrown: nothing was written. A replaced file keeps its mode.
 */
export async function writeAtomically(files: ReadonlyArray<{ target: string; content: string }>): Promise<void> {
  const { chmod, mkdir, rename, rm, stat, unlink, writeFile } = fs();
  const temporaries: Array<{ temporary: string; target: string }> = [];
  const madeDirectories: string[] = [];
  try {
    for (const [index, { target, content }] of files.entries()) {
      const made = await mkdir(dirname(target), { recursive: true });
      if (made !== undefined) madeDirectories.push(made);
      const temporary = temporaryName(target, index);
      // 'wx': created here or failing; never follows a link someone put at the temporary name.
      await writeFile(temporary, content, { flag: 'wx' });
      temporaries.push({ temporary, target });
      const mode = await stat(target).then(
        (existing) => existing.mode & 0o7777,
        () => undefined,
      );
      if (mode !== undefined) await chmod(temporary, mode);
    }
  } catch (err) {
    await Promise.all(temporaries.map(({ temporary }) => unlink(temporary).catch(() => undefined)));
    for (const made of madeDirectories.reverse()) await rm(made, { recursive: true, force: true }).catch(() => undefined);
    throw err;
  }
  for (const [index, { temporary, target }] of temporaries.entries()) {
    try {
      await rename(temporary, target);
    } catch (err) {
      await Promise.all(temporaries.slice(index).map((left) => unlink(left.temporary).catch(() => undefined)));
      const done = temporaries.slice(0, index).map((file) => file.target);
      throw new Error(`emit: could not replace ${target}${done.length === 0 ? '' : ` (already replaced: ${done.join(', ')})`}: ${(err as Error).message}`, { cause: err });
    }
  }
}

/** The current content of `path`, or undefined when there is no file. */
export async function readCurrent(path: string): Promise<string | undefined> {
  try {
    return await fs().readFile(path, 'utf8');
  } catch (err) {
    if (errnoOf(err) === 'ENOENT') return undefined;
    throw err;
  }
}
