/** A count out of a number of runs: the input of every figure in this folder. */

/** `count` of `of` runs had the property (one arm of a comparison, or one rate). */
export interface ArmCount {
  count: number;
  of: number;
}

/** Throws a RangeError unless 0 ≤ count ≤ of are integers: a bad tally is a bug, never a statistic. */
export function assertCount(count: number, of: number, what: string): void {
  if (!Number.isInteger(count) || !Number.isInteger(of) || count < 0 || count > of) {
    throw new RangeError(`${what} needs integers 0 ≤ count ≤ of, got ${count}/${of}`);
  }
}
