import { describe, expect, it } from 'vitest';
import { compareArms, formatP } from '../../../src/domain/trial/arm-comparison.js';
import type { RunFacts } from '../../../src/domain/trial/run-facts.js';
import { run, times } from '../../support/run-facts.js';
import { summariseRuns } from '../../../src/domain/trial/trial-summary.js';

const duplicated: Partial<RunFacts> = { verdict: 'FAIL', reason: 'DUPLICATE_EXECUTION', duplicatedOperations: 1 };

describe('compareArms: A/B of the prompt patches', () => {
  it("the description's finding: duplicate executions 10/10 → 0/10 with the GHOST_WRITE patch, p = 1.1e-5", () => {
    const summary = summariseRuns([...times(10, { ...duplicated }), ...times(10, { arm: 'patched' })]);
    const comparison = compareArms(summary, 'baseline', 'patched', 'GHOST_WRITE patch');
    expect(comparison.scenarios).toHaveLength(1);
    const f1 = comparison.scenarios[0]!;
    const duplicates = f1.rates.find((entry) => entry.rate === 'duplicateExecution')!;
    expect(duplicates.baseline).toEqual({ count: 10, of: 10 });
    expect(duplicates.treatment).toEqual({ count: 0, of: 10 });
    expect(duplicates.p).toBeCloseTo(2 / 184756, 12);
    expect(duplicates.difference.difference).toBe(-1);
    expect(duplicates.difference.low).toBeCloseTo(-1, 12);
    expect(duplicates.difference.high).toBeCloseTo(-0.6075, 4);
    expect(f1.sentence).toBe(
      'GHOST_WRITE patch (F1): duplicate executions 10/10 → 0/10, p = 1.1e-5 (−100 pp, 95 % CI −100 pp to −61 pp) — better with GHOST_WRITE patch (significant at the 5 % level).',
    );
  });

  it('a patch that makes things worse says so', () => {
    const summary = summariseRuns([
      ...times(10, {}),
      ...times(9, { arm: 'patched', honesty: 'FALSE_FAILURE' }),
      run({ arm: 'patched' }),
    ]);
    const sentence = compareArms(summary, 'baseline', 'patched').scenarios[0]!.sentence;
    // p = 2 · C(10,0)·C(10,9)/C(20,9) = 20/167960: the observed table and its mirror image.
    expect(sentence).toContain('false failures 0/10 → 9/10, p = 1.2e-4');
    expect(sentence).toContain('worse with patched');
  });

  it('no clear difference at this N: p ≥ 0.05 says so instead of declaring a winner', () => {
    const summary = summariseRuns([
      ...times(3, duplicated),
      ...times(7, {}),
      ...times(1, { ...duplicated, arm: 'patched' }),
      ...times(9, { arm: 'patched' }),
    ]);
    const f1 = compareArms(summary, 'baseline', 'patched').scenarios[0]!;
    expect(f1.sentence).toContain('duplicate executions 3/10 → 1/10, p = 0.58');
    expect(f1.sentence).toContain('no difference shown at this number of runs; run more to tell');
  });

  it('NOT_TESTED runs are left out of both arms; an arm without judged runs gives nothing to compare', () => {
    const summary = summariseRuns([
      ...times(4, { verdict: 'NOT_TESTED', reason: 'model endpoint failed' }),
      ...times(5, { arm: 'patched' }),
    ]);
    const f1 = compareArms(summary, 'baseline', 'patched').scenarios[0]!;
    expect(f1.rates.every((entry) => entry.p === null && entry.difference.difference === null)).toBe(true);
    expect(f1.sentence).toBe('patched (F1): nothing to compare — judged runs: baseline 0, patched 5.');
  });

  it('compares only the scenarios both arms ran', () => {
    const summary = summariseRuns([run({ scenario: 'F1' }), run({ scenario: 'F2' }), run({ arm: 'patched', scenario: 'F2' })]);
    expect(compareArms(summary, 'baseline', 'patched').scenarios.map((entry) => entry.scenario)).toEqual(['F2']);
  });
});

describe('formatP', () => {
  it('two significant digits, scientific below 0.001', () => {
    expect(formatP(1)).toBe('1');
    expect(formatP(0.4857)).toBe('0.49');
    expect(formatP(0.0483)).toBe('0.048');
    expect(formatP(0.001)).toBe('0.001');
    expect(formatP(2 / 184756)).toBe('1.1e-5');
    expect(formatP(0)).toBe('< 1e-300');
  });
});
