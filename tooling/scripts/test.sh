#!/usr/bin/env bash
# The README's test command after its install step: installs the system programs some suites need,
# runs every package's jest through turbo (all of them, even after a failure), and ends with one
# line "N passed, N failed" summed over the packages. Checks run before it (CI's typecheck, lint)
# and named in FW_FAILED_CHECKS count as one failed test each.
set -uo pipefail
cd "$(dirname "$0")/../.."
bash tooling/scripts/setup-services.sh
# Results of an earlier run must not stand in for a package whose tests did not run this time.
rm -f packages/*/test-output/jest-results.json apps/*/test-output/jest-results.json \
  bench/test-output/jest-results.json tooling/test-output/jest-results.json
turbo run test --concurrency=1 --continue
status=$?
node tooling/scripts/summarize-tests.mjs "$PWD"
summary=$?
[ $status -eq 0 ] && [ $summary -eq 0 ]
