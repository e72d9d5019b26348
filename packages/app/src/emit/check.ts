import { join, relative } from 'node:path';
import type * as FsPromises from 'node:fs/promises';
import type { PlannedFile, SchemaChange } from '../emit.js';
import { findSchemaChanges } from '@fw/graphql';
import { findProtoChanges } from '@fw/grpc';
import { findOpenAPIChanges } from './openapi-changes.js';
import { generatedProtosIn, packageOf } from './proto-dir.js';

const fs = (): typeof FsPromises => process.getBuiltinModule('node:fs/promises');

/**
 * Every change from the files there (`current[i]` is what `planned[i].path` holds now; the .proto
 * files are read from `protoDir`, where their numbers come from) to what would be written: GraphQL
 * by `@fw/graphql`'s `findSchemaChanges`, .proto files by `@fw/grpc`'s `findProtoChanges` (all of
 * them at once: messages move between files), OpenAPI by its operations and schemas. A kind with
 * no file there yet breaks nothing. `strict` counts dangerous changes as breaking. Breaking
 * changes first, then dangerous ones.
 */
export async function compareFiles(
  planned: readonly PlannedFile[],
  current: ReadonlyArray<string | undefined>,
  protoDir: string | undefined,
  strict = false,
): Promise<SchemaChange[]> {
  const changes: SchemaChange[] = [];
  const committed = new Map<string, string>();
  const generated = new Map<string, string>();
  for (const [i, file] of planned.entries()) {
    const before = current[i];
    if (file.kind === 'proto') {
      generated.set(file.name, file.content);
      continue;
    }
    if (before === file.content) continue;
    if (before === undefined) {
      changes.push({ kind: file.kind, file: file.name, breaking: false, dangerous: false, message: `${file.name} is new: there is no committed file to compare with` });
    } else if (file.kind === 'client') {
      changes.push({ kind: 'client', file: file.name, breaking: false, dangerous: false, message: `${file.name} is out of date: the operations changed since it was generated` });
    } else if (file.kind === 'graphql') {
      for (const change of findSchemaChanges(before, file.content)) {
        changes.push({ kind: 'graphql', file: file.name, breaking: change.breaking, dangerous: change.dangerous, message: change.message });
      }
    } else {
      for (const change of findOpenAPIChanges(JSON.parse(before) as unknown, JSON.parse(file.content) as unknown)) changes.push({ kind: 'openapi', file: file.name, ...change });
    }
  }
  if (protoDir !== undefined && generated.size > 0) {
    // The committed files are those numbers are read from (protoOut), even when --proto-out writes elsewhere.
    for (const name of generated.keys()) {
      const text = await fs().readFile(join(protoDir, name), 'utf8').catch(() => undefined);
      if (text !== undefined) committed.set(name, text);
    }
    // Files generated before for packages now written under other names: compared as removed, unless
    // the new file is there too (then the old one is a leftover emit warns about, defining the same names again).
    const current = new Set([...committed.values()].map((text) => packageOf(text)));
    for (const [name, text] of await generatedProtosIn(protoDir)) if (!committed.has(name) && !current.has(packageOf(text))) committed.set(name, text);
    const shown = relative(process.cwd(), protoDir) || protoDir;
    if (committed.size === 0) {
      changes.push({ kind: 'proto', file: [...generated.keys()].join(', '), breaking: false, dangerous: false, message: `no committed .proto files in ${shown}: everything is new` });
    } else {
      const packages = [...committed, ...generated].map(([name, text]) => ({ name, pkg: packageOf(text) })).sort((a, b) => b.pkg.length - a.pkg.length);
      const fileOf = (path: string): string => packages.find(({ pkg }) => pkg === '' || path === pkg || path.startsWith(`${pkg}.`))?.name ?? path;
      for (const change of findProtoChanges(committed, generated)) {
        const file = /\.proto$/.test(change.path) ? change.path : fileOf(change.path);
        const level = change.breaks === undefined ? {} : { level: change.breaks };
        changes.push({ kind: 'proto', file, breaking: change.breaks !== undefined, dangerous: change.dangerous, ...level, message: change.message });
      }
    }
  }
  const order = { graphql: 0, proto: 1, openapi: 2, client: 3 };
  const rank = (change: SchemaChange): number => (change.breaking ? 0 : change.dangerous ? 1 : 2);
  return changes
    .map((change) => (strict && change.dangerous ? { ...change, breaking: true } : change))
    .map((change, index) => ({ change, index }))
    .sort((a, b) => rank(a.change) - rank(b.change) || order[a.change.kind] - order[b.change.kind] || a.index - b.index)
    .map(({ change }) => change);
}
