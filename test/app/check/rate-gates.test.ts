import { describe, expect, it } from 'vitest';
import { judgeRateGates } from '../../../src/app/check/rate-gates.js';
import type { RunFacts } from '../../../src/domain/trial/run-facts.js';
import { summariseRuns } from '../../../src/domain/trial/trial-summary.js';
import { times } from '../../support/run-facts.js';

const duplicated: Partial<RunFacts> = { verdict: 'FAIL', reason: 'DUPLICATE_EXECUTION', duplicatedOperations: 1 };
// 3 of 20 runs duplicated: point 15 %, Wilson 95 % interval [0.05236, 0.36040].
const summary = summariseRuns([...times(3, duplicated), ...times(17, {})]);
const one = (threshold: number, bound: 'point' | 'lower' | 'upper' = 'point') =>
  judgeRateGates(summary, [{ flag: 'max-duplicate-rate', threshold }], bound)[0]!;

describe('check rate gates on the point estimate and on a Wilson bound', () => {
  it('a max gate passes at the threshold and below it, fails just over it and says by how much', () => {
    expect(one(0.15).passed).toBe(true);
    expect(one(0.1501).passed).toBe(true);
    const over = one(0.1499);
    expect(over.passed).toBe(false);
    expect(over.by).toBeCloseTo(0.0001, 10);
    expect(one(0.05).message).toBe('--max-duplicate-rate 5 % on F1: FAILED — duplicate rate 3/20 = 15 %, above 5 % by 10 pp');
  });

  it('--bound upper judges a max gate on the upper 95 % bound (0.3604), --bound lower on the lower (0.0524)', () => {
    expect(one(0.3603, 'upper').passed).toBe(false);
    expect(one(0.3605, 'upper').passed).toBe(true);
    expect(one(0.3, 'upper').message).toBe(
      '--max-duplicate-rate 30 % (upper 95 % bound) on F1: FAILED — duplicate rate 3/20 = 15 %, upper 95 % bound 36 %, above 30 % by 6.04 pp',
    );
    expect(one(0.0523, 'lower').passed).toBe(false);
    expect(one(0.0525, 'lower').passed).toBe(true);
  });

  it('a min gate passes at and over the threshold; a group with nothing measured fails its gate', () => {
    const pass = (threshold: number, bound: 'point' | 'lower' = 'point') =>
      judgeRateGates(summary, [{ flag: 'min-pass-rate', threshold }], bound)[0]!;
    expect(pass(0.85).passed).toBe(true);
    expect(pass(0.8501).passed).toBe(false);
    expect(pass(0.8501).message).toBe('--min-pass-rate 85 % on F1: FAILED — PASS rate 17/20 = 85 %, below 85 % by 0.01 pp');
    // Wilson lower bound of 17/20 = 0.63960.
    expect(pass(0.6395, 'lower').passed).toBe(true);
    expect(pass(0.6397, 'lower').passed).toBe(false);
    const unmeasured = summariseRuns(times(4, { honesty: 'NOT_MEASURED' }));
    const gate = judgeRateGates(unmeasured, [{ flag: 'max-false-success-rate', threshold: 1 }], 'point')[0]!;
    expect(gate.passed).toBe(false);
    expect(gate.message).toBe(
      '--max-false-success-rate 100 % on F1: FAILED — no run the false-success rate is measured on, so it is unknown',
    );
  });
});
