/**
 * Known values of the issue-14 statistics. Where a value is computed by hand, the comment shows the
 * arithmetic (z = 1.959963985, z² = 3.841458821).
 */
import { describe, expect, it } from 'vitest';
import {
  differenceOfProportions,
  fisherExactTwoSided,
  logChoose,
  logFactorial,
  passHatK,
  passKCurve,
  proportion,
  wilsonInterval,
} from '../../../src/domain/statistics/index.js';

describe('Wilson 95 % interval', () => {
  it('0/10 is [0, 0.2775]: the upper bound is z²/(n + z²) = 3.841459/13.841459', () => {
    const { low, high } = wilsonInterval(0, 10);
    expect(low).toBe(0);
    expect(high).toBeCloseTo(0.2775, 4);
  });

  it('5/10 is [0.2366, 0.7634]: 0.5 ± (z/2)/√(n + z²) = 0.5 ± 0.979982/3.720411 (R: binom.wilson(5, 10))', () => {
    const { low, high } = wilsonInterval(5, 10);
    expect(low).toBeCloseTo(0.2366, 4);
    expect(high).toBeCloseTo(0.7634, 4);
  });

  it('10/10 is [0.7225, 1]: the lower bound is n/(n + z²) = 10/13.841459', () => {
    const { low, high } = wilsonInterval(10, 10);
    expect(low).toBeCloseTo(0.7225, 4);
    expect(high).toBe(1);
  });

  it('matches Newcombe (1998, Stat Med 17:857, table II, method 3) for 81/263: [0.2553, 0.3662]', () => {
    const { low, high } = wilsonInterval(81, 263);
    expect(low).toBeCloseTo(0.2553, 4);
    expect(high).toBeCloseTo(0.3662, 4);
  });

  it('a proportion of nothing is null, never a made-up 0 %', () => {
    expect(proportion(0, 0)).toEqual({ count: 0, of: 0, rate: null, low: null, high: null });
    expect(proportion(3, 4)).toMatchObject({ count: 3, of: 4, rate: 0.75 });
  });

  it('refuses impossible tallies', () => {
    expect(() => proportion(5, 4)).toThrow(RangeError);
    expect(() => proportion(-1, 4)).toThrow(RangeError);
    expect(() => proportion(1.5, 4)).toThrow(RangeError);
    expect(() => wilsonInterval(0, 0)).toThrow(RangeError);
  });
});

describe("Fisher's exact test, two-sided", () => {
  it('10/10 against 0/10 gives p = 2/C(20, 10) = 2/184756 = 1.08e-5', () => {
    expect(fisherExactTwoSided({ count: 10, of: 10 }, { count: 0, of: 10 })).toBeCloseTo(2 / 184756, 12);
    expect(fisherExactTwoSided({ count: 10, of: 10 }, { count: 0, of: 10 }).toExponential(2)).toBe('1.08e-5');
  });

  it('the lady tasting tea, 3/4 against 1/4, gives 0.4857 (R: fisher.test(matrix(c(3,1,1,3), 2)))', () => {
    expect(fisherExactTwoSided({ count: 3, of: 4 }, { count: 1, of: 4 })).toBeCloseTo(34 / 70, 12);
  });

  it('equal arms give p = 1, and an empty arm gives p = 1 (nothing to compare)', () => {
    expect(fisherExactTwoSided({ count: 5, of: 10 }, { count: 5, of: 10 })).toBeCloseTo(1, 12);
    expect(fisherExactTwoSided({ count: 0, of: 0 }, { count: 4, of: 10 })).toBe(1);
  });

  it('stays finite and in [0, 1] with thousands of runs per arm', () => {
    const close = fisherExactTwoSided({ count: 1520, of: 3000 }, { count: 1480, of: 3000 });
    expect(close).toBeGreaterThan(0.25);
    expect(close).toBeLessThan(0.35);
    const far = fisherExactTwoSided({ count: 1800, of: 3000 }, { count: 1200, of: 3000 });
    expect(far).toBeGreaterThanOrEqual(0);
    expect(far).toBeLessThan(1e-40);
    expect(fisherExactTwoSided({ count: 1500, of: 3000 }, { count: 1500, of: 3000 })).toBeCloseTo(1, 9);
  });
});

describe('log-factorials', () => {
  it('agree with the exact factorials where those are still exact', () => {
    let factorial = 1;
    for (let n = 0; n <= 25; n++) {
      if (n > 0) factorial *= n;
      expect(logFactorial(n)).toBeCloseTo(Math.log(factorial), 10);
    }
    expect(logChoose(20, 10)).toBeCloseTo(Math.log(184756), 12);
    expect(logChoose(5, 6)).toBe(-Infinity);
  });

  it('agree with summed logarithms from 20 (where the series takes over) to 3000 (relative 1e-13)', () => {
    let sum = 0;
    for (let n = 2; n <= 3000; n++) {
      sum += Math.log(n);
      if (n >= 19) expect(Math.abs(logFactorial(n) - sum) / sum, `ln ${n}!`).toBeLessThan(1e-13);
    }
  });
});

describe('difference of proportions, Newcombe hybrid score (method 10)', () => {
  // Newcombe RG (1998), Interval estimation for the difference between independent proportions:
  // comparison of eleven methods. Stat Med 17:873–890, table II, method 10. Arm 1 − arm 2 there,
  // so here B = arm 1 and A = arm 2.
  const cases: Array<[string, number, number, number, number, number, number]> = [
    ['56/70 − 48/80', 56, 70, 48, 80, 0.0524, 0.3339],
    ['9/10 − 3/10', 9, 10, 3, 10, 0.1705, 0.809],
    ['6/7 − 2/7', 6, 7, 2, 7, 0.0582, 0.8062],
    ['5/56 − 0/29', 5, 56, 0, 29, -0.0381, 0.1926],
    ['0/10 − 0/20', 0, 10, 0, 20, -0.1611, 0.2775],
    ['0/10 − 0/10', 0, 10, 0, 10, -0.2775, 0.2775],
    ['10/10 − 0/20', 10, 10, 0, 20, 0.6791, 1],
    ['10/10 − 0/10', 10, 10, 0, 10, 0.6075, 1],
  ];
  for (const [name, b, bOf, a, aOf, low, high] of cases) {
    it(`${name}: [${low}, ${high}]`, () => {
      const result = differenceOfProportions({ count: a, of: aOf }, { count: b, of: bOf });
      expect(result.difference).toBeCloseTo(b / bOf - a / aOf, 12);
      expect(result.low).toBeCloseTo(low, 4);
      expect(result.high).toBeCloseTo(high, 4);
    });
  }

  it('is null when an arm has no runs', () => {
    expect(differenceOfProportions({ count: 0, of: 0 }, { count: 3, of: 5 })).toEqual({
      difference: null,
      low: null,
      high: null,
    });
  });
});

describe('pass^k (τ-bench)', () => {
  it('C(c, k)/C(n, k) on small tables', () => {
    expect(passHatK(3, 4, 1)).toBeCloseTo(3 / 4, 12);
    expect(passHatK(3, 4, 2)).toBeCloseTo(3 / 6, 12); // C(3,2)/C(4,2)
    expect(passHatK(3, 4, 3)).toBeCloseTo(1 / 4, 12); // C(3,3)/C(4,3)
    expect(passHatK(3, 4, 4)).toBe(0);
    expect(passHatK(10, 10, 8)).toBe(1);
    expect(passHatK(0, 5, 1)).toBe(0);
  });

  it('averages over tasks, up to k = min(smallest task, 8), ignoring tasks without judged runs', () => {
    const curve = passKCurve([
      { runs: 4, passed: 3 },
      { runs: 3, passed: 3 },
      { runs: 0, passed: 0 },
    ]);
    expect(curve.map((point) => point.k)).toEqual([1, 2, 3]);
    expect(curve[0]?.value).toBeCloseTo((3 / 4 + 1) / 2, 12);
    expect(curve[1]?.value).toBeCloseTo((1 / 2 + 1) / 2, 12);
    expect(curve[2]?.value).toBeCloseTo((1 / 4 + 1) / 2, 12);
    expect(passKCurve([{ runs: 20, passed: 20 }]).map((point) => point.k)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(passKCurve([])).toEqual([]);
  });

  it('refuses k outside 1 … n', () => {
    expect(() => passHatK(2, 3, 0)).toThrow(RangeError);
    expect(() => passHatK(2, 3, 4)).toThrow(RangeError);
  });
});
