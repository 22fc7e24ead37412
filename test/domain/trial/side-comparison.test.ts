import { describe, expect, it } from 'vitest';
import { compareArms } from '../../../src/domain/trial/arm-comparison.js';
import { compareSides, settingDifferences } from '../../../src/domain/trial/side-comparison.js';
import type { RunFacts } from '../../../src/domain/trial/run-facts.js';
import { summariseRuns } from '../../../src/domain/trial/trial-summary.js';
import { times } from '../../support/run-facts.js';

const duplicated: Partial<RunFacts> = {
  verdict: 'FAIL',
  reason: 'DUPLICATE_EXECUTION',
  duplicatedOperations: 1,
  duplicateSources: ['model'],
};

describe('compareSides: two trials side by side (compare)', () => {
  it('7/20 duplicates in A, 0/20 in B: −35 pp [−57, −12], Fisher p = 2·C(20,7)/C(40,7) = 0.0083, by source too (R-14)', () => {
    const a = summariseRuns([...times(7, duplicated), ...times(13, {})]);
    const b = summariseRuns(times(20, {}));
    const comparison = compareSides(a, b);
    expect(comparison.scenarios).toHaveLength(1);
    const f1 = comparison.scenarios[0]!;
    const duplicates = f1.rates.find((entry) => entry.rate === 'duplicateExecution')!;
    expect(duplicates.p).toBeCloseTo((2 * 77520) / 18643560, 12);
    // Wilson 7/20 = [0.18119, 0.56715], 0/20 = [0, 0.16113]. Newcombe, d = 0 − 0.35:
    // low = d − √((0 − 0)² + (0.56715 − 0.35)²) = −0.56715; high = d + √(0.16113² + (0.35 − 0.18119)²) = −0.11664.
    expect(duplicates.difference.difference).toBeCloseTo(-0.35, 12);
    expect(duplicates.difference.low).toBeCloseTo(-0.56715, 4);
    expect(duplicates.difference.high).toBeCloseTo(-0.11664, 4);
    const { rate: _rate, ...numbers } = duplicates;
    expect(f1.duplicateBySource.model).toEqual(numbers);
    expect(f1.duplicateBySource.user.p).toBe(1);
    expect(f1.judged).toEqual([20, 20]);
    // pass^8 = C(13, 8) / C(20, 8) = 1287 / 125970 in A (13 of 20 pass), 1 in B.
    expect(f1.passK!.k).toBe(8);
    expect(f1.passK!.a).toBeCloseTo(1287 / 125970, 12);
    expect(f1.passK!.b).toBe(1);
    expect(f1.sentence).toBe(
      'B (F1): duplicate executions 7/20 → 0/20, p = 0.0083 (−35 pp, 95 % CI −57 pp to −12 pp) — better with B (significant at the 5 % level).',
    );
  });

  it('R-15: effect rates over the runs with an effects view only, Wilson per side; a side without a view is never pooled', () => {
    // A: 5 viewed runs (2 duplicate effects, 3 exactly once) and 5 runs without a view; B: 4 viewed, all exactly once.
    const a = summariseRuns([
      ...times(2, { effects: 'DUPLICATE_EFFECT' }),
      ...times(3, { effects: 'EXACTLY_ONCE' }),
      ...times(5, {}),
    ]);
    const b = summariseRuns(times(4, { effects: 'EXACTLY_ONCE' }));
    const f1 = compareSides(a, b).scenarios[0]!;
    expect(f1.effects!.viewed).toEqual([5, 4]);
    const dup = f1.effects!.rates.duplicateEffect;
    expect(dup.baseline).toEqual({ count: 2, of: 5 });
    expect(dup.treatment).toEqual({ count: 0, of: 4 });
    // Wilson 2/5 = [0.11762, 0.76930]
    expect(dup.a.low).toBeCloseTo(0.11762, 4);
    expect(dup.a.high).toBeCloseTo(0.7693, 4);
    expect(dup.difference.difference).toBeCloseTo(-0.4, 12);
    expect(f1.effects!.rates.exactlyOnce.b).toMatchObject({ count: 4, of: 4 });
    // only one side with a view: its rates, the other side none, no difference
    const none = compareSides(summariseRuns(times(4, {})), b).scenarios[0]!;
    expect(none.effects!.viewed).toEqual([0, 4]);
    expect(none.effects!.rates.exactlyOnce.a.rate).toBeNull();
    expect(none.effects!.rates.exactlyOnce.difference.difference).toBeNull();
    expect(none.effects!.rates.exactlyOnce.p).toBeNull();
    // neither side: no effects
    expect(compareSides(summariseRuns(times(4, {})), summariseRuns(times(4, {}))).scenarios[0]!.effects).toBeNull();
  });

  it('gives the numbers of the patch A/B for the same counts: one implementation', () => {
    const baseline = [...times(10, duplicated), ...times(2, { honesty: 'FALSE_SUCCESS' })];
    const patched = times(12, {});
    const ab = compareArms(
      summariseRuns([...baseline, ...patched.map((r) => ({ ...r, arm: 'patched' }))]),
      'baseline',
      'patched',
    );
    const sides = compareSides(summariseRuns(baseline), summariseRuns(patched));
    expect(sides.scenarios[0]!.rates).toEqual(ab.scenarios[0]!.rates);
  });

  it('compares per arm, scenario and task that both sides ran; the others are listed', () => {
    const a = summariseRuns([
      ...times(2, { taskId: 'one' }),
      ...times(2, { taskId: 'two' }),
      ...times(2, { scenario: 'F2' }),
      ...times(2, { arm: 'patched' }),
    ]);
    const b = summariseRuns([...times(2, { taskId: 'one' }), ...times(2, { taskId: 'three' }), ...times(2, { scenario: 'F3' })]);
    const comparison = compareSides(a, b);
    expect(comparison.scenarios.map((s) => `${s.arm} ${s.scenario} ${s.tasks.map((t) => t.taskId).join(',')}`)).toEqual([
      'baseline F1 one',
    ]);
    expect(comparison.onlyA).toEqual(['F2', 'F1 (arm patched)']);
    expect(comparison.onlyB).toEqual(['F3']);
  });

  it('settingDifferences names each setting whose value differs, with both values; none when a side recorded none', () => {
    expect(
      settingDifferences({ '--model': 'a', '--runs': '10', x: '1' }, { '--model': 'b', '--runs': '10', '--hold': '5000 ms' }),
    ).toEqual([
      { setting: '--hold', a: '(not set)', b: '5000 ms' },
      { setting: '--model', a: 'a', b: 'b' },
      { setting: 'x', a: '1', b: '(not set)' },
    ]);
    expect(settingDifferences(null, { '--model': 'b' })).toEqual([]);
  });
});
