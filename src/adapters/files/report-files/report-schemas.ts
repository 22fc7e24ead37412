/**
 * The readers `check` and `stats` use for the harness's files: each is the parse function of that file's
 * schema in `src/adapters/schemas/` (one module per file format).
 */
export { parseReportDocument } from '../../schemas/report.schema.js';
export { parseBenchmarkDocument } from '../../schemas/benchmark-report.schema.js';
export { parseProbeResultsDocument } from '../../schemas/probe-results.schema.js';
export { normaliseTrialRunFile, parseTrialRunDocument } from '../../schemas/trial-run.schema.js';
export { normaliseTrialSummaryFile } from '../../schemas/trial-summary.schema.js';
