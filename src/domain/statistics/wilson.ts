/**
 * A proportion with its 95 % Wilson score interval (Wilson 1927). Unlike the textbook "p ± 1.96·SE"
 * (Wald) interval it never leaves [0, 1] and does not collapse to a zero width at 0/n or n/n, which is
 * where agent results usually are ("10/10 duplicated").
 */
import { assertCount } from './counts.js';

/** The two-sided 95 % normal quantile, Φ⁻¹(0.975). */
export const Z_95 = 1.959963984540054;

export interface Proportion {
  /** Runs that had the property. */
  count: number;
  /** Runs it was measured on (the denominator). */
  of: number;
  /** count / of; null when nothing was measured (of = 0). */
  rate: number | null;
  /** The 95 % Wilson interval; null when of = 0. */
  low: number | null;
  high: number | null;
}

/** The Wilson score interval of count/of at the normal quantile z (95 % by default). */
export function wilsonInterval(count: number, of: number, z: number = Z_95): { low: number; high: number } {
  assertCount(count, of, 'a proportion');
  if (of === 0) throw new RangeError('a Wilson interval needs at least one trial');
  const p = count / of;
  const z2 = z * z;
  const denominator = 1 + z2 / of;
  const centre = (p + z2 / (2 * of)) / denominator;
  const halfWidth = (z / denominator) * Math.sqrt((p * (1 - p)) / of + z2 / (4 * of * of));
  // At 0/n and n/n the bound is exactly 0 or 1; rounding could otherwise give -1e-17 or 1 + 1e-16.
  const low = count === 0 ? 0 : Math.max(0, centre - halfWidth);
  const high = count === of ? 1 : Math.min(1, centre + halfWidth);
  return { low, high };
}

/** count/of with its 95 % Wilson interval; an empty denominator gives nulls, never a made-up 0 %. */
export function proportion(count: number, of: number): Proportion {
  assertCount(count, of, 'a proportion');
  if (of === 0) return { count, of, rate: null, low: null, high: null };
  const { low, high } = wilsonInterval(count, of);
  return { count, of, rate: count / of, low, high };
}
