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

// A user's shell: without the NODE_PATH pnpm's jest launcher sets.
const USER_ENV = { ...process.env, NODE_PATH: '' };

function fw(cwd: string, ...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd, env: USER_ENV, timeout: 20_000 }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : null, stdout, stderr });
    });
  });
}

// A bookstore on GraphQL and gRPC. `{{BOOK}}` is the Book's shape, `{{GRPC}}` the gRPC config.
const BOOKSTORE = `
import { createApp } from '@fw/app';
import { defineOperation } from '@fw/app/validate';
import { z } from 'zod';

const Book = z.object({ {{BOOK}} }).meta({ id: 'Book' });
const getBook = defineOperation({
  name: 'getBook',
  input: z.object({ id: z.string() }),
  output: Book,
  handler: async ({ id }) => ({ id, title: 'Dune' }),
  graphql: { type: 'query' },
  grpc: { service: 'bookstore.Catalog' },
});

export default createApp({ onLog: () => {}, protocols: { graphql: true, grpc: {{GRPC}} } }).operation(getBook);
`;
const V1 = 'id: z.string(), title: z.string(), pages: z.int32().optional()';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fw-emit-check-'));
  await mkdir(join(dir, 'node_modules', '@fw'), { recursive: true });
  await symlink(PACKAGE, join(dir, 'node_modules', '@fw', 'app'), 'dir');
  await symlink(join(PACKAGE, 'node_modules', 'zod'), join(dir, 'node_modules', 'zod'), 'dir');
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const bookstore = (book: string, grpc = 'true'): string => BOOKSTORE.replace('{{BOOK}}', book).replace('{{GRPC}}', grpc);

/** Every file under `root`, relative, sorted, node_modules left out. */
async function tree(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && !join(entry.parentPath, entry.name).includes('node_modules'))
    .map((entry) => join(entry.parentPath, entry.name).slice(root.length + 1))
    .sort();
}

describe('fw emit --check', () => {
  it('exits 2 with one line per breaking change, lists the safe ones, and writes nothing', async () => {
    await writeFile(join(dir, 'bookstore.mjs'), bookstore(V1));
    expect((await fw(dir, 'emit', 'bookstore.mjs', '--out', 'schemas')).code).toBe(0);
    const committed = await tree(join(dir, 'schemas'));
    const bytes = await Promise.all(committed.map((file) => readFile(join(dir, 'schemas', file), 'utf8')));

    // `title` removed, `isbn` added.
    await writeFile(join(dir, 'bookstore.mjs'), bookstore('id: z.string(), pages: z.int32().optional(), isbn: z.string()'));
    const run = await fw(dir, 'emit', 'bookstore.mjs', '--out', 'schemas', '--check');
    expect(run.code).toBe(2);
    const lines = run.stdout.split('\n');
    expect(lines).toContain('breaking schema.graphql: Book.title was removed.');
    expect(lines.filter((line) => /^breaking \S+\.proto: field title \(2\) of bookstore(\.\w+)*\.Book was removed \[api\]$/.test(line))).toHaveLength(1);
    expect(lines).toContain('safe schema.graphql: Book.isbn was added.');
    expect(lines.filter((line) => /^safe \S+\.proto: field isbn \(\d+\) was added to bookstore(\.\w+)*\.Book$/.test(line))).toHaveLength(1);
    // Breaking lines come first.
    const kinds = lines.filter((line) => line !== '').map((line) => line.split(' ')[0]);
    expect(kinds.slice(0, kinds.indexOf('safe'))).toEqual(['breaking', 'breaking']);
    expect(run.stderr).toBe('fw: 2 changes break existing clients\n');
    expect(await tree(join(dir, 'schemas'))).toEqual(committed);
    expect(await Promise.all(committed.map((file) => readFile(join(dir, 'schemas', file), 'utf8')))).toEqual(bytes);
  });

  it('exits 0 when nothing breaks, saying which files are out of date', async () => {
    await writeFile(join(dir, 'bookstore.mjs'), bookstore(V1));
    expect((await fw(dir, 'emit', 'bookstore.mjs', '--out', 'schemas')).code).toBe(0);
    const same = await fw(dir, 'emit', 'bookstore.mjs', '--out', 'schemas', '--no-openapi', '--check');
    expect(same).toEqual({ code: 0, stdout: 'no changes\n', stderr: '' });

    await writeFile(join(dir, 'bookstore.mjs'), bookstore(`${V1}, isbn: z.string()`));
    const added = await fw(dir, 'emit', 'bookstore.mjs', '--out', 'schemas', '--no-openapi', '--check');
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(/^safe schema\.graphql: Book\.isbn was added\.\nsafe \S+\.proto: field isbn \(4\) was added to bookstore(\.\w+)*\.Book\n/);
    expect(added.stdout).toMatch(/\nout of date schemas\/schema\.graphql\nout of date schemas\/proto\/\S+\.proto\nno breaking changes \(2 files to emit and commit\)\n$/);
  });

  it('lists a new enum value in a response as dangerous and exits 0, or 2 with --strict', async () => {
    const genres = (values: string): string => bookstore(`${V1}, genre: z.enum([${values}]).meta({ id: 'Genre' })`);
    await writeFile(join(dir, 'bookstore.mjs'), genres("'fiction', 'poetry'"));
    expect((await fw(dir, 'emit', 'bookstore.mjs', '--out', 'schemas', '--no-openapi')).code).toBe(0);

    await writeFile(join(dir, 'bookstore.mjs'), genres("'fiction', 'poetry', 'drama'"));
    const run = await fw(dir, 'emit', 'bookstore.mjs', '--out', 'schemas', '--no-openapi', '--check');
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines).toContain('dangerous schema.graphql: drama was added to enum type Genre.');
    expect(lines.filter((line) => /^dangerous \S+\.proto: enum value GENRE_DRAMA \(3\) was added to bookstore(\.\w+)*\.Genre, which responses carry$/.test(line))).toHaveLength(1);
    expect(lines).toContain('no breaking changes (2 dangerous, which --strict refuses; 2 files to emit and commit)');
    expect(run.stderr).toBe('');

    const strict = await fw(dir, 'emit', 'bookstore.mjs', '--out', 'schemas', '--no-openapi', '--check', '--strict');
    expect(strict.code).toBe(2);
    expect(strict.stdout.split('\n').filter((line) => line.startsWith('dangerous '))).toHaveLength(2);
    expect(strict.stderr).toBe('fw: 2 changes break existing clients (2 dangerous, counted by --strict)\n');
    expect((await fw(dir, 'emit', 'bookstore.mjs', '--out', 'schemas', '--strict')).stderr).toMatch(/^fw: --strict goes with --check\n/);
  });

  it('reads a relative protoOut from the app package directory, whatever the current directory', async () => {
    const api = join(dir, 'api');
    await mkdir(api);
    await writeFile(join(api, 'package.json'), '{ "type": "module" }\n');
    await writeFile(join(api, 'app.mjs'), bookstore(V1, "{ protoOut: 'protos' }"));
    const first = await fw(api, 'emit', 'app.mjs', '--no-graphql', '--no-openapi');
    expect(first.code).toBe(0);
    const written = await tree(join(api, 'protos'));
    expect(written).toHaveLength(1);
    // From the repository root: the same file, found and left unchanged; nothing under ./protos.
    const again = await fw(dir, 'emit', 'api/app.mjs', '--no-graphql', '--no-openapi');
    expect(again).toEqual({ code: 0, stdout: `unchanged api/protos/${written[0]!}\n`, stderr: '' });
    expect(await tree(dir)).toEqual(['api/app.mjs', 'api/package.json', `api/protos/${written[0]!}`]);
  });

  it('warns on stderr when the committed .proto file is not where protoOut points', async () => {
    await writeFile(join(dir, 'bookstore.mjs'), bookstore(V1));
    expect((await fw(dir, 'emit', 'bookstore.mjs', '--out', 'schemas', '--no-graphql', '--no-openapi')).code).toBe(0);
    // protoOut now names a directory with no files: the committed ones stay in schemas/proto.
    await writeFile(join(dir, 'bookstore.mjs'), bookstore(V1, "{ protoOut: 'protos' }"));
    const run = await fw(dir, 'emit', 'bookstore.mjs', '--out', 'schemas', '--no-graphql', '--no-openapi', '--check');
    expect(run.stderr).toMatch(/^fw: warning: no previous \S+\.proto in \S+\/protos, so its field numbers start from scratch, but \S+\/schemas\/proto\/\S+\.proto exists: /);
  });
});
