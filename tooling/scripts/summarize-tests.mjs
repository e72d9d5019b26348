// Sums the jest JSON results of every workspace package and prints one line:
// "N passed, N failed". Exits non-zero when a package wrote no results or any test failed.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = process.argv[2] ?? process.cwd();
let passed = 0;
let failed = 0;
let suitesFailed = 0;
const missing = [];
for (const group of ['packages', 'apps', 'bench', 'tooling']) {
  const base = join(root, group);
  if (!existsSync(base)) continue;
  const dirs = group === 'bench' || group === 'tooling' ? [''] : readdirSync(base);
  for (const dir of dirs) {
    const pkgDir = join(base, dir);
    const pkgFile = join(pkgDir, 'package.json');
    if (!existsSync(pkgFile)) continue;
    const pkg = JSON.parse(readFileSync(pkgFile, 'utf8'));
    if (!pkg.scripts?.test) continue;
    const file = join(pkgDir, 'test-output', 'jest-results.json');
    if (!existsSync(file)) {
      missing.push(pkg.name);
      continue;
    }
    const result = JSON.parse(readFileSync(file, 'utf8'));
    passed += result.numPassedTests;
    failed += result.numFailedTests;
    // A suite "failed to run" only when it could not run (it did not load, or failed with no failed
    // test to show for it); jest's numFailedTestSuites also counts every suite with a failed test.
    const notRun = (result.testResults ?? []).filter(
      (suite) => suite.testExecError != null || (suite.status === 'failed' && !(suite.assertionResults ?? []).some((test) => test.status === 'failed')),
    ).length;
    suitesFailed += notRun;
    console.log(`${pkg.name}: ${result.numPassedTests} passed, ${result.numFailedTests} failed${notRun ? `, ${notRun} suites failed to run` : ''}`);
  }
}
for (const name of missing) console.log(`${name}: no test results (did its tests run?)`);
// A suite that fails to load counts as a failure even though it reports no failed test.
failed += suitesFailed;
// Checks run before the tests (typecheck, lint), each counted as one test: "typecheck,lint" failed.
const failedChecks = (process.env.FW_FAILED_CHECKS ?? '').split(',').filter(Boolean);
for (const check of failedChecks) console.log(`${check}: failed`);
failed += failedChecks.length;
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || missing.length > 0 || passed === 0 ? 1 : 0);
