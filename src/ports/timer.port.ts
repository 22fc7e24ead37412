/**
 * Waiting, as the call pipeline needs it for `--latency` and `--hold`: the real timer in the
 * proxy, a manual one in tests (virtual time, no real sleeps).
 */
export interface Timer {
  /**
   * Resolves `true` after `ms` milliseconds, or `false` as soon as `signal` aborts (at once if it already
   * has). A pending wait never keeps the process alive by itself.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<boolean>;
}
