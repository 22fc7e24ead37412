/**
 * The HTML timeline at size ("even at the edges"): a runaway agent that re-sends one
 * write 200,000 times must still get its HTML report — the first rows drawn, the rest counted — instead of
 * "Maximum call stack size exceeded", and a report's attempt count cannot make the builder allocate
 * without bound.
 */
import { describe, expect, it } from 'vitest';
import { parseReportDocument } from '../../../src/adapters/files/report-files/report-schemas.js';
import { checkGroups } from '../../../src/app/check/check.js';
import { buildHtml } from '../../../src/app/report-formats/html.js';
import { TIMELINE_MAX_ROWS, timelineFromReport } from '../../../src/app/report-formats/timeline.js';
import type { SessionReportDocument } from '../../../src/ports/shapes/report-documents.js';
import { documentOf, naiveF1 } from '../../support/report-docs.js';
import { Driver } from '../../support/session-driver.js';

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

describe('HTML timeline of a re-send beside a late write (F6, R-16.1)', () => {
  const booking = { guest: 'Ada', date: '2026-11-03' };
  /** F6: the late write is told its time-out at once; a re-send executes first; the late one lands after it (or the upstream dies first). */
  function besideLate(lateLands: boolean): SessionReportDocument {
    const d = new Driver({ mode: 'scenario', id: 'F6', parameters: { landAfterMs: 5000 } });
    const late = d.session.receive('create_booking', booking);
    late.delivered();
    d.wait(1000);
    const resend = d.session.receive('create_booking', booking);
    resend.forwarded();
    resend.answered({ kind: 'executed', answer: { content: [] } });
    resend.delivered();
    d.wait(4000);
    late.forwarded();
    late.answered(lateLands ? { kind: 'executed', answer: { content: [] } } : { kind: 'unknown', reason: 'connection-lost' });
    d.session.finish();
    return parseReportDocument(JSON.parse(documentOf(d))) as SessionReportDocument;
  }

  it('R-16.1: from the report alone each row says which it was: the re-send beside late call #1 is execution 1, the late write execution 2', () => {
    const doc = besideLate(true);
    const rows = timelineFromReport(doc).calls.map((c) => ({
      attempt: c.attempt,
      call: c.call,
      fault: c.fault,
      upstream: c.upstream,
      late: c.landedLate !== null,
      besideLate: c.besideLate,
      execution: c.execution,
      duplicate: c.duplicate,
    }));
    expect(rows).toEqual([
      { attempt: 1, call: 1, fault: 'F6', upstream: 'executed', late: true, besideLate: null, execution: 2, duplicate: true },
      { attempt: 2, call: 2, fault: null, upstream: 'executed', late: false, besideLate: 1, execution: 1, duplicate: true },
    ]);
    const path = '/reports/f6.json';
    const html = buildHtml(
      checkGroups([{ path, reader: 'file', items: [{ type: 'report', path, document: doc }] }], {
        failOn: new Set(['FAIL', 'NOT_TESTED']),
        minScore: null,
      }),
    );
    // The duplicate badges count in landing order, not row order: the late row is the second execution.
    expect(html.match(/duplicate: execution \d of 2/g)).toEqual(['duplicate: execution 2 of 2', 'duplicate: execution 1 of 2']);
    expect(html).toContain('beside late #1');
    expect(html).toContain('sent while the late write (call #1) of this operation was still waiting to land');
    expect(html).toContain('execution 1 of this operation at the upstream, in landing order');
    expect(html).toContain('execution 2 of this operation at the upstream, in landing order');
  });

  it('R-16.1: the upstream gone before the landing: the late row is unknown, with no execution number; the re-send the only execution', () => {
    const doc = besideLate(false);
    expect(doc.report.operations).toEqual([expect.objectContaining({ executions: 1, attempts: 2 })]);
    const rows = timelineFromReport(doc).calls.map((c) => [c.attempt, c.upstream, c.besideLate, c.execution]);
    expect(rows).toEqual([
      [1, 'unknown', null, null],
      [2, 'executed', 1, 1],
    ]);
  });
});
