/**
 * The difference of two independent proportions with a 95 % interval by Newcombe's hybrid score method
 * (Newcombe 1998, method 10): the interval is built from each arm's Wilson interval, so it stays inside
 * [−1, 1], keeps a sensible width at 0/n and n/n, and its coverage is close to 95 % at small N — the
 * Wald interval "d ± 1.96·SE" is neither.
 */
import { assertCount, type ArmCount } from './counts.js';
import { wilsonInterval } from './wilson.js';

export interface Difference {
  /** rate(B) − rate(A); null when an arm has no runs. */
  difference: number | null;
  low: number | null;
  high: number | null;
}

/** rate(B) − rate(A) with its 95 % Newcombe hybrid score interval. */
export function differenceOfProportions(a: ArmCount, b: ArmCount): Difference {
  assertCount(a.count, a.of, 'a difference of proportions');
  assertCount(b.count, b.of, 'a difference of proportions');
  if (a.of === 0 || b.of === 0) return { difference: null, low: null, high: null };
  const pA = a.count / a.of;
  const pB = b.count / b.of;
  const wilsonA = wilsonInterval(a.count, a.of);
  const wilsonB = wilsonInterval(b.count, b.of);
  const difference = pB - pA;
  const low = difference - Math.sqrt((pB - wilsonB.low) ** 2 + (wilsonA.high - pA) ** 2);
  const high = difference + Math.sqrt((wilsonB.high - pB) ** 2 + (pA - wilsonA.low) ** 2);
  return { difference, low: Math.max(-1, low), high: Math.min(1, high) };
}
