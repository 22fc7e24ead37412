/**
 * The running totals of a session: the sum of every operation's contribution plus call counts. The
 * verdict and the score are computed from these alone, in constant time.
 */
import type { CallClass } from './attempt.js';
import { ZERO_CONTRIBUTION, type Contribution } from './operation-state.js';

/** The totals as readers see them: nothing can be changed through it. */
export type TotalsView = Pick<SessionTotals, 'sum' | 'operations' | 'readsInFlight' | 'calls' | 'totalCalls'>;

export class SessionTotals {
  private readonly contributions: Contribution = { ...ZERO_CONTRIBUTION };
  private operationCount = 0;
  private openReads = 0;
  private readonly callCounts: Record<CallClass, number> = { read: 0, write: 0, unclassified: 0 };

  /** The sum of every operation's contribution. */
  get sum(): Readonly<Contribution> {
    return this.contributions;
  }

  /** Operations seen. */
  get operations(): number {
    return this.operationCount;
  }

  /** Forwarded reads not yet answered by the upstream. */
  get readsInFlight(): number {
    return this.openReads;
  }

  /** Calls per class. */
  get calls(): Readonly<Record<CallClass, number>> {
    return this.callCounts;
  }

  get totalCalls(): number {
    return this.callCounts.read + this.callCounts.write + this.callCounts.unclassified;
  }

  countCall(callClass: CallClass): void {
    this.callCounts[callClass]++;
  }

  readForwarded(): void {
    this.openReads++;
  }

  readSettled(): void {
    this.openReads--;
  }

  /** Replaces an operation's old contribution with its new one. */
  apply(before: Contribution, after: Contribution): void {
    if (before === ZERO_CONTRIBUTION) this.operationCount++;
    for (const field of FIELDS) this.contributions[field] += after[field] - before[field];
  }
}

const FIELDS = Object.keys(ZERO_CONTRIBUTION) as Array<keyof Contribution>;
