import { describe, expect, it } from 'vitest';
import { Driver } from '../../support/session-driver.js';

const booking = { guest: 'Ada', date: '2026-11-03', amount: 129 };
/** Other forms of the booking: notation only (R-6 would call them near-duplicates after a timeout), and a real change. */
const otherForms = [
  { ...booking, amount: '129.00' },
  { ...booking, guest: 'ADA ' },
  { ...booking, date: '03.11.2026' },
];

/** The observation types after an isError answer to the booking and then `next`. */
function afterRejection(next: Record<string, unknown>): { verdict: string; types: string[] } {
  const d = new Driver();
  d.call('create_booking', booking, 'reject');
  d.call('create_booking', next);
  return { verdict: d.verdict, types: d.report().observations.map((o) => o.type) };
}

describe('R-6.1: an attempt the upstream answered with isError is uncertain too', () => {
  it('R-6.1: the same operation re-sent after an isError answer → NOT_TESTED (R-2.3)', () => {
    expect(afterRejection({ ...booking }).verdict).toBe('NOT_TESTED');
  });

  it('R-6.1: the same tool in any other form afterwards — a notation-only change included — stays PASS, never POSSIBLE_DUPLICATE_DIFFERENT_ARGUMENTS', () => {
    for (const changed of otherForms) {
      const { verdict, types } = afterRejection(changed);
      expect(verdict, JSON.stringify(changed)).toBe('PASS');
      expect(types).not.toContain('POSSIBLE_DUPLICATE_DIFFERENT_ARGUMENTS');
    }
  });

  it('R-6.1: … and adds OTHER_WRITE_AFTER_UNCERTAIN_ATTEMPT', () => {
    for (const changed of otherForms) expect(afterRejection(changed).types).toContain('OTHER_WRITE_AFTER_UNCERTAIN_ATTEMPT');
  });
});
