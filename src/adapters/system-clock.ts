import { performance } from 'node:perf_hooks';
import type { Clock } from '../ports/clock.port.js';

/**
 * The real clock: wall-clock milliseconds since the Unix epoch, taken from the monotonic
 * `performance.now()` offset by `performance.timeOrigin`, so it never goes back when the system time
 * is adjusted. Fractional milliseconds are kept.
 */
export class SystemClock implements Clock {
  /** Milliseconds since the Unix epoch (monotonic within this process). */
  now(): number {
    return performance.timeOrigin + performance.now();
  }
}
