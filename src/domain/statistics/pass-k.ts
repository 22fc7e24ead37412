/**
 * pass^k, τ-bench's reliability measure (Yao et al. 2024, "τ-bench", §5): the chance that k runs of
 * the same task, drawn without replacement from its n runs, all pass. With c passing runs the unbiased
 * estimator is C(c, k) / C(n, k); over several tasks it is the mean of the tasks' values.
 */

/** The largest k reported: beyond 8 the figure says little that pass^8 does not. */
export const MAX_PASS_K = 8;

/** C(c, k) / C(n, k) for one task: c passing of n runs; 0 ≤ c ≤ n, 1 ≤ k ≤ n. */
export function passHatK(passed: number, runs: number, k: number): number {
  if (!Number.isInteger(passed) || !Number.isInteger(runs) || passed < 0 || passed > runs) {
    throw new RangeError(`pass^k needs integers 0 ≤ passed ≤ runs, got ${passed}/${runs}`);
  }
  if (!Number.isInteger(k) || k < 1 || k > runs) throw new RangeError(`pass^k needs 1 ≤ k ≤ ${runs}, got ${k}`);
  // The product form ∏ (c − i) / (n − i) avoids the huge binomials and is exact to rounding.
  let value = 1;
  for (let i = 0; i < k; i++) value *= (passed - i) / (runs - i);
  return Math.max(0, value);
}

export interface TaskTally {
  /** Runs with a verdict (PASS or FAIL); NOT_TESTED runs are left out before. */
  runs: number;
  passed: number;
}

export interface PassK {
  k: number;
  value: number;
}

/**
 * pass^k for k = 1 … min(smallest task's runs, 8), averaged over the tasks. Tasks without a judged
 * run are left out; with none left the list is empty.
 */
export function passKCurve(tasks: readonly TaskTally[]): PassK[] {
  const judged = tasks.filter((task) => task.runs > 0);
  if (judged.length === 0) return [];
  const maxK = Math.min(MAX_PASS_K, ...judged.map((task) => task.runs));
  const curve: PassK[] = [];
  for (let k = 1; k <= maxK; k++) {
    const sum = judged.reduce((total, task) => total + passHatK(task.passed, task.runs, k), 0);
    curve.push({ k, value: sum / judged.length });
  }
  return curve;
}
