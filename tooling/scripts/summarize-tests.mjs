// Sums the jest JSON results of every workspace package and prints one line per package and set,
// then the total: "N passed, N failed". Exits non-zero when a package wrote no results for a set it
// has a script for, when any test failed, or when nothing passed.
//
//   node summarize-tests.mjs ROOT [--sets=tests,hostile]
//
// Sets: `tests` reads test-output/jest-results.json of every package with a `test` script (the
// README's test command); `hostile` reads test-output/jest-hostile.json of every package with a
// `test:hostile` script (its attack and timing suites). Default: tests.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const SETS = {
  tests: { script: 'test', file: 'jest-results.json', label: '' },
  hostile: { script: 'test:hostile', file: 'jest-hostile.json', label: ' (hostile)' },
};

const args = process.argv.slice(2);
const root = args.find((arg) => !arg.startsWith('--')) ?? process.cwd();
const setsArg = args.find((arg) => arg.startsWith('--sets='))?.slice('--sets='.length) ?? 'tests';
const sets = setsArg.split(',').filter(Boolean);
for (const set of sets) {
  if (!(set in SETS)) {
    console.error(`summarize-tests: unknown set ${set} (known: ${Object.keys(SETS).join(', ')})`);
    process.exit(2);
  }
}

/** The workspace packages, each with its directory and package.json. */
function packages() {
  const found = [];
  for (const group of ['packages', 'apps', 'bench', 'tooling']) {
    const base = join(root, group);
    if (!existsSync(base)) continue;
    const dirs = group === 'bench' || group === 'tooling' ? [''] : readdirSync(base).sort();
    for (const dir of dirs) {
      const pkgDir = join(base, dir);
      const pkgFile = join(pkgDir, 'package.json');
      if (!existsSync(pkgFile)) continue;
      found.push({ dir: pkgDir, pkg: JSON.parse(readFileSync(pkgFile, 'utf8')) });
    }
  }
  return found;
}

/**
 * The suites of a result that failed outside their tests: they could not run (did not load, a hook
 * or the environment failed) and show no failed test for it. jest's numFailedTestSuites also counts
 * every suite with a failed test, which the failed tests already count.
 */
function notRun(result) {
  return (result.testResults ?? []).filter(
    (suite) => suite.testExecError != null || (suite.status === 'failed' && !(suite.assertionResults ?? []).some((test) => test.status === 'failed')),
  ).length;
}

let passed = 0;
let failed = 0;
let missing = 0;
const lines = [];
const missingLines = [];
/** Each failed test and each suite that could not run, with the first lines of its message: printed above the totals, so the tail of a log says what failed. */
const failures = [];
/** Terminal colour codes (ESC [ … m) that jest puts in failure messages. */
const ANSI_COLOUR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');
const firstLines = (text) =>
  String(text ?? '')
    .replace(ANSI_COLOUR, '')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .slice(0, 3)
    .join(' | ')
    .slice(0, 400);
const because = (text) => {
  const said = firstLines(text);
  return said === '' ? '' : `: ${said}`;
};
for (const set of sets) {
  const { script, file, label } = SETS[set];
  for (const { dir, pkg } of packages()) {
    if (!pkg.scripts?.[script]) continue;
    const path = join(dir, 'test-output', file);
    if (!existsSync(path)) {
      // Its tests did not run (or did not finish): one failure, not a silent zero.
      missingLines.push(`${pkg.name}${label}: no test results (did its tests run?)`);
      missing++;
      continue;
    }
    let result;
    try {
      result = JSON.parse(readFileSync(path, 'utf8'));
    } catch (error) {
      missingLines.push(`${pkg.name}${label}: unreadable test results (${error.message})`);
      missing++;
      continue;
    }
    for (const suite of result.testResults ?? []) {
      const file = suite.name.startsWith(dir) ? suite.name.slice(dir.length + 1) : suite.name;
      for (const test of suite.assertionResults ?? []) {
        if (test.status === 'failed') failures.push(`FAILED ${pkg.name}${label} ${file} › ${test.fullName ?? test.title}${because(test.failureMessages?.[0])}`);
      }
      if (suite.testExecError != null || (suite.status === 'failed' && !(suite.assertionResults ?? []).some((test) => test.status === 'failed'))) {
        failures.push(`FAILED TO RUN ${pkg.name}${label} ${file}${because(suite.testExecError?.message ?? suite.message)}`);
      }
    }
    const suites = notRun(result);
    passed += result.numPassedTests;
    failed += result.numFailedTests + suites;
    lines.push(`${pkg.name}${label}: ${result.numPassedTests} passed, ${result.numFailedTests} failed${suites ? `, ${suites} suites failed to run` : ''}`);
  }
}
// At most 30, so that the totals stay in the last lines of a long log.
for (const line of failures.slice(0, 30)) console.log(line);
if (failures.length > 30) console.log(`… and ${failures.length - 30} more failures`);
for (const line of [...lines, ...missingLines]) console.log(line);
failed += missing;
// Checks run before the tests (typecheck, lint), each counted as one test: "typecheck,lint" failed.
const failedChecks = (process.env.FW_FAILED_CHECKS ?? '').split(',').filter(Boolean);
for (const check of failedChecks) console.log(`${check}: failed`);
failed += failedChecks.length;
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
