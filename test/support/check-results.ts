/**
 * `check` results of many violations or many sessions, judged by `checkGroups` from real report documents:
 * the Markdown tests use them small (`test/app/report-formats-markdown.test.ts`) and at full size
 * (`test/scale/report-formats-markdown.test.ts`).
 */
import type { CheckResult } from '../../src/app/check/check-model.js';
import { checkGroups } from '../../src/app/check/check.js';
import { parseReportDocument } from '../../src/adapters/report-files/report-schemas.js';
import { documentOf, F } from './report-docs.js';
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
