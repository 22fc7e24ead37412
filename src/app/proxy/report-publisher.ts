/**
 * Publishes a session's report before answers go out, coalescing: every call answered in the
 * same turn of the event loop waits for ONE document that already contains all of them, built and
 * written once in the loop's check phase (`setImmediate`). A sequential agent gets one write per call;
 * 500 parallel answers arriving together get a handful of writes instead of 500.
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

  /** Resolves once a document at least as new as the state at this call has been published. */
  request(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiters.push({ resolve, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        void this.flush();
      });
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
