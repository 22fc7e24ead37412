/**
 * The `schemaVersion` every JSON file of the harness carries (the journal's lines carry theirs as `v`,
 * see `JOURNAL_VERSION`). A version changes only when a field is renamed, removed or changes meaning;
 * an added field keeps it. The schemas of the files are the adapters' (`src/adapters/schemas/`, one module
 * per file, generated into `docs/schemas/`); the fields are described in `docs/formats.md`.
 */

/** The proxy's report file (`--report`, a `--report-dir` session file, a trial run's `report.json`). */
export const REPORT_SCHEMA_VERSION = 1;
/** A trial run file, `runs/<run>/run.json`. */
export const TRIAL_RUN_SCHEMA_VERSION = 1;
/** A trial's `summary.json`. */
export const TRIAL_SUMMARY_SCHEMA_VERSION = 1;
/** `.cuonztech/benchmark-report.json`. */
export const BENCHMARK_REPORT_SCHEMA_VERSION = 1;
/** The JSON `stats --json` prints. */
export const STATS_OUTPUT_SCHEMA_VERSION = 1;
/** The results `probe --json` writes (fields in docs/probe.md; no reader and no JSON Schema yet). */
export const PROBE_RESULTS_SCHEMA_VERSION = 1;
/** The JSON `compare --json` writes. */
export const COMPARE_OUTPUT_SCHEMA_VERSION = 1;
