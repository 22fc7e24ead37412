/**
 * The running totals of a session: the sum of every operation's contribution plus call counts. The
 * verdict and the score are computed from these alone, in constant time.
 */
import type { CallClass } from './attempt.js';
import { ZERO_CONTRIBUTION, type Contribution } from './operation-state.js';

export class SessionTotals {
  readonly sum: Contribution = { ...ZERO_CONTRIBUTION };
  operations = 0;
  readsInFlight = 0;
  readonly calls: Record<CallClass, number> = { read: 0, write: 0, unclassified: 0 };

  get totalCalls(): number {
    return this.calls.read + this.calls.write + this.calls.unclassified;
  }

  countCall(callClass: CallClass): void {
    this.calls[callClass]++;
  }

  /** Replaces an operation's old contribution with its new one. */
  apply(before: Contribution, after: Contribution): void {
    if (before === ZERO_CONTRIBUTION) this.operations++;
    for (const field of FIELDS) this.sum[field] += after[field] - before[field];
  }
}

const FIELDS = Object.keys(ZERO_CONTRIBUTION) as Array<keyof Contribution>;
