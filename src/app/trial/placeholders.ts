/**
 * Per-run values in the upstream's and the agent program's arguments, environment and working folder:
 * `{run}` (the run id, e.g. `F1-003`) and `{run_dir}` (the run's own folder, absolute). So an upstream
 * can keep a fresh ledger per run: `--upstream-env-var BOOKING_LEDGER={run_dir}/ledger.jsonl`.
 */
export interface RunPlace {
  id: string;
  dir: string;
}

export function expandPlaceholders(text: string, run: RunPlace): string {
  return text.replaceAll('{run}', run.id).replaceAll('{run_dir}', run.dir);
}

export function expandAll(values: readonly string[], run: RunPlace): string[] {
  return values.map((v) => expandPlaceholders(v, run));
}

export function expandEnv(env: Readonly<Record<string, string>>, run: RunPlace): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) out[key] = expandPlaceholders(value, run);
  return out;
}

/** The variables every upstream and agent program of a run gets, besides its own. */
export function runEnv(run: RunPlace, scenarioLabel: string): Record<string, string> {
  return { CUONZTECH_RUN_ID: run.id, CUONZTECH_RUN_DIR: run.dir, CUONZTECH_SCENARIO: scenarioLabel };
}
