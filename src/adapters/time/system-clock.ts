import { performance } from 'node:perf_hooks';
import type { Clock } from '../../ports/clock.port.js';
import type { Timer } from '../../ports/timer.port.js';

/**
 * The real clock: wall-clock milliseconds since the Unix epoch, taken from the monotonic
 * `performance.now()` offset by `performance.timeOrigin`, so it never goes back when the system time
 * is adjusted. Fractional milliseconds are kept.
 */
export class SystemClock implements Clock, Timer {
  /** Milliseconds since the Unix epoch (monotonic within this process). */
  now(): number {
    return performance.timeOrigin + performance.now();
  }

  /** Waits `ms` with an unref'd timer; `false` when `signal` aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
    if (signal?.aborted === true) return Promise.resolve(false);
    return new Promise((resolve) => {
      const onAbort = () => {
        clearTimeout(timer);
        resolve(false);
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve(true);
      }, ms);
      timer.unref();
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
