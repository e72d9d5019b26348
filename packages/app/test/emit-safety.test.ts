import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, readlink, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { emit } from '@fw/app';
import { Application } from '@fw/core';
import type { Plugin } from '@fw/core/plugin';

let dir: string;
let out: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fw-emit-safety-'));
  out = join(dir, 'out');
  await mkdir(out);
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** An app serving a GraphQL schema and two .proto files, as far as emit sees plugins. */
function schemasApp(protoOut?: string): Application {
  const app = new Application();
  app.register({ name: 'graphql', setup: () => undefined, printSchema: () => 'type Query {\n  ok: Boolean\n}' } as Plugin);
  app.register({
    name: 'grpc',
    setup: () => undefined,
    ...(protoOut === undefined ? {} : { protoOut }),
    generateProtos: (previousDir?: string) => {
      void previousDir;
      return [
        { file: 'a.proto', text: 'syntax = "proto3";\npackage a;\n' },
        { file: 'b.proto', text: 'syntax = "proto3";\npackage b;\n' },
      ];
    },
  } as Plugin);
  return app;
}

/** Every entry under `root` (links not followed), relative, sorted. */
async function tree(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true });
  return entries.sort();
}

describe('emit writes safely', () => {
  it('writes nothing at all when a later file cannot be written', async () => {
    // The proto directory is taken by a regular file: the .proto files, written after schema.graphql, cannot go there.
    await writeFile(join(out, 'proto'), 'not a directory');
    await expect(emit({ app: schemasApp(), out })).rejects.toThrow(`emit: ${join(out, 'proto')} is on the way to ${join(out, 'proto', 'a.proto')} and is not a directory`);
    expect(await tree(out)).toEqual(['proto']);
  });

  it('refuses a directory link that leads outside --out, writing nothing', async () => {
    const elsewhere = join(dir, 'elsewhere');
    await mkdir(elsewhere);
    await symlink(elsewhere, join(out, 'proto'), 'dir');
    await expect(emit({ app: schemasApp(), out })).rejects.toThrow(
      `emit: ${join(out, 'proto', 'a.proto')} leads to ${join(elsewhere, 'a.proto')} through a symbolic link, outside ${out}; refusing to write it`,
    );
    expect(await readdir(elsewhere)).toEqual([]);
    expect(await tree(out)).toEqual(['proto']);
  });

  it('refuses a file link that leads outside --out and leaves its target untouched', async () => {
    const victim = join(dir, 'victim.txt');
    await writeFile(victim, 'keep me\n');
    await symlink(victim, join(out, 'schema.graphql'));
    await expect(emit({ app: schemasApp(), out })).rejects.toThrow(/schema\.graphql leads to .*victim\.txt through a symbolic link/);
    expect(await readFile(victim, 'utf8')).toBe('keep me\n');
    expect(await tree(out)).toEqual(['schema.graphql']);
  });

  it('refuses a link to nothing, which writing would create wherever it points', async () => {
    await symlink(join(dir, 'nowhere', 'schema.graphql'), join(out, 'schema.graphql'));
    await expect(emit({ app: schemasApp(), out })).rejects.toThrow(/schema\.graphql is a symbolic link to nothing/);
    await expect(stat(join(dir, 'nowhere'))).rejects.toThrow(/ENOENT/);
  });

  it('writes through a link that stays inside --out, keeping the link', async () => {
    await mkdir(join(out, 'shared'));
    await symlink(join(out, 'shared'), join(out, 'proto'), 'dir');
    await symlink(join(out, 'shared', 'schema.graphql'), join(out, 'schema.graphql'));
    await writeFile(join(out, 'shared', 'schema.graphql'), 'old\n');
    await emit({ app: schemasApp(), out });
    expect((await lstat(join(out, 'schema.graphql'))).isSymbolicLink()).toBe(true);
    expect(await readFile(join(out, 'shared', 'schema.graphql'), 'utf8')).toBe('type Query {\n  ok: Boolean\n}\n');
    expect((await readdir(join(out, 'shared'))).sort()).toEqual(['a.proto', 'b.proto', 'schema.graphql']);
  });

  it('lets a configured protoOut outside --out be a link itself: the user named it', async () => {
    const real = join(dir, 'real-protos');
    await mkdir(real);
    await symlink(real, join(dir, 'protos'), 'dir');
    await emit({ app: schemasApp(join(dir, 'protos')), out });
    expect((await readdir(real)).sort()).toEqual(['a.proto', 'b.proto']);
    expect(await readlink(join(dir, 'protos'))).toBe(real);
  });

  it('lets a protoOut under --out be a link too when it is named, not when it is the default <out>/proto', async () => {
    const real = join(dir, 'real-protos');
    await mkdir(real);
    await symlink(real, join(out, 'protos'), 'dir');
    await emit({ app: schemasApp(join(out, 'protos')), out });
    expect((await readdir(real)).sort()).toEqual(['a.proto', 'b.proto']);
  });

  it('replaces a file by renaming a complete temporary file over it, keeping its mode and leaving no temporary file', async () => {
    await writeFile(join(out, 'schema.graphql'), 'old\n');
    await chmod(join(out, 'schema.graphql'), 0o640);
    const before = await stat(join(out, 'schema.graphql'));
    await emit({ app: schemasApp(), out });
    const after = await stat(join(out, 'schema.graphql'));
    // A new inode: readers of the old file see it whole, readers of the new one see it whole.
    expect(after.ino).not.toBe(before.ino);
    expect(after.mode & 0o777).toBe(0o640);
    expect(await tree(out)).toEqual(['proto', 'proto/a.proto', 'proto/b.proto', 'schema.graphql']);
  });
});
