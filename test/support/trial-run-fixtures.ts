/**
 * Run files of agent programs behind the model gateway, as `trial` wrote them (in
 * `test/fixtures/trial-runs/`, paths made relative): `runtime-duplicate` — the careful stub script and a
 * program whose runtime carries out each tool call twice (`e2e/fixtures/trial-agents/
 * double-dispatch-agent.mjs`, no scenario); `model-and-user-duplicates` — the naive script under F1 with
 * the follow-up "Please try again." (one re-booking the model's, one after the user's turn). The first was
 * written before MCP calls recorded their fault and results what the upstream did; the second records both.
 * `built-in-loop` — `trial --model` (the scripted `try-again` persona, test/fixtures/model-server) under F1
 * with the same follow-up: the harness's own loop, whose transcript has no MCP calls and no attribution.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseTrialRunDocument } from '../../src/adapters/schemas/trial-run.schema.js';
import type { CheckOptions, CheckResult } from '../../src/app/check/check-model.js';
import { checkGroups } from '../../src/app/check/check.js';

export type RunFixture = 'runtime-duplicate' | 'model-and-user-duplicates' | 'built-in-loop';

const FOLDER = fileURLToPath(new URL('../fixtures/trial-runs/', import.meta.url));

/** A fresh copy of a fixture run file (JSON). */
export function runFile(name: RunFixture): Record<string, unknown> {
  return JSON.parse(readFileSync(join(FOLDER, `${name}.run.json`), 'utf8')) as Record<string, unknown>;
}

/** The run file's transcript entries (a copy). */
export const transcriptOf = (file: Record<string, unknown>): Array<Record<string, unknown>> =>
  file['transcript'] as Array<Record<string, unknown>>;

const DEFAULT: CheckOptions = { failOn: new Set(['FAIL', 'NOT_TESTED']), minScore: null };

/** `check` of run files as one trial folder `trial` would give them (one suite per scenario). */
export function checkRunFiles(files: ReadonlyArray<Record<string, unknown>>): CheckResult {
  const items = files.map((file) => {
    const run = parseTrialRunDocument(file);
    return { type: 'trial-run' as const, path: `trial/runs/${run.runId}/run.json`, run };
  });
  return checkGroups([{ path: 'trial', reader: 'trial folder', items }], DEFAULT);
}
