import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { emit } from '@fw/app';
import { Application } from '@fw/core';
import type { Plugin } from '@fw/core/plugin';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fw-emit-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Every file under `root`, relative, sorted. */
async function tree(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(root.length + 1))
    .sort();
}

/**
 * A gRPC plugin as far as emit uses it: `generateProtos(previousDir)` and an optional `protoOut`.
 * Records the directory it was asked to read previous numbers from.
 */
function protoPlugin(files: Array<{ file: string; text: string }>, protoOut?: string): Plugin & { previous: Array<string | undefined> } {
  const previous: Array<string | undefined> = [];
  return {
    name: 'grpc',
    setup: () => undefined,
    previous,
    ...(protoOut === undefined ? {} : { protoOut }),
    generateProtos: (previousDir?: string) => {
      previous.push(previousDir);
      return files;
    },
  } as Plugin & { previous: Array<string | undefined> };
}

const PROTOS = [
  { file: 'shop/orders.proto', text: 'syntax = "proto3";\npackage shop;\nmessage Order {}' },
  { file: 'catalog.proto', text: 'syntax = "proto3";\nmessage Book {}\n' },
];

describe('emit()', () => {
  it('writes the generated .proto files under <out>/proto, by name, each ending with a newline, reading previous numbers from there', async () => {
    const app = new Application();
    const grpc = protoPlugin(PROTOS);
    app.register(grpc);
    const result = await emit({ app, out: dir });
    expect(result.files).toEqual([
      { kind: 'proto', path: join(dir, 'proto', 'catalog.proto'), changed: true },
      { kind: 'proto', path: join(dir, 'proto', 'shop', 'orders.proto'), changed: true },
    ]);
    expect(result.skipped).toEqual([
      { kind: 'graphql', reason: 'the app serves no GraphQL' },
      { kind: 'openapi', reason: 'the app has no REST routes and no openapi plugin' },
    ]);
    expect(grpc.previous).toEqual([join(dir, 'proto')]);
    expect(await tree(dir)).toEqual(['proto/catalog.proto', 'proto/shop/orders.proto']);
    expect(await readFile(join(dir, 'proto', 'shop', 'orders.proto'), 'utf8')).toBe('syntax = "proto3";\npackage shop;\nmessage Order {}\n');
    expect(await readFile(join(dir, 'proto', 'catalog.proto'), 'utf8')).toBe('syntax = "proto3";\nmessage Book {}\n');
    const again = await emit({ app, out: dir });
    expect(again.files.map((file) => file.changed)).toEqual([false, false]);
  });

  it("writes into the gRPC plugin's protoOut and keeps its numbers; an explicit protoOut moves the files but still reads the plugin's", async () => {
    const committed = join(dir, 'committed');
    const app = new Application();
    const grpc = protoPlugin(PROTOS, committed);
    app.register(grpc);
    await emit({ app, out: join(dir, 'out') });
    expect(await tree(dir)).toEqual(['committed/catalog.proto', 'committed/shop/orders.proto']);
    await emit({ app, out: join(dir, 'out'), protoOut: join(dir, 'check') });
    expect(await tree(join(dir, 'check'))).toEqual(['catalog.proto', 'shop/orders.proto']);
    expect(grpc.previous).toEqual([committed, committed]);
  });

  it('refuses a generated file name that would land outside the proto directory, writing no file at all', async () => {
    const app = new Application();
    app.register(protoPlugin([{ file: 'a.proto', text: '' }, { file: '../../escape.proto', text: '' }]));
    app.get('/ping', (ctx) => ctx.text('pong'));
    await expect(emit({ app, out: dir })).rejects.toThrow(`emit: the generated file name "../../escape.proto" points outside ${join(dir, 'proto')}`);
    expect(await tree(dir)).toEqual([]);
  });

  it('skips the .proto files when the gRPC server serves no operations', async () => {
    const app = new Application();
    app.register(protoPlugin([]));
    app.get('/ping', (ctx) => ctx.text('pong'));
    const result = await emit({ app, out: dir });
    expect(result.files).toEqual([{ kind: 'openapi', path: join(dir, 'openapi.json'), changed: true }]);
    expect(result.skipped).toContainEqual({ kind: 'proto', reason: 'the gRPC server serves no operations (its .proto files are your own)' });
  });

  it('rejects what is not an app, and throws when nothing is written', async () => {
    await expect(emit({ app: {} as never })).rejects.toThrow('emit: options.app must be an fw application (createApp() or new Application())');
    await expect(emit({ app: new Application(), out: dir })).rejects.toThrow(
      'Nothing to emit (graphql: the app serves no GraphQL; proto: the app serves no gRPC; openapi: the app has no REST routes and no openapi plugin)',
    );
    expect(await tree(dir)).toEqual([]);
  });
});
