#!/bin/sh
# The harness in CI, in two steps (both CI examples run this script; so does the test that checks them):
#   1. an agent (here the scripted one; put your own agent here) talks to the chaos proxy, which sits in
#      front of the bundled booking server, injects the scenario's fault and writes its report file;
#   2. `check` turns the report into the exit code (0 PASS, 2 FAIL, 3 NOT_TESTED, 1 harness error) and
#      writes JUnit for the CI's test view, a Markdown summary (and $GITHUB_STEP_SUMMARY) and an HTML report.
# Settings: HARNESS_SCENARIO (default F1), HARNESS_AGENT (careful | naive, default careful),
# HARNESS_OUT (default out). Run from the repository root after `npm ci && npm run build`.
set -eu
scenario="${HARNESS_SCENARIO:-F1}"
agent="${HARNESS_AGENT:-careful}"
out="${HARNESS_OUT:-out}"
mkdir -p "$out"
rm -f "$out/harness-report.json"

BOOKING_LEDGER="$out/booking-ledger.jsonl" node dist/examples/ci/scripted-agent.js --agent "$agent" -- \
  node dist/src/cli/bin.js proxy \
    --upstream-command node --upstream-arg dist/examples/booking-server/server.js \
    --scenario "$scenario" --audit-tools off --report-file "$out/harness-report.json"

exec node dist/src/cli/bin.js check "$out/harness-report.json" \
  --junit "$out/junit.xml" --markdown "$out/summary.md" --html "$out/report.html"
