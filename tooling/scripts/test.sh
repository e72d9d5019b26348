#!/usr/bin/env bash
# The README's test command after its install step: installs the system programs some suites need,
# runs every package's jest through turbo (all of them, even after a failure), and ends with one
# line "N passed, N failed" summed over the packages. Checks run before it (CI's typecheck, lint)
# and named in FW_FAILED_CHECKS count as one failed test each.
#
#   test.sh            every package's `test` script: all suites but the attack and timing suites
#                      (each package's test/hostile/), two packages at a time
#   test.sh --hostile  every package's `test:hostile` script: those suites alone, one package at a
#                      time (they measure latency, memory and throughput against their own baselines)
#   test.sh --all      both, one after the other, summed in one line (what CI runs)
set -uo pipefail
cd "$(dirname "$0")/../.."
# turbo and jest from the workspace, also when this script is run without pnpm.
export PATH="$PWD/node_modules/.bin:$PATH"

mode="${1:---tests}"
case "$mode" in
  --tests) sets=tests ;;
  --hostile) sets=hostile ;;
  --all) sets=tests,hostile ;;
  *) echo "usage: test.sh [--hostile|--all]" >&2; exit 2 ;;
esac

bash tooling/scripts/setup-services.sh
status=0
if [[ ",$sets," == *",tests,"* ]]; then
  # Results of an earlier run must not stand in for a package whose tests did not run this time.
  rm -f packages/*/test-output/jest-results.json apps/*/test-output/jest-results.json \
    bench/test-output/jest-results.json tooling/test-output/jest-results.json
  # Two packages at a time: each package's jest runs its files in band (one process), so two of
  # them use both cores of a 2-core machine. The suites measure nothing against a fixed clock.
  turbo run test --concurrency=2 --continue || status=1
fi
if [[ ",$sets," == *",hostile,"* ]]; then
  rm -f packages/*/test-output/jest-hostile.json apps/*/test-output/jest-hostile.json
  # One package at a time: a flood of connections should not share the machine with another suite.
  turbo run test:hostile --concurrency=1 --continue || status=1
fi
node tooling/scripts/summarize-tests.mjs "$PWD" --sets="$sets"
summary=$?
[ $status -eq 0 ] && [ $summary -eq 0 ]
