import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PACKAGE = join(__dirname, '..');
const BIN = join(PACKAGE, 'dist', 'bin', 'fw.js');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

// A user's shell: without the NODE_PATH pnpm's jest launcher sets, which would find the
// workspace's packages from any folder.
const USER_ENV = { ...process.env, NODE_PATH: '' };

/** Runs the built `fw` binary in `cwd`. */
function fw(cwd: string, ...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd, env: USER_ENV, timeout: 15_000 }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : null, stdout, stderr });
    });
  });
}

// A shop app: two REST routes with schemas, one of them documented through the openapi plugin.
const SHOP = `
import { createApp } from '@fw/app';
import { validate } from '@fw/app/validate';
import { openapiPlugin } from '@fw/app/openapi';
import { z } from 'zod';

export function build() {
  const app = createApp({ onLog: () => {} });
  app.register(openapiPlugin({ info: { title: 'Shop', version: '3.0.0' } }));
  app.get('/items/:id', validate({ params: z.object({ id: z.string().min(1) }) }), (ctx) => ctx.json({ id: ctx.params.id }));
  app.post('/items', validate({ body: z.object({ name: z.string() }) }), (ctx) => ctx.json(ctx.body, 201));
  return app;
}
`;

// A bookstore serving two operations on REST, GraphQL and gRPC. `{{BOOK}}` is the Book schema's shape.
const BOOKSTORE = `
import { createApp } from '@fw/app';
import { defineOperation } from '@fw/app/validate';
import { openapiPlugin } from '@fw/app/openapi';
import { z } from 'zod';

const Author = z.object({ name: z.string() }).meta({ id: 'Author' });
const Book = z.object({ {{BOOK}} }).meta({ id: 'Book' });

const getBook = defineOperation({
  name: 'getBook',
  description: 'One book by id',
  input: z.object({ id: z.string() }),
  output: Book,
  handler: async ({ id }) => ({ id, title: 'Dune', author: { name: 'Frank Herbert' } }),
  rest: { method: 'GET', path: '/books/:id' },
  graphql: { type: 'query' },
  grpc: { service: 'bookstore.Catalog' },
});
const addBook = defineOperation({
  name: 'addBook',
  input: z.object({ title: z.string(), author: Author }),
  output: Book,
  handler: async ({ title, author }) => ({ id: 'b2', title, author }),
  rest: { method: 'POST', path: '/books', status: 201 },
  graphql: { type: 'mutation' },
  grpc: { service: 'bookstore.Catalog' },
});

export default async function build() {
  const app = createApp({ onLog: () => {}, protocols: { graphql: true, grpc: true } });
  app.register(openapiPlugin({ info: { title: 'Bookstore', version: '1.0.0' } }));
  return app.operation(getBook).operation(addBook);
}
`;
const BOOK_V1 = 'id: z.string(), title: z.string(), author: Author, pages: z.number().int().optional()';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fw-emit-'));
  // The app modules import '@fw/app' and 'zod' as a user's project does.
  await mkdir(join(dir, 'node_modules', '@fw'), { recursive: true });
  await symlink(PACKAGE, join(dir, 'node_modules', '@fw', 'app'), 'dir');
  await symlink(join(PACKAGE, 'node_modules', 'zod'), join(dir, 'node_modules', 'zod'), 'dir');
  await writeFile(join(dir, 'shop.mjs'), SHOP);
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const appModule = (name: string, body: string): Promise<void> => writeFile(join(dir, name), `import { build } from './shop.mjs';\n${body}\n`);
const files = async (sub = ''): Promise<string[]> => (await readdir(join(dir, sub))).filter((name) => name !== 'node_modules').sort();

describe('fw emit', () => {
  it('writes openapi.json from the app openapi plugin, with a final newline, and prints what it wrote', async () => {
    await appModule('app.mjs', 'export default build();');
    const run = await fw(dir, 'emit', 'app.mjs', '--out', 'schemas');
    expect(run).toEqual({ code: 0, stdout: 'wrote schemas/openapi.json\nskipped graphql: the app serves no GraphQL\nskipped proto: the app serves no gRPC\n', stderr: '' });
    expect(await files()).toEqual(['app.mjs', 'schemas', 'shop.mjs']);
    expect(await files('schemas')).toEqual(['openapi.json']);
    const text = await readFile(join(dir, 'schemas', 'openapi.json'), 'utf8');
    expect(text.endsWith('}\n')).toBe(true);
    const document = JSON.parse(text) as { info: unknown; paths: Record<string, unknown> };
    expect(document.info).toEqual({ title: 'Shop', version: '3.0.0' });
    expect(Object.keys(document.paths)).toEqual(['/items/{id}', '/items']);
  });

  it('writes the same bytes on every run, and says when a file was already up to date', async () => {
    await appModule('app.mjs', 'export default build();');
    expect((await fw(dir, 'emit', 'app.mjs')).code).toBe(0);
    const first = await readFile(join(dir, 'openapi.json'));
    const again = await fw(dir, 'emit', 'app.mjs');
    expect(again.stdout.split('\n')[0]).toBe('unchanged openapi.json');
    expect((await readFile(join(dir, 'openapi.json'))).equals(first)).toBe(true);
  });

  it('loads the app from an "app" export, a function returning it, or a promise of it', async () => {
    await appModule('named.mjs', 'export const app = build();');
    await appModule('factory.mjs', 'export default build;');
    await appModule('async.mjs', 'export default Promise.resolve().then(build);');
    await appModule('async-factory.mjs', 'export const app = async () => build();');
    for (const name of ['named.mjs', 'factory.mjs', 'async.mjs', 'async-factory.mjs']) {
      const out = `out-${name}`;
      const run = await fw(dir, 'emit', name, '--out', out, '--no-graphql', '--no-proto');
      expect([name, run.code, run.stdout]).toEqual([name, 0, `wrote ${out}/openapi.json\n`]);
    }
  });

  it('builds the document from the routes when the app registered no openapi plugin', async () => {
    await writeFile(
      join(dir, 'plain.mjs'),
      "import { createApp } from '@fw/app';\nconst app = createApp();\napp.get('/ping', (ctx) => ctx.text('pong'));\nexport default app;\n",
    );
    expect((await fw(dir, 'emit', 'plain.mjs')).code).toBe(0);
    const document = JSON.parse(await readFile(join(dir, 'openapi.json'), 'utf8')) as { info: unknown; paths: Record<string, unknown> };
    expect(document.info).toEqual({ title: 'API', version: '1.0.0' });
    expect(Object.keys(document.paths)).toEqual(['/ping']);
  });

  it('exits 1 with a clear message when the module is missing, exports no app, or fails to load', async () => {
    await writeFile(join(dir, 'empty.mjs'), 'export const other = 1;\n');
    await writeFile(join(dir, 'wrong.mjs'), 'export default { name: "not an app" };\n');
    await writeFile(join(dir, 'broken.mjs'), 'throw new Error("database url missing");\n');
    await writeFile(join(dir, 'failing.mjs'), 'export default async () => { throw new Error("no config"); };\n');
    const cases = await Promise.all([
      fw(dir, 'emit', 'missing.mjs'),
      fw(dir, 'emit', 'empty.mjs'),
      fw(dir, 'emit', 'wrong.mjs'),
      fw(dir, 'emit', 'broken.mjs'),
      fw(dir, 'emit', 'failing.mjs'),
    ]);
    expect(cases.map((run) => [run.code, run.stdout, run.stderr])).toEqual([
      [1, '', `fw: cannot find the app module missing.mjs (no file at ${join(dir, 'missing.mjs')})\n`],
      [1, '', 'fw: empty.mjs exports no app: export it as the default export or as "app"\n'],
      [1, '', 'fw: the default export of wrong.mjs is not an fw app (createApp() or new Application())\n'],
      [1, '', 'fw: could not load broken.mjs: database url missing\n'],
      [1, '', 'fw: making the app exported by failing.mjs failed: no config\n'],
    ]);
    expect(await files()).toEqual(['broken.mjs', 'empty.mjs', 'failing.mjs', 'shop.mjs', 'wrong.mjs']);
  });

  it('loads a TypeScript app module through the project tsx, without a loader flag', async () => {
    await symlink(join(PACKAGE, 'node_modules', 'tsx'), join(dir, 'node_modules', 'tsx'), 'dir');
    await writeFile(
      join(dir, 'app.ts'),
      "import { createApp } from '@fw/app';\nconst greeting: string = 'pong';\nconst app = createApp();\napp.get('/ping', (ctx) => ctx.text(greeting));\nexport default app;\n",
    );
    const run = await fw(dir, 'emit', 'app.ts', '--no-graphql', '--no-proto');
    expect([run.code, run.stdout, run.stderr]).toEqual([0, 'wrote openapi.json\n', '']);
    const document = JSON.parse(await readFile(join(dir, 'openapi.json'), 'utf8')) as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths)).toEqual(['/ping']);
  });

  it('runs as pnpm links it: through a shell script in node_modules/.bin', async () => {
    await symlink(join(PACKAGE, 'node_modules', 'tsx'), join(dir, 'node_modules', 'tsx'), 'dir');
    await writeFile(join(dir, 'app.mts'), "import { createApp } from '@fw/app';\nconst app = createApp();\napp.get('/ping', (ctx) => ctx.text('pong'));\nexport const built: typeof app = app;\nexport { app };\n");
    await mkdir(join(dir, 'node_modules', '.bin'));
    const script = join(dir, 'node_modules', '.bin', 'fw');
    await writeFile(script, `#!/bin/sh\nexec "${process.execPath}" "${join(PACKAGE, 'bin', 'fw.mjs')}" "$@"\n`, { mode: 0o755 });
    const run = await new Promise<Run>((resolve) => {
      execFile(script, ['emit', 'app.mts', '--no-graphql', '--no-proto'], { cwd: dir, env: USER_ENV, timeout: 15_000 }, (err, stdout, stderr) => {
        resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : null, stdout, stderr });
      });
    });
    expect([run.code, run.stdout, run.stderr]).toEqual([0, 'wrote openapi.json\n', '']);
  });

  it('says to install tsx when a TypeScript module cannot be loaded without it', async () => {
    await writeFile(join(dir, 'app.ts'), "import { createApp } from '@fw/app';\nexport default createApp() as unknown;\n");
    const run = await fw(dir, 'emit', 'app.ts');
    expect([run.code, run.stderr]).toEqual([
      1,
      'fw: app.ts is TypeScript: install tsx in the project (npm install -D tsx) and run fw emit again, or emit from a compiled .js module\n',
    ]);
  });

  it('exits 1 when there is nothing to emit', async () => {
    await writeFile(join(dir, 'bare.mjs'), "import { createApp } from '@fw/app';\nexport default createApp();\n");
    await appModule('app.mjs', 'export default build();');
    const bare = await fw(dir, 'emit', 'bare.mjs');
    expect([bare.code, bare.stderr]).toEqual([
      1,
      'fw: Nothing to emit (graphql: the app serves no GraphQL; proto: the app serves no gRPC; openapi: the app has no REST routes and no openapi plugin)\n',
    ]);
    const off = await fw(dir, 'emit', 'app.mjs', '--no-graphql', '--no-proto', '--no-openapi');
    expect([off.code, off.stderr]).toEqual([1, 'fw: Nothing to emit (graphql, proto and openapi are all turned off)\n']);
    expect(await files()).toEqual(['app.mjs', 'bare.mjs', 'shop.mjs']);
  });

  it('refuses a module that starts listening, closes its server and exits', async () => {
    await appModule('listening.mjs', 'const app = build();\nawait app.listen(0, "127.0.0.1");\nexport default app;');
    const run = await fw(dir, 'emit', 'listening.mjs');
    expect([run.code, run.stderr]).toEqual([1, 'fw: listening.mjs started a server while loading: export the app without calling listen()\n']);
    expect(await files()).toEqual(['listening.mjs', 'shop.mjs']);
  });

  it('says a module that exports nothing but called listen() listened, and to export the app instead', async () => {
    await appModule('main.mjs', 'const app = build();\nawait app.listen(0, "127.0.0.1");');
    const run = await fw(dir, 'emit', 'main.mjs');
    expect([run.code, run.stderr]).toEqual([
      1,
      'fw: main.mjs exports no app: it called listen() while loading instead. Export the app without listening, as the default export or as "app" (keep listen() in another file, e.g. main.ts)\n',
    ]);
  });

  it('exits 1 with the usage on an unknown command or option, and prints the usage for --help', async () => {
    const [unknown, option, none, help] = await Promise.all([fw(dir, 'build'), fw(dir, 'emit', 'app.mjs', '--watch'), fw(dir), fw(dir, 'emit', '--help')]);
    expect([unknown.code, unknown.stderr.split('\n')[0]]).toEqual([1, 'fw: unknown command "build"']);
    expect([option.code, option.stderr.split('\n')[0]]).toEqual([1, 'fw: unknown option --watch']);
    expect(none.code).toBe(1);
    expect(none.stdout).toMatch(/^Usage: fw emit <app-module>/);
    expect([help.code, help.stdout]).toEqual([0, expect.stringContaining('--no-openapi')]);
  });

  it('writes schema.graphql, the .proto files and openapi.json of an app serving operations on every protocol', async () => {
    await writeFile(join(dir, 'bookstore.mjs'), BOOKSTORE.replace('{{BOOK}}', BOOK_V1));
    const run = await fw(dir, 'emit', 'bookstore.mjs', '--out', 'schemas');
    expect(run).toEqual({ code: 0, stdout: 'wrote schemas/schema.graphql\nwrote schemas/proto/bookstore/bookstore.proto\nwrote schemas/openapi.json\n', stderr: '' });
    const sdl = await readFile(join(dir, 'schemas', 'schema.graphql'), 'utf8');
    expect(sdl).toContain('type Query {\n  """One book by id"""\n  getBook(id: String!): Book!\n}\n');
    expect(sdl).toContain('type Mutation {\n  addBook(input: AddBookInput!): Book!\n}\n');
    // The file of proto package `bookstore` is in the package's directory.
    expect(await files('schemas/proto')).toEqual(['bookstore']);
    const proto = await readFile(join(dir, 'schemas', 'proto', 'bookstore', 'bookstore.proto'), 'utf8');
    expect(proto).toContain('service Catalog {\n  rpc AddBook(AddBookRequest) returns (AddBookResponse);\n  // One book by id\n  rpc GetBook(GetBookRequest) returns (GetBookResponse) {\n    option idempotency_level = NO_SIDE_EFFECTS;\n  }\n}');
    // The unnamed input gives the request its fields, with presence; the named output is one field of the response.
    expect(proto).toContain('message GetBookRequest {\n  optional string id = 1;\n}');
    expect(proto).toContain('message GetBookResponse {\n  Book book = 1;\n}');
    expect(proto.endsWith('}\n')).toBe(true);
    const document = JSON.parse(await readFile(join(dir, 'schemas', 'openapi.json'), 'utf8')) as {
      paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>>;
      components: { schemas: Record<string, unknown> };
    };
    expect([document.paths['/books/{id}']!.get!.operationId, document.paths['/books']!.post!.operationId]).toEqual(['getBook', 'addBook']);
    expect(document.paths['/books']!.post!.responses['201']).toEqual({ description: 'Created', content: { 'application/json': { schema: { $ref: '#/components/schemas/Book' } } } });
    expect(Object.keys(document.components.schemas)).toEqual(expect.arrayContaining(['Book', 'Author']));

    // Emitting again writes nothing new: the bytes are the same.
    const before = await Promise.all(['schema.graphql', 'proto/bookstore/bookstore.proto', 'openapi.json'].map((name) => readFile(join(dir, 'schemas', name))));
    const again = await fw(dir, 'emit', 'bookstore.mjs', '--out', 'schemas');
    expect(again.stdout).toBe('unchanged schemas/schema.graphql\nunchanged schemas/proto/bookstore/bookstore.proto\nunchanged schemas/openapi.json\n');
    const after = await Promise.all(['schema.graphql', 'proto/bookstore/bookstore.proto', 'openapi.json'].map((name) => readFile(join(dir, 'schemas', name))));
    expect(after.map((bytes, i) => bytes.equals(before[i]!))).toEqual([true, true, true]);
  });

  it('keeps the field numbers of the .proto files it wrote before when the schemas change', async () => {
    await writeFile(join(dir, 'bookstore.mjs'), BOOKSTORE.replace('{{BOOK}}', BOOK_V1));
    expect((await fw(dir, 'emit', 'bookstore.mjs', '--no-graphql', '--no-openapi')).code).toBe(0);
    // Keys reordered, `pages` removed, `isbn` added.
    await writeFile(join(dir, 'bookstore.mjs'), BOOKSTORE.replace('{{BOOK}}', 'isbn: z.string(), author: Author, title: z.string(), id: z.string()'));
    const run = await fw(dir, 'emit', 'bookstore.mjs', '--no-graphql', '--no-openapi');
    expect(run).toEqual({ code: 0, stdout: 'wrote proto/bookstore/bookstore.proto\n', stderr: '' });
    const proto = await readFile(join(dir, 'proto', 'bookstore', 'bookstore.proto'), 'utf8');
    const book = /message Book \{\n([^}]*)\}/.exec(proto)![1]!;
    expect(book.split('\n').map((line) => line.trim()).filter((line) => line !== '')).toEqual(
      expect.arrayContaining(['string id = 1;', 'string title = 2;', 'Author author = 3;', 'string isbn = 5;']),
    );
    expect(book).toMatch(/reserved 4;/);
  });
});
