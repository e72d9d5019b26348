import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Operation } from '@fw/core';
import { buildModel } from './model.js';
import { printModel, type GeneratedProto, type PreviousSource } from './print.js';

/** Options of `generateProtos`. */
export interface GenerateProtosOptions {
  /**
   * The files as generated before, whose field numbers are kept: a map of file name (as
   * `GeneratedProto.file` says) → text, or the directory they were written to. Without it, numbers
   * follow declaration order.
   */
  previous?: ReadonlyMap<string, string> | string;
}

/** Reads `<dir>/<file>`; undefined when it does not exist. */
export function previousFromDirectory(dir: string): PreviousSource {
  return (file) => {
    try {
      return readFileSync(path.join(dir, file), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new Error(`Could not read the previous ${file} in ${dir}: ${(err as Error).message}`, { cause: err });
    }
  };
}

/** The previous-file source `options.previous` describes. */
export function previousSource(previous: GenerateProtosOptions['previous']): PreviousSource {
  if (previous === undefined) return () => undefined;
  if (typeof previous === 'string') return previousFromDirectory(previous);
  if (previous instanceof Map) return (file) => (previous as ReadonlyMap<string, string>).get(file);
  throw new TypeError('generateProtos: `previous` must be a Map of file name → text, or a directory path');
}

/** The implementation of `generateProtos`: the package exports ../lazy.ts's, which loads this on its first call. */
export function generateProtos(operations: readonly Operation[], options: GenerateProtosOptions = {}): GeneratedProto[] {
  if (!Array.isArray(operations)) throw new TypeError('generateProtos: expected an array of operations');
  return printModel(buildModel(operations), previousSource(options.previous));
}
