/**
 * Time as the harness sees it. The domain never reads the wall clock itself: every timestamp (when a
 * call arrived, was forwarded, answered, delivered) comes from this port, so tests and the benchmark can
 * drive time by hand and a run is reproducible.
 */
export interface Clock {
  /** Milliseconds since an arbitrary epoch. Never decreases between two calls. */
  now(): number;
}
