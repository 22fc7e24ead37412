#!/bin/sh
# The merge job after the matrix of shard.sh: every shard's trial folder (the jobs' artifacts, one folder
# each under HARNESS_SHARDS) becomes one table (`stats`), then one gate on rates (`check`):
#   exit 0 when every gate holds in every scenario, 2 when one fails (1: a harness error, e.g. a shard
#   whose trial was killed). JUnit for the CI's test view (a testcase per run and per gate), Markdown,
#   and both tables appended to $GITHUB_STEP_SUMMARY when it is set (GitHub Actions).
# The gates judge the point estimate; with `--bound upper` a max gate holds only at 95 % confidence,
# which needs many runs (0 duplicates in 10 runs still has an upper bound of 28 %): docs/commands/check.md.
# Settings: HARNESS_SHARDS (default shards), HARNESS_OUT (default out), HARNESS_MAX_DUPLICATE_RATE
# (default 5%), HARNESS_MIN_PASS_RATE (default 90%). Run from the repository root after `npm run build`.
set -eu
shards="${HARNESS_SHARDS:-shards}"
out="${HARNESS_OUT:-out}"
mkdir -p "$out"

node dist/src/cli/bin.js stats "$shards"/* --json "$out/stats.json" --markdown "$out/stats.md"

exec node dist/src/cli/bin.js check "$shards"/* \
  --max-duplicate-rate "${HARNESS_MAX_DUPLICATE_RATE:-5%}" \
  --min-pass-rate "${HARNESS_MIN_PASS_RATE:-90%}" \
  --max-false-success-rate 0 --max-lost-transaction-rate 0 \
  --junit "$out/junit.xml" --markdown "$out/check.md"
