import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// A consumer project of the client generated from the demo: strict settings, the DOM's types and
// no node types (the client needs nothing but fetch). It type-checks, so each of its
// `@ts-expect-error` lines (a wrong input, a field the output does not have) is an error, and the
// client's own code and declarations type-check under the same settings.
const TSC = require.resolve('typescript/bin/tsc');
const FIXTURE = join(__dirname, 'fixtures', 'client-consumer.ts');
const CLIENT = join(__dirname, '..', 'src', 'client.ts');

describe('a consumer of the generated demo client', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fw-demo-consumer-'));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('type-checks, every @ts-expect-error line an error', async () => {
    // The client's `@ts-nocheck` line taken out, so that its own declarations are checked too;
    // the consumer keeps its path to it (../../src/client.js).
    const client = await readFile(CLIENT, 'utf8');
    expect(client.split('\n')[2]).toMatch(/^\/\/ @ts-nocheck -- /);
    await mkdir(join(dir, 'src'), { recursive: true });
    await mkdir(join(dir, 'test', 'fixtures'), { recursive: true });
    await writeFile(join(dir, 'src', 'client.ts'), client.replace(/^\/\/ @ts-nocheck -- .*\n/m, ''));
    await writeFile(join(dir, 'test', 'fixtures', 'client-consumer.ts'), await readFile(FIXTURE, 'utf8'));
    const project = join(dir, 'tsconfig.json');
    const compilerOptions = { strict: true, noEmit: true, exactOptionalPropertyTypes: true, noUncheckedIndexedAccess: true, module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', lib: ['ES2022', 'DOM'], types: [] };
    await writeFile(project, JSON.stringify({ compilerOptions, files: [join(dir, 'test', 'fixtures', 'client-consumer.ts'), join(dir, 'src', 'client.ts')] }));
    const result = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      execFile(process.execPath, [TSC, '-p', project], { timeout: 120_000 }, (err, stdout) => resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : null, stdout }));
    });
    expect(result).toEqual({ code: 0, stdout: '' });
  });

  it('fails to type-check once an expected error is gone', async () => {
    const broken = join(dir, 'broken.ts');
    await writeFile(broken, `import { createClient } from ${JSON.stringify(join(__dirname, '..', 'src', 'client.js'))};\n// @ts-expect-error -- an id is a string\nexport const ok = createClient({ baseUrl: '' }).getBook({ id: 'b1' });\n`);
    const project = join(dir, 'tsconfig.broken.json');
    await writeFile(project, JSON.stringify({ compilerOptions: { strict: true, noEmit: true, module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', lib: ['ES2022', 'DOM'], types: [] }, files: [broken] }));
    const stdout = await new Promise<string>((resolve) => execFile(process.execPath, [TSC, '-p', project], { timeout: 120_000 }, (_err, out) => resolve(out)));
    expect(stdout).toMatch(/error TS2578: Unused '@ts-expect-error' directive/);
  });
});
