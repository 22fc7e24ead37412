/**
 * A source of uniform random numbers. Chaos mode draws from it; a seeded implementation makes a chaos
 * run reproducible (the same seed gives the same faults on the same calls).
 */
export interface RandomSource {
  /** A number in [0, 1). */
  next(): number;
}
