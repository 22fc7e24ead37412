/**
 * What the domain needs from outside, declared here so the domain depends on nothing (the ports
 * re-export these for the adapters): time and randomness. The domain never reads the wall clock or
 * `Math.random` itself, so tests and the benchmark drive time by hand and a chaos run is reproducible.
 */

/**
 * Time as the harness sees it: every timestamp (when a call arrived, was forwarded, answered,
 * delivered) comes from here.
 */
export interface Clock {
  /** Milliseconds since an arbitrary epoch. Never decreases between two calls. */
  now(): number;
}

/**
 * A source of uniform random numbers. Chaos mode draws from it; a seeded implementation makes a chaos
 * run reproducible (the same seed gives the same faults on the same calls).
 */
export interface RandomSource {
  /** A number in [0, 1). */
  next(): number;
}
