import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

// Runs the TypeScript compiler on the type tests, so an inference regression fails `jest`
// and not only `tsc --noEmit`.
const root = join(__dirname, '..');
const inferenceFile = join(root, 'test/inference.types.ts');
const operationFile = join(root, 'test/operation.types.ts');
const misuseFile = join(root, 'test/fixtures/inference-misuse.ts');

function compilerOptions(): ts.CompilerOptions {
  const configPath = join(root, 'tsconfig.json');
  const config = ts.readConfigFile(configPath, (path) => ts.sys.readFile(path));
  if (config.error !== undefined) throw new Error(ts.flattenDiagnosticMessageText(config.error.messageText, '\n'));
  return ts.parseJsonConfigFileContent(config.config, ts.sys, root).options;
}

interface Found {
  line: number;
  code: number;
  text: string;
}

function diagnostics(program: ts.Program, file: string): Found[] {
  const source = program.getSourceFile(file);
  if (source === undefined) throw new Error(`${file} is not part of the program`);
  return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)].map((d) => ({
    line: d.start === undefined ? 0 : source.getLineAndCharacterOfPosition(d.start).line + 1,
    code: d.code,
    text: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
  }));
}

/** The `// error TSxxxx` markers of a fixture: line number and expected code. */
function markers(file: string): Array<{ line: number; code: number }> {
  return readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((text, i) => {
      const match = /\/\/ error TS(\d+)\s*$/.exec(text);
      return match === null ? [] : [{ line: i + 1, code: Number(match[1]) }];
    });
}

// Type-checking zod 3, zod 4 and valibot declarations takes seconds, more on a loaded machine.
const CHECK_TIMEOUT = 60_000;

describe('type inference of createHandler(), validate() and defineOperation()', () => {
  const options = compilerOptions();
  let program: ts.Program;

  beforeAll(() => {
    program = ts.createProgram([inferenceFile, operationFile, misuseFile], options);
  }, CHECK_TIMEOUT);

  it('compiles the inference tests without a single error', () => {
    expect(diagnostics(program, inferenceFile)).toEqual([]);
  }, CHECK_TIMEOUT);

  // Each misuse there carries `@ts-expect-error`: one that stops failing is an error (TS2578) too.
  it('compiles the defineOperation() type tests, every expected error met', () => {
    expect(diagnostics(program, operationFile)).toEqual([]);
  }, CHECK_TIMEOUT);

  // The fixture proves the assertions bite: Expect<Equal<...>> on a wrong type does not compile.
  it('rejects each misuse in the fixture with the expected error, and nothing else', () => {
    const expected = markers(misuseFile);
    expect(expected.length).toBeGreaterThan(5);
    const found = diagnostics(program, misuseFile).map(({ line, code }) => ({ line, code }));
    expect(found).toEqual(expected);
  }, CHECK_TIMEOUT);
});
