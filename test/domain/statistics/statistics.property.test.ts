/** Property tests of the statistics: invariants, and exact references computed with BigInt. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  differenceOfProportions,
  fisherExactTwoSided,
  passHatK,
  proportion,
  wilsonInterval,
} from '../../../src/domain/statistics/index.js';
import { DEFAULT_RUNS, propertyRuns } from '../../support/property-runs.js';

/** A tally count/of with 1 ≤ of ≤ maxOf. */
const tally = (maxOf: number) =>
  fc.integer({ min: 1, max: maxOf }).chain((of) => fc.record({ count: fc.integer({ min: 0, max: of }), of: fc.constant(of) }));
const tallyOrEmpty = (maxOf: number) => fc.oneof(tally(maxOf), fc.constant({ count: 0, of: 0 }));

function choose(n: number, k: number): bigint {
  if (k < 0 || k > n) return 0n;
  let result = 1n;
  for (let i = 1; i <= k; i++) result = (result * BigInt(n - k + i)) / BigInt(i);
  return result;
}

/** Fisher's two-sided p by exact integer arithmetic: no logarithms, no tolerance for ties needed. */
function fisherReference(a: { count: number; of: number }, b: { count: number; of: number }): number {
  const s = a.count + b.count;
  const weight = (x: number) => choose(a.of, x) * choose(b.of, s - x);
  const observed = weight(a.count);
  let sum = 0n;
  for (let x = 0; x <= a.of; x++) if (weight(x) <= observed) sum += weight(x);
  const scale = 10n ** 30n;
  return Number((sum * scale) / choose(a.of + b.of, s)) / 1e30;
}

describe('Wilson interval, properties', () => {
  it('contains the point estimate and stays in [0, 1]', () => {
    fc.assert(
      fc.property(tally(5000), ({ count, of }) => {
        const { low, high } = wilsonInterval(count, of);
        expect(low).toBeGreaterThanOrEqual(0);
        expect(high).toBeLessThanOrEqual(1);
        expect(low).toBeLessThanOrEqual(count / of);
        expect(high).toBeGreaterThanOrEqual(count / of);
      }),
      DEFAULT_RUNS,
    );
  });

  it('narrows as N grows at a fixed rate', () => {
    fc.assert(
      fc.property(tally(200), fc.integer({ min: 2, max: 20 }), ({ count, of }, times) => {
        const small = wilsonInterval(count, of);
        const large = wilsonInterval(count * times, of * times);
        expect(large.high - large.low).toBeLessThan(small.high - small.low);
      }),
      DEFAULT_RUNS,
    );
  });

  it('is the mirror image for failures: [low, high] of c/n = [1 − high, 1 − low] of (n − c)/n', () => {
    fc.assert(
      fc.property(tally(1000), ({ count, of }) => {
        const direct = wilsonInterval(count, of);
        const mirrored = wilsonInterval(of - count, of);
        expect(direct.low).toBeCloseTo(1 - mirrored.high, 12);
        expect(direct.high).toBeCloseTo(1 - mirrored.low, 12);
      }),
      DEFAULT_RUNS,
    );
  });

  it('proportion() agrees with wilsonInterval()', () => {
    fc.assert(
      fc.property(tally(100), ({ count, of }) => {
        expect(proportion(count, of)).toEqual({ count, of, rate: count / of, ...wilsonInterval(count, of) });
      }),
      DEFAULT_RUNS,
    );
  });
});

describe("Fisher's exact test, properties", () => {
  it('equals the exact integer computation (arms up to 60 runs)', () => {
    fc.assert(
      fc.property(tallyOrEmpty(60), tallyOrEmpty(60), (a, b) => {
        const p = fisherExactTwoSided(a, b);
        const reference = fisherReference(a, b);
        expect(Math.abs(p - reference)).toBeLessThanOrEqual(1e-9 * Math.max(reference, 1e-12));
      }),
      DEFAULT_RUNS,
    );
  });

  it('is in [0, 1] and symmetric in the arms and in success/failure (arms up to 3000 runs)', () => {
    fc.assert(
      fc.property(tally(3000), tally(3000), (a, b) => {
        const p = fisherExactTwoSided(a, b);
        expect(p).toBeGreaterThanOrEqual(0);
        expect(p).toBeLessThanOrEqual(1);
        const swapped = fisherExactTwoSided(b, a);
        const flipped = fisherExactTwoSided({ count: a.of - a.count, of: a.of }, { count: b.of - b.count, of: b.of });
        for (const other of [swapped, flipped]) expect(Math.abs(other - p)).toBeLessThanOrEqual(1e-9 * Math.max(p, 1e-300));
      }),
      { numRuns: propertyRuns(60) },
    );
  });
});

describe('difference of proportions, properties', () => {
  it('contains the difference, stays in [−1, 1] and mirrors when the arms swap', () => {
    fc.assert(
      fc.property(tally(2000), tally(2000), (a, b) => {
        const forward = differenceOfProportions(a, b);
        const difference = b.count / b.of - a.count / a.of;
        expect(forward.difference).toBeCloseTo(difference, 12);
        expect(forward.low!).toBeGreaterThanOrEqual(-1);
        expect(forward.high!).toBeLessThanOrEqual(1);
        expect(forward.low!).toBeLessThanOrEqual(difference + 1e-12);
        expect(forward.high!).toBeGreaterThanOrEqual(difference - 1e-12);
        const backward = differenceOfProportions(b, a);
        expect(backward.low!).toBeCloseTo(-forward.high!, 12);
        expect(backward.high!).toBeCloseTo(-forward.low!, 12);
      }),
      DEFAULT_RUNS,
    );
  });
});

describe('pass^k, checked by enumeration', () => {
  /** Every k-subset of the runs; the share in which all passed. */
  function enumerate(runs: boolean[], k: number): number {
    let all = 0;
    let total = 0;
    const pick = (start: number, left: number, allPassed: boolean): void => {
      if (left === 0) {
        total++;
        if (allPassed) all++;
        return;
      }
      for (let i = start; i <= runs.length - left; i++) pick(i + 1, left - 1, allPassed && runs[i] === true);
    };
    pick(0, k, true);
    return all / total;
  }

  it('C(c, k)/C(n, k) equals the share of k-subsets of runs that all passed', () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: 1, maxLength: 10 }), fc.nat(), (runs, pickK) => {
        const k = 1 + (pickK % runs.length);
        const passed = runs.filter(Boolean).length;
        expect(passHatK(passed, runs.length, k)).toBeCloseTo(enumerate(runs, k), 12);
      }),
      DEFAULT_RUNS,
    );
  });

  it('never rises with k', () => {
    fc.assert(
      fc.property(tally(50), ({ count, of }) => {
        for (let k = 2; k <= of; k++) expect(passHatK(count, of, k)).toBeLessThanOrEqual(passHatK(count, of, k - 1));
      }),
      DEFAULT_RUNS,
    );
  });
});
