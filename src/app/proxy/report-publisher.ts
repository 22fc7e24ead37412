/**
 * Publishes a session's report before answers go out, coalescing: every call answered in the
 * same turn of the event loop waits for ONE document that already contains all of them, built and
 * written once in the loop's check phase (`setImmediate`). A sequential agent gets one write per call;
 * 500 parallel answers arriving together get a handful of writes instead of 500. A request made when no
 * other answer can be coming (`soon`: no other call of the session is waiting for the upstream) is
 * written as soon as the current microtasks are done instead: waiting for the check phase would only
 * delay that answer (measured ~0.1 ms per call for a sequential agent).
 */
import type { ReportDocument, ReportSink } from '../../ports/report-sink.port.js';

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class ReportPublisher {
  private waiters: Waiter[] = [];
  private scheduled = false;
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly sink: ReportSink,
    /** Builds the current document; called once per write. */
    private readonly build: () => ReportDocument,
  ) {}

  /**
   * Resolves once a document at least as new as the state at this call has been published. `soon`:
   * nothing else is expected this turn, so write after the current microtasks rather than in the check
   * phase (a write already scheduled is joined either way).
   */
  request(soon = false): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiters.push({ resolve, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      const run = (): void => {
        this.scheduled = false;
        void this.flush();
      };
      if (soon) queueMicrotask(run);
      else setImmediate(run);
    });
  }

  /** Publishes right away (e.g. the final report), after any write still in progress. */
  now(): Promise<void> {
    const done = this.request();
    void this.flush();
    return done;
  }

  private flush(): Promise<void> {
    this.chain = this.chain.then(async () => {
      const waiters = this.waiters.splice(0);
      if (waiters.length === 0) return;
      try {
        await this.sink.publish(this.build());
        for (const waiter of waiters) waiter.resolve();
      } catch (error) {
        for (const waiter of waiters) waiter.reject(error);
      }
    });
    return this.chain;
  }
}
