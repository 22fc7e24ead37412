import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { documentText, ReportWriter, serializeDocument, type DocumentMeta } from '../../src/domain/report-document.js';
import { SlotArena } from '../../src/domain/slot-arena.js';
import { Driver, type Upstream } from '../support/session-driver.js';

const meta: DocumentMeta = { kind: 'proxy', harnessVersion: 't', status: 'running', toolClassification: [] };
const decoder = new TextDecoder();

/** The document with its long lists sorted, so arena order (entries that grew move) does not matter. */
function normalised(text: string): unknown {
  const doc = JSON.parse(text) as { report: Record<string, unknown[]> };
  for (const list of ['operations', 'violations', 'observations', 'keySummary']) {
    doc.report[list] = [...doc.report[list]!].map((e) => JSON.stringify(e)).sort();
  }
  return doc;
}

describe('R-9 incremental report document', () => {
  it('SlotArena: entries that grow, shrink, move and vanish always give a valid JSON list', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 30 }), fc.option(fc.string({ maxLength: 300 }), { nil: null }))), (edits) => {
        const arena = new SlotArena<number>();
        const model = new Map<number, string>();
        for (const [key, value] of edits) {
          if (value === null) {
            arena.delete(key);
            model.delete(key);
          } else {
            arena.set(key, JSON.stringify(value));
            model.set(key, value);
          }
        }
        const list = JSON.parse(`[${decoder.decode(arena.body())}]`) as string[];
        expect([...list].sort()).toEqual([...model.values()].sort());
      }),
      { numRuns: 300 },
    );
  });

  it('R-9.1: after every call the incremental document equals a from-scratch one and parses', () => {
    const outcomes: Upstream[] = ['ok', 'ok', { ok: 'x' }, 'reject', 'timeout'];
    fc.assert(
      fc.property(
        fc.constantFrom('F1', 'F2', 'F4', 'F5'),
        fc.array(fc.tuple(fc.constantFrom('create_booking', 'search_bookings', 'sync_ledger'), fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 4 }), fc.boolean()), { maxLength: 30 }),
        (id, calls) => {
          const d = new Driver({ mode: 'scenario', id: id as 'F1', retryAfterSeconds: 1 });
          const writer = new ReportWriter(d.session);
          for (const [tool, n, outcome, keyed] of calls) {
            d.call(tool, { n, note: 'é'.repeat(n * 20), ...(keyed ? { idempotency_key: `k${n}` } : {}) }, outcomes[outcome]);
            const incremental = documentText(writer.document(meta));
            expect(normalised(incremental)).toEqual(normalised(serializeDocument(d.session, meta)));
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
