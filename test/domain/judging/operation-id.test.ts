/**
 * The operation number: every write's decision names its operation, numbered from 1 in
 * order of first arrival, and the report's `operations[].id` is that number — also in the incremental
 * report file, whose list order may change when an entry outgrows its slot. The journal's `operation`
 * is this number, so a journal and a report can be matched one for one.
 */
import { describe, expect, it } from 'vitest';
import { ReportWriter } from '../../../src/domain/report/report-document.js';
import { Driver } from '../../support/session-driver.js';

describe('operation numbers', () => {
  it('R-1.1: writes get the number of their operation (1-based, first arrival); reads and unclassified calls none', () => {
    const d = new Driver();
    const ops = [
      d.call('create_booking', { guest: 'a' }),
      d.call('search_bookings', {}),
      d.call('create_booking', { guest: 'b' }),
      d.call('create_booking', { guest: 'a', idempotency_key: 'k' }),
      d.call('sync_ledger', {}),
      d.call('pay_invoice', { n: 1 }),
    ].map((h) => h.decision.operation);
    expect(ops).toEqual([1, null, 2, 1, null, 3]);
    expect(d.report().operations.map((o) => (o as { id: number }).id)).toEqual([1, 2, 3]);
  });

  it('R-9.1: in the incremental report file every entry keeps its id and its place in the list, even one that grew', () => {
    const d = new Driver();
    const writer = new ReportWriter(d.session);
    const text = () =>
      (
        writer.document({ kind: 'proxy', harnessVersion: 't', status: 'running', toolClassification: [] }) as Array<
          string | Uint8Array
        >
      )
        .map((p) => (typeof p === 'string' ? p : new TextDecoder().decode(p)))
        .join('');
    for (let i = 0; i < 5; i++) d.call('create_booking', { guest: `g${i}` });
    text();
    // The first operation's entry grows (new keys) beyond its slot: it stays first.
    for (let k = 0; k < 20; k++) d.call('create_booking', { guest: 'g0', idempotency_key: `a-long-key-${k}` });
    const operations = (
      JSON.parse(text()) as { report: { operations: Array<{ id: number; arguments: string; attempts: number }> } }
    ).report.operations;
    expect(operations.map((o) => o.id)).toEqual([1, 2, 3, 4, 5]);
    const byId = new Map(operations.map((o) => [o.id, o]));
    expect([...byId.keys()].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5]);
    expect(byId.get(1)).toMatchObject({ arguments: '{"guest":"g0"}', attempts: 21 });
    expect(byId.get(4)).toMatchObject({ arguments: '{"guest":"g3"}', attempts: 1 });
  });
});
