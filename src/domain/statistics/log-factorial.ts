/**
 * Logarithms of factorials and binomial coefficients, accurate for the counts of a trial (thousands of
 * runs) where the plain numbers overflow: 171! is already Infinity in double precision.
 */

const EXACT_BELOW = 20;

/**
 * ln(n!) for a non-negative integer n: exact summation below 20, above it Stirling's series with four
 * correction terms (error < 1e-15 relative there, Abramowitz & Stegun 6.1.41).
 */
export function logFactorial(n: number): number {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`logFactorial needs a non-negative integer, got ${n}`);
  if (n < EXACT_BELOW) {
    let sum = 0;
    for (let i = 2; i <= n; i++) sum += Math.log(i);
    return sum;
  }
  const inverse = 1 / n;
  const inverse2 = inverse * inverse;
  const series = inverse * (1 / 12 - inverse2 * (1 / 360 - inverse2 * (1 / 1260 - inverse2 / 1680)));
  return n * Math.log(n) - n + 0.5 * Math.log(2 * Math.PI * n) + series;
}

/** ln C(n, k); -Infinity when k is outside 0 … n (there is no way to choose). */
export function logChoose(n: number, k: number): number {
  if (k < 0 || k > n) return -Infinity;
  return logFactorial(n) - logFactorial(k) - logFactorial(n - k);
}
