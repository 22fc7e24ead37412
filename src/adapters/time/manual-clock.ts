import type { Clock } from '../../ports/clock.port.js';
import type { Timer } from '../../ports/timer.port.js';

function requireFinite(ms: number, what: string): void {
  if (!Number.isFinite(ms)) throw new RangeError(`${what} must be a finite number of milliseconds, got ${ms}`);
}

/**
 * A clock driven by hand, for tests and the benchmark's virtual time. Like every Clock it never goes
 * back: `advance` takes no negative step and `set` no earlier time.
 */
export class ManualClock implements Clock, Timer {
  private currentMs: number;
  /** Waits started with `sleep`, resolved when time reaches their end (in order of end, then of start). */
  private waits: Array<{ at: number; resolve: (elapsed: boolean) => void }> = [];

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
    this.fireDue();
    return this.currentMs;
  }

  /** Jumps to `ms`, which must not be earlier than the current reading. */
  set(ms: number): void {
    requireFinite(ms, 'set');
    if (ms < this.currentMs) throw new RangeError(`a clock never goes back: set(${ms}) before ${this.currentMs}`);
    this.currentMs = ms;
    this.fireDue();
  }

  /** A wait in virtual time: resolves `true` once `advance`/`set` reach its end, `false` when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
    requireFinite(ms, 'sleep');
    if (signal?.aborted === true) return Promise.resolve(false);
    return new Promise((resolve) => {
      const wait = { at: this.currentMs + Math.max(0, ms), resolve };
      this.waits.push(wait);
      this.waits.sort((a, b) => a.at - b.at);
      signal?.addEventListener(
        'abort',
        () => {
          this.waits = this.waits.filter((w) => w !== wait);
          resolve(false);
        },
        { once: true },
      );
      this.fireDue();
    });
  }

  /** Waits started and not yet over (for tests). */
  get pendingWaits(): number {
    return this.waits.length;
  }

  private fireDue(): void {
    while (this.waits.length > 0 && this.waits[0]!.at <= this.currentMs) this.waits.shift()!.resolve(true);
  }
}
