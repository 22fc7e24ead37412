/**
 * `check` results of many violations or many sessions, judged by `checkGroups` from real report documents:
 * the Markdown tests use them small (`test/app/report-formats/markdown.test.ts`) and at full size
 * (`test/scale/report-formats-markdown.test.ts`); and two trial runs with rate gates judged (the HTML page's
 * banner and gate table, `test/app/report-formats/overall.test.ts` and the browser test).
 */
import { withRateGates, type CheckResult, type GatedVerdict } from '../../src/app/check/check-model.js';
import { checkGroups } from '../../src/app/check/check.js';
import { judgeRateGates, type RateGate } from '../../src/app/check/rate-gates.js';
import { parseReportDocument } from '../../src/adapters/files/report-files/report-schemas.js';
import { parseTrialRunDocument } from '../../src/adapters/schemas/trial-run.schema.js';
import type { RunFacts } from '../../src/domain/trial/run-facts.js';
import { summariseRuns } from '../../src/domain/trial/trial-summary.js';
import { documentOf, F } from './report-docs.js';
import { times } from './run-facts.js';
import { runFile } from './trial-run-fixtures.js';
import { DEFAULT_TOOLS, Driver } from './session-driver.js';

const OPTIONS = { failOn: new Set(['FAIL', 'NOT_TESTED'] as const), minScore: null };

/** One F1 session that sent each of `duplicates` bookings twice: that many violations. */
export function naiveWith(duplicates: number): CheckResult {
  const d = new Driver(F('F1'), DEFAULT_TOOLS);
  for (let i = 0; i < duplicates; i++) {
    d.call('create_booking', { id: i, note: 'n'.repeat(200) });
    d.call('create_booking', { id: i, note: 'n'.repeat(200) });
  }
  const path = '/reports/naive.json';
  const document = parseReportDocument(JSON.parse(documentOf(d, 'finished')));
  return checkGroups([{ path, reader: 'file', items: [{ type: 'report', path, document }] }], OPTIONS);
}

/** A report folder of `sessions` failing F1 sessions (`session-0.json`, …). */
export function manyNaive(sessions: number): CheckResult {
  const d = new Driver(F('F1'), DEFAULT_TOOLS);
  d.call('create_booking', { id: 1 });
  d.call('create_booking', { id: 1 });
  const document = parseReportDocument(JSON.parse(documentOf(d, 'finished')));
  const items = Array.from({ length: sessions }, (_, i) => ({
    type: 'report' as const,
    path: `/reports/a-rather-long-folder-name/session-${i}.json`,
    document,
  }));
  return checkGroups([{ path: '/reports', reader: 'report folder', items }], OPTIONS);
}

/**
 * `check` of two trial runs (both FAIL: duplicates) with `gates` judged on the point estimate of 20 runs of
 * F1, 3 of them duplicated (PASS rate 17/20, duplicate rate 3/20), as `check --min-pass-rate …` does.
 */
export function gatedTrial(gates: readonly RateGate[], failOn: ReadonlySet<GatedVerdict>): CheckResult {
  const items = (['model-and-user-duplicates', 'runtime-duplicate'] as const).map((name) => {
    const run = parseTrialRunDocument(runFile(name));
    return { type: 'trial-run' as const, path: `trial/runs/${run.runId}/run.json`, run };
  });
  const result = checkGroups([{ path: 'trial', reader: 'trial folder', items }], { failOn, minScore: null });
  const duplicated: Partial<RunFacts> = { verdict: 'FAIL', reason: 'DUPLICATE_EXECUTION', duplicatedOperations: 1 };
  const summary = summariseRuns([...times(3, duplicated), ...times(17, {})]);
  return withRateGates(result, judgeRateGates(summary, gates, 'point'));
}
