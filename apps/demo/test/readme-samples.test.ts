import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

// Every TypeScript sample in the READMEs is compiled against the packages as built, so a sample
// cannot drift from the API. Samples are ES modules (top-level await is allowed).
const root = join(__dirname, '..', '..', '..');
const out = join(__dirname, '..', 'test-output', 'readme-samples');

function readmes(): string[] {
  const files = [join(root, 'README.md'), join(root, 'apps', 'demo', 'README.md'), join(root, 'SECURITY.md')];
  for (const dir of readdirSync(join(root, 'packages'))) files.push(join(root, 'packages', dir, 'README.md'));
  return files.filter((f) => existsSync(f));
}

interface Sample {
  readme: string;
  line: number;
  file: string;
}

function extract(): Sample[] {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'package.json'), JSON.stringify({ type: 'module' }));
  const samples: Sample[] = [];
  for (const readme of readmes()) {
    const text = readFileSync(readme, 'utf8');
    const re = /```ts\n([\s\S]*?)```/g;
    let m: RegExpExecArray | null;
    let n = 0;
    while ((m = re.exec(text)) !== null) {
      const line = text.slice(0, m.index).split('\n').length;
      const name = `${relative(root, readme).replace(/[\\/]/g, '_').replace(/\.md$/, '')}_${++n}.ts`;
      // `export {}` keeps each sample a module of its own.
      writeFileSync(join(out, name), `${m[1]}\nexport {};\n`);
      samples.push({ readme: relative(root, readme), line, file: join(out, name) });
    }
  }
  return samples;
}

describe('README samples', () => {
  const samples = extract();

  it('finds the samples of the root README and of every package README', () => {
    const documented = new Set(samples.map((s) => s.readme));
    expect(documented.has('README.md')).toBe(true);
    for (const dir of readdirSync(join(root, 'packages'))) {
      if (existsSync(join(root, 'packages', dir, 'README.md'))) expect(documented).toContain(`packages/${dir}/README.md`);
    }
  });

  it('compiles every sample under strict TypeScript', () => {
    const program = ts.createProgram(
      samples.map((s) => s.file),
      {
        strict: true,
        noEmit: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        skipLibCheck: true,
        types: ['node'],
        typeRoots: [join(root, 'node_modules', '@types')],
        esModuleInterop: true,
      },
    );
    const problems = ts.getPreEmitDiagnostics(program).map((d) => {
      const sample = samples.find((s) => s.file === d.file?.fileName);
      const where = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : 0;
      const origin = sample ? `${sample.readme}:${sample.line + where + 1}` : (d.file?.fileName ?? '?');
      return `${origin}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    });
    expect(problems).toEqual([]);
  });
});
