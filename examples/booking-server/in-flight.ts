/** Counts running tool calls so a stdio shutdown can let them answer before the process exits. */
export class InFlight {
  private running = 0;
  private waiters: Array<() => void> = [];

  /** Counts `work` as running until it settles; answers the same promise. */
  track<T>(work: Promise<T>): Promise<T> {
    this.running++;
    return work.finally(() => {
      this.running--;
      if (this.running === 0) for (const wake of this.waiters.splice(0)) wake();
    });
  }

  /** Resolves once no tracked call is running (at once if none is). */
  idle(): Promise<void> {
    if (this.running === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}
