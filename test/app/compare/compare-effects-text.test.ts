/**
 * R-15 in `compare`: the effect rates of each side, over its runs with an effects view only, with the
 * 95 % Wilson interval; a side without a view shows none (never pooled with the viewed side).
 */
import { describe, expect, it } from 'vitest';
import { formatCompareMarkdown, formatCompareText } from '../../../src/app/compare/compare-text.js';
import { compareOf, side } from '../../support/compare-results.js';
import { times } from '../../support/run-facts.js';

describe('compare: effect rates (R-15)', () => {
  it('each side over its viewed runs with a Wilson interval, B − A where both viewed', () => {
    const a = side(
      [...times(2, { effects: 'DUPLICATE_EFFECT' }), ...times(3, { effects: 'EXACTLY_ONCE' }), ...times(5, {})],
      'a',
    );
    const b = side(times(4, { effects: 'EXACTLY_ONCE' }), 'b');
    const text = formatCompareText(compareOf(a, b));
    const line = (title: string) => text.split('\n').find((l) => l.includes(title))!;
    expect(line('runs with an effects view')).toMatch(/runs with an effects view\s+5\s+4/);
    // Wilson 2/5 = [12 %, 77 %]; 0/4 = [0 %, 49 %]
    expect(line('duplicate effects')).toContain('2/5 (40 %; 12–77 %)');
    expect(line('duplicate effects')).toContain('0/4 (0 %; 0–49 %)');
    expect(line('duplicate effects')).toContain('−40 pp');
    expect(line('exactly once (effects)')).toContain('3/5 (60 %; 23–88 %)');
    expect(text).toContain('effect rates: each side over its runs with an effects view only');
    expect(formatCompareMarkdown(compareOf(a, b))).toContain('| duplicate effects | 2/5 (40 %; 12–77 %) |');
  });

  it('a side without an effects view: its cells are —, no difference; neither side: no effect rows', () => {
    const text = formatCompareText(compareOf(side(times(4, {}), 'a'), side(times(4, { effects: 'LOST_EFFECT' }), 'b')));
    const lost = text.split('\n').find((l) => l.includes('lost effects'))!;
    expect(lost).toMatch(/lost effects\s+—\s+4\/4 \(100 %; 51–100 %\)\s+—\s+—/);
    const plain = formatCompareText(compareOf(side(times(4, {}), 'a'), side(times(4, {}), 'b')));
    expect(plain).not.toContain('effects');
  });
});
