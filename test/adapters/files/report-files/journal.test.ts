/**
 * The journal read back for `check --html --journal`: a line whose optional
 * fields have the wrong type is a damaged line, skipped and counted like any other — never a crash of the
 * whole HTML report, never `Object.prototype` text in it.
 */
import { describe, expect, it } from 'vitest';
import { parseJournal } from '../../../../src/adapters/files/report-files/journal-reader.js';
import { journalSessions, timelineFromJournal } from '../../../../src/app/report-formats/timeline.js';
import { parseReportDocument } from '../../../../src/adapters/files/report-files/report-schemas.js';
import type { SessionReportDocument } from '../../../../src/ports/shapes/report-documents.js';
import { documentOf, naiveF1 } from '../../../support/report-docs.js';

const HEADER = { v: 1, event: 'journal', at: 0, harnessVersion: 'test', payloads: false };
const CALL = { v: 1, session: 's1', attempt: 1, tool: 'create_booking', class: 'write', operation: null, fault: null };
const lines = (...records: object[]) => `${records.map((r) => JSON.stringify(r)).join('\n')}\n`;

describe('journal reader: damaged optional fields', () => {
  it('/ R-1.3: an opened line whose report is not a string, a told or upstream of the wrong type are skipped and counted', () => {
    const contents = parseJournal(
      lines(
        HEADER,
        { v: 1, event: 'opened', at: 1, session: 's1', scenario: 'F1', report: 5 },
        { ...CALL, event: 'received', at: 2, arguments: { a: 1 } },
        { ...CALL, event: 'answered', at: 3, upstream: { executed: true } },
        { ...CALL, event: 'delivered', at: 4, told: { toString: 1 } },
        { ...CALL, event: 'delivered', at: 5, told: 'answer', replaced: 'yes' },
      ),
    );
    expect(contents.skipped).toBe(4);
    expect(contents.records.map((r) => r.event)).toEqual(['journal', 'received']);
  });

  it('/ R-1.3: a told that names an Object.prototype member reads as the word it is, not a function’s source', () => {
    const doc = parseReportDocument(JSON.parse(documentOf(naiveF1()))) as SessionReportDocument;
    const contents = parseJournal(
      lines(
        HEADER,
        { v: 1, event: 'opened', at: 1, session: 's1', scenario: 'F1' },
        { ...CALL, event: 'received', at: 2 },
        { ...CALL, event: 'delivered', at: 3, told: 'constructor' },
      ),
    );
    const timeline = timelineFromJournal(journalSessions(contents.records)[0]!, doc);
    expect(timeline.calls[0]!.agentTold).toBe('constructor');
  });
});
