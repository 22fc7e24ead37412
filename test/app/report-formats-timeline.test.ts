/**
 * The HTML timeline at size ("even at the edges"): a runaway agent that re-sends one
 * write 200,000 times must still get its HTML report — the first rows drawn, the rest counted — instead of
 * "Maximum call stack size exceeded", and a report's attempt count cannot make the builder allocate
 * without bound.
 */
import { describe, expect, it } from 'vitest';
import { parseReportDocument } from '../../src/adapters/report-files/report-schemas.js';
import { checkGroups } from '../../src/app/check/check.js';
import { buildHtml } from '../../src/app/report-formats/html.js';
import { TIMELINE_MAX_ROWS, timelineFromReport } from '../../src/app/report-formats/timeline.js';
import type { SessionReportDocument } from '../../src/ports/report-documents.js';
import { documentOf, naiveF1 } from '../support/report-docs.js';
import { Driver } from '../support/session-driver.js';

function naiveWithAttempts(attempts: number): SessionReportDocument {
  const value = JSON.parse(documentOf(naiveF1())) as {
    report: { operations: { attempts: number }[]; coverage: { calls: { write: number } } };
  };
  value.report.operations[0]!.attempts = attempts;
  value.report.coverage.calls.write = attempts;
  return parseReportDocument(value) as SessionReportDocument;
}

describe('HTML timeline: a session with very many attempts', () => {
  it('R-9.1: 200,000 attempts of one write: the HTML is built, the first rows drawn and the rest counted', () => {
    const doc = naiveWithAttempts(200_000);
    const timeline = timelineFromReport(doc);
    expect(timeline.calls.length).toBe(TIMELINE_MAX_ROWS);
    expect(timeline.omitted).toBe(200_000 - TIMELINE_MAX_ROWS);
    const path = '/reports/runaway.json';
    const result = checkGroups([{ path, reader: 'file', items: [{ type: 'report', path, document: doc }] }], {
      failOn: new Set(['FAIL', 'NOT_TESTED']),
      minScore: null,
    });
    const html = buildHtml(result);
    expect(html).toContain(`${200_000 - TIMELINE_MAX_ROWS} more row(s) are not drawn`);
    expect(html.match(/<tr class=/g)?.length).toBe(TIMELINE_MAX_ROWS);
  });

  it('R-9.1: a report claiming a billion attempts draws the same bounded number of rows', () => {
    const timeline = timelineFromReport(naiveWithAttempts(1_000_000_000));
    expect(timeline.calls.length).toBe(TIMELINE_MAX_ROWS);
    expect(timeline.omitted).toBe(1_000_000_000 - TIMELINE_MAX_ROWS);
  });
});

describe('HTML timeline of a tool annotated idempotent (R-8.3.1)', () => {
  it('R-8.3.1: the identical re-send after F1 executed twice at the upstream but is no duplicate row; with the hint ignored it is', () => {
    const rows = (honour: boolean) => {
      const d = new Driver({ mode: 'scenario', id: 'F1' }, undefined, {
        idempotentTools: honour ? ['create_booking'] : [],
      });
      d.call('create_booking', { guest: 'Ada', date: '2026-11-03' });
      d.call('create_booking', { guest: 'Ada', date: '2026-11-03' });
      const doc = parseReportDocument(JSON.parse(documentOf(d))) as SessionReportDocument;
      return timelineFromReport(doc).calls.map((call) => [call.upstream, call.duplicate]);
    };
    expect(rows(true)).toEqual([
      ['executed', false],
      ['executed', false],
    ]);
    expect(rows(false)).toEqual([
      ['executed', true],
      ['executed', true],
    ]);
  });
});
