#!/bin/sh
# One job of a CI matrix: the i-th of n shares of one trial (`trial --shard i/n`). The n jobs together
# make exactly the runs (ids and seeds) of one unsharded trial; merge.sh merges them and gates on rates.
# Here the example agent (examples/agents/sdk-agent.mjs) plays the task with a scripted model
# (--stub-model: no model, no key) against the bundled booking server. Put your own agent program in
# --agent-command; for your real model add `--model NAME --base-url URL --api-key-env VAR` instead of
# --stub-model (docs/commands/trial.md).
# Settings: HARNESS_SHARD (i/n, required), HARNESS_OUT (default shards/shard-<i>), HARNESS_RUNS (runs per
# scenario of the whole trial, default 10), HARNESS_STUB_MODEL (default examples/stub-models/booking-careful.yaml).
# Run from the repository root after `npm ci && npm run build`.
set -eu
shard="${HARNESS_SHARD:?set HARNESS_SHARD to i/n, e.g. 1/3}"
out="${HARNESS_OUT:-shards/shard-${shard%/*}}"

exec node dist/src/cli/bin.js trial \
  --agent-command node --agent-arg examples/agents/sdk-agent.mjs \
  --stub-model "${HARNESS_STUB_MODEL:-examples/stub-models/booking-careful.yaml}" \
  --task "Book a standard room for Ann Lee on 2026-05-01." \
  --scenarios F1,F3 --runs "${HARNESS_RUNS:-10}" --seed 1 \
  --upstream-command node --upstream-arg dist/examples/booking-server/server.js \
  --upstream-env-var 'BOOKING_LEDGER={run_dir}/ledger.jsonl' \
  --shard "$shard" --out "$out"
