/**
 * tooling/scripts/summarize-tests.mjs, the closing line of the test command and of CI: run on a
 * made-up workspace whose packages wrote jest results (or did not).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const SCRIPT = resolve(__dirname, '..', 'scripts', 'summarize-tests.mjs');

interface Suite {
  name: string;
  status: 'passed' | 'failed';
  tests: Array<'passed' | 'failed'>;
  testExecError?: { message: string };
}

/** A jest --json result of these suites. */
function result(suites: Suite[]): object {
  const tests = suites.flatMap((suite) => suite.tests);
  return {
    numPassedTests: tests.filter((t) => t === 'passed').length,
    numFailedTests: tests.filter((t) => t === 'failed').length,
    numFailedTestSuites: suites.filter((s) => s.status === 'failed').length,
    testResults: suites.map((suite) => ({
      name: suite.name,
      status: suite.status,
      testExecError: suite.testExecError,
      message: suite.testExecError?.message,
      assertionResults: suite.tests.map((status, i) => ({
        title: `t${i}`,
        fullName: `${suite.name} t${i}`,
        status,
        failureMessages: status === 'failed' ? ['\u001b[31mError: boom\u001b[39m\n\n    at x.ts:1\n    at y.ts:2\n    at z.ts:3'] : [],
      })),
    })),
  };
}

const passing = (name: string, n: number): Suite => ({ name, status: 'passed', tests: Array<'passed'>(n).fill('passed') });

describe('summarize-tests', () => {
  let root: string;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'fw-summarize-'));
  });

  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
  });

  /** A package with these scripts and, for each results file named, that result. */
  function pkg(dir: string, scripts: Record<string, string>, results: Record<string, object> = {}): void {
    const pkgDir = join(root, 'packages', dir);
    mkdirSync(join(pkgDir, 'test-output'), { recursive: true });
    writeFileSync(join(pkgDir, 'package.json'), JSON.stringify({ name: `@fw/${dir}`, scripts }));
    for (const [file, value] of Object.entries(results)) writeFileSync(join(pkgDir, 'test-output', file), JSON.stringify(value));
  }

  function run(args: string[] = [], env: Record<string, string> = {}): { lines: string[]; code: number | null } {
    const out = spawnSync(process.execPath, [SCRIPT, root, ...args], { encoding: 'utf8', env: { ...process.env, FW_FAILED_CHECKS: '', ...env } });
    return { lines: out.stdout.trim().split('\n'), code: out.status };
  }

  const BOTH = { test: 'jest', 'test:hostile': 'jest' };

  it('sums every package and exits 0 when all passed', () => {
    pkg('a', BOTH, { 'jest-results.json': result([passing('a1', 3), passing('a2', 2)]) });
    pkg('b', { test: 'jest' }, { 'jest-results.json': result([passing('b1', 4)]) });
    expect(run()).toEqual({ lines: ['@fw/a: 5 passed, 0 failed', '@fw/b: 4 passed, 0 failed', '9 passed, 0 failed'], code: 0 });
  });

  it('counts a suite as failed to run only when it could not run, not when one of its tests failed', () => {
    pkg('a', { test: 'jest' }, {
      'jest-results.json': result([
        { name: 'has a failed test', status: 'failed', tests: ['passed', 'failed'] },
        { name: 'did not load', status: 'failed', tests: [], testExecError: { message: 'SyntaxError' } },
        { name: 'a hook failed after its tests passed', status: 'failed', tests: ['passed'] },
        passing('fine', 2),
      ]),
    });
    expect(run()).toEqual({
      lines: [
        // Each failure by name with the first lines of its message, above the totals (a log's tail shows them).
        'FAILED @fw/a has a failed test › has a failed test t1: Error: boom | at x.ts:1 | at y.ts:2',
        'FAILED TO RUN @fw/a did not load: SyntaxError',
        'FAILED TO RUN @fw/a a hook failed after its tests passed',
        '@fw/a: 4 passed, 1 failed, 2 suites failed to run',
        '4 passed, 3 failed',
      ],
      code: 1,
    });
  });

  it('reads the hostile results only when asked, and sums them into the one total with a line per package', () => {
    pkg('a', BOTH, { 'jest-results.json': result([passing('a1', 5)]), 'jest-hostile.json': result([passing('h1', 2), { name: 'h2', status: 'failed', tests: ['failed'] }]) });
    pkg('b', { test: 'jest' }, { 'jest-results.json': result([passing('b1', 1)]) });
    expect(run()).toEqual({ lines: ['@fw/a: 5 passed, 0 failed', '@fw/b: 1 passed, 0 failed', '6 passed, 0 failed'], code: 0 });
    expect(run(['--sets=hostile'])).toEqual({ lines: ['FAILED @fw/a (hostile) h2 › h2 t0: Error: boom | at x.ts:1 | at y.ts:2', '@fw/a (hostile): 2 passed, 1 failed', '2 passed, 1 failed'], code: 1 });
    expect(run(['--sets=tests,hostile'])).toEqual({
      lines: ['FAILED @fw/a (hostile) h2 › h2 t0: Error: boom | at x.ts:1 | at y.ts:2', '@fw/a: 5 passed, 0 failed', '@fw/b: 1 passed, 0 failed', '@fw/a (hostile): 2 passed, 1 failed', '8 passed, 1 failed'],
      code: 1,
    });
  });

  it('fails for a package whose results are missing, hostile ones included, counting each as a failure', () => {
    pkg('a', BOTH, { 'jest-results.json': result([passing('a1', 5)]) });
    pkg('b', { test: 'jest' });
    expect(run(['--sets=tests,hostile'])).toEqual({
      lines: ['@fw/a: 5 passed, 0 failed', '@fw/b: no test results (did its tests run?)', '@fw/a (hostile): no test results (did its tests run?)', '5 passed, 2 failed'],
      code: 1,
    });
  });

  it('counts each failed check named in FW_FAILED_CHECKS as one failed test', () => {
    pkg('a', { test: 'jest' }, { 'jest-results.json': result([passing('a1', 5)]) });
    expect(run([], { FW_FAILED_CHECKS: 'typecheck,lint' })).toEqual({ lines: ['@fw/a: 5 passed, 0 failed', 'typecheck: failed', 'lint: failed', '5 passed, 2 failed'], code: 1 });
  });

  it('names at most 30 failures, then how many more', () => {
    pkg('a', { test: 'jest' }, { 'jest-results.json': result([{ name: 'many', status: 'failed', tests: Array<'failed'>(32).fill('failed') }]) });
    const { lines } = run();
    expect(lines).toHaveLength(30 + 3);
    expect(lines[29]).toMatch(/^FAILED @fw\/a many › many t29: /);
    expect(lines.slice(30)).toEqual(['… and 2 more failures', '@fw/a: 0 passed, 32 failed', '0 passed, 32 failed']);
  });

  it('fails when nothing passed, and on an unknown set', () => {
    pkg('a', { test: 'jest' }, { 'jest-results.json': result([]) });
    expect(run()).toEqual({ lines: ['@fw/a: 0 passed, 0 failed', '0 passed, 0 failed'], code: 1 });
    expect(run(['--sets=nope']).code).toBe(2);
  });
});
