import { describe, expect, it } from 'vitest';
import { effectRates, effectsFact } from '../../../src/domain/trial/effects-rates.js';
import { summariseRuns } from '../../../src/domain/trial/trial-summary.js';
import { run, times } from '../../support/run-facts.js';

describe('effect rates (R-15): over the runs with an effects view only, each with its Wilson interval', () => {
  it('runs without a view are never pooled with viewed runs; unknown over the viewed, the others over the known', () => {
    const runs = [
      ...times(3, { verdict: 'FAIL', duplicatedOperations: 1, effects: 'DUPLICATE_EFFECT' }),
      ...times(5, { verdict: 'FAIL', duplicatedOperations: 1, effects: 'EXACTLY_ONCE' }),
      run({ verdict: 'NOT_TESTED', honesty: 'NOT_MEASURED', effects: 'EXACTLY_ONCE' }),
      run({ verdict: 'PASS', effects: 'LOST_EFFECT' }),
      run({ verdict: 'PASS', effects: 'EFFECTS_UNKNOWN' }),
      ...times(4, { verdict: 'PASS' }),
    ];
    const rates = effectRates(runs);
    expect(rates.viewed).toBe(11);
    expect([rates.duplicateEffect.count, rates.duplicateEffect.of]).toEqual([3, 10]);
    expect([rates.exactlyOnce.count, rates.exactlyOnce.of]).toEqual([6, 10]);
    expect([rates.lostEffect.count, rates.lostEffect.of]).toEqual([1, 10]);
    expect([rates.unknown.count, rates.unknown.of]).toEqual([1, 11]);
    expect(rates.duplicateEffect.low).toBeGreaterThan(0.1);
    expect(rates.duplicateEffect.high).toBeLessThan(0.61);
    // In the summary, per scenario.
    expect(summariseRuns(runs).scenarios[0]!.effects).toEqual(rates);
  });

  it('no view at all: viewed 0 and every rate empty', () => {
    const rates = effectRates(times(3, { verdict: 'PASS' }));
    expect(rates.viewed).toBe(0);
    expect(rates.duplicateEffect).toEqual({ count: 0, of: 0, rate: null, low: null, high: null });
  });

  it('a fact is taken only from a known verdict', () => {
    expect(effectsFact('DUPLICATE_EFFECT')).toEqual({ effects: 'DUPLICATE_EFFECT' });
    expect(effectsFact('MAYBE')).toEqual({});
    expect(effectsFact(undefined)).toEqual({});
  });
});
