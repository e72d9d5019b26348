import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

// The root README's "Define once" sample is a complete program: it is run here as it is written
// (compiled to JavaScript, its types are checked by readme-samples.test.ts) and must print what
// the README says it prints.
const root = join(__dirname, '..', '..', '..');
const out = join(__dirname, '..', 'test-output', 'define-once');

function section(): { code: string; printed: string } {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const start = readme.indexOf('\n## Define once\n');
  if (start < 0) throw new Error('README.md has no "## Define once" section');
  const text = readme.slice(start, readme.indexOf('\n## ', start + 1));
  const code = /```ts\n([\s\S]*?)```/.exec(text)?.[1];
  const printed = /```text\n([\s\S]*?)```/.exec(text)?.[1];
  if (code === undefined || printed === undefined) throw new Error('the "Define once" section needs a ts sample and a text block of its output');
  return { code, printed };
}

describe('the root README "Define once" sample', () => {
  it('runs and prints what the README shows', async () => {
    const { code, printed } = section();
    mkdirSync(out, { recursive: true });
    // Inside apps/demo, so '@fw/app', 'zod' and the gRPC packages resolve as in a user's project.
    writeFileSync(join(out, 'package.json'), JSON.stringify({ type: 'module' }));
    const js = ts.transpileModule(code, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
    writeFileSync(join(out, 'sample.js'), js);
    const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, [join(out, 'sample.js')], { cwd: out, timeout: 30_000 }, (err, stdout, stderr) => {
        resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : null, stdout, stderr });
      });
    });
    expect(run).toEqual({ code: 0, stdout: printed, stderr: '' });
  });
});
