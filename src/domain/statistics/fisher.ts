/**
 * Fisher's exact test for a 2×2 table, two-sided: the probability, with both margins fixed, of a table
 * at most as likely as the one observed (the hypergeometric distribution). The rule "at most as likely"
 * — not "twice the smaller tail" — is the one of R's `fisher.test` and SciPy's `fisher_exact`; like R,
 * tables within a relative 1e-7 of the observed probability count as equally likely, so rounding
 * cannot drop a mirror-image table. Probabilities are summed in log space relative to the observed
 * table, so thousands of runs per arm neither overflow nor underflow.
 */
import { assertCount, type ArmCount } from './counts.js';
import { logChoose } from './log-factorial.js';

const RELATIVE_TIE = 1 + 1e-7;

/** Two-sided p-value of Fisher's exact test for arm A (a.count of a.of) against arm B. */
export function fisherExactTwoSided(a: ArmCount, b: ArmCount): number {
  assertCount(a.count, a.of, "Fisher's test");
  assertCount(b.count, b.of, "Fisher's test");
  const total = a.of + b.of;
  const successes = a.count + b.count;
  // The count of arm A given the margins is hypergeometric: C(a.of, x) C(b.of, s − x) / C(N, s).
  const logDenominator = logChoose(total, successes);
  const logP = (x: number): number => logChoose(a.of, x) + logChoose(b.of, successes - x) - logDenominator;
  const observed = logP(a.count);
  const lowest = Math.max(0, successes - b.of);
  const highest = Math.min(a.of, successes);
  const threshold = observed + Math.log(RELATIVE_TIE);
  let relativeSum = 0;
  for (let x = lowest; x <= highest; x++) {
    const value = logP(x);
    if (value <= threshold) relativeSum += Math.exp(value - observed);
  }
  return Math.min(1, Math.exp(observed) * relativeSum);
}
