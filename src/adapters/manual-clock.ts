import type { Clock } from '../ports/clock.port.js';

function requireFinite(ms: number, what: string): void {
  if (!Number.isFinite(ms)) throw new RangeError(`${what} must be a finite number of milliseconds, got ${ms}`);
}

/**
 * A clock driven by hand, for tests and the benchmark's virtual time. Like every Clock it never goes
 * back: `advance` takes no negative step and `set` no earlier time.
 */
export class ManualClock implements Clock {
  private currentMs: number;

  /** @param startMs the first reading (default 0). */
  constructor(startMs = 0) {
    requireFinite(startMs, 'startMs');
    this.currentMs = startMs;
  }

  /** The current reading. */
  now(): number {
    return this.currentMs;
  }

  /** Moves time forward by `ms` (0 or more); returns the new reading. */
  advance(ms: number): number {
    requireFinite(ms, 'advance');
    if (ms < 0) throw new RangeError(`a clock never goes back: advance(${ms})`);
    this.currentMs += ms;
    return this.currentMs;
  }

  /** Jumps to `ms`, which must not be earlier than the current reading. */
  set(ms: number): void {
    requireFinite(ms, 'set');
    if (ms < this.currentMs) throw new RangeError(`a clock never goes back: set(${ms}) before ${this.currentMs}`);
    this.currentMs = ms;
  }
}
