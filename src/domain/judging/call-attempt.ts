/**
 * One call of the agent inside a session, from arrival to delivery: the session's decision on it
 * (`CallDecision`) and the handle (`CallAttempt`) through which the caller reports its later steps, which
 * holds the steps to their order. The session (`session.ts`) creates it on `receive()`.
 */
import type { CallClass, ExecutionOutcome } from './attempt.js';
import type { RepeatSource } from './attribution.js';
import type { FaultKind, InjectedResult } from '../faults/index.js';

/** The session's answer to an arriving call. */
export interface CallDecision {
  attemptId: number;
  callClass: CallClass;
  /** The write's operation: its 1-based number in order of first arrival (the report's `operations[].id`); null for other calls. */
  operation: number | null;
  fault: FaultKind | null;
  /** Send the call to the upstream. When false, answer the agent with `injected`. */
  forward: boolean;
  injected: InjectedResult | null;
  /** `--latency`: wait this long before forwarding, in ms (0: at once). */
  delayMs: number;
  /** `--hold`: hold a replaced answer this long before delivering it, in ms (0: at once). */
  holdMs: number;
  /**
   * A late-landing write (F6's `--land-after`): answer the agent at once with `injected`, and forward the
   * call only this many ms later (0: not late). `forwarded()` and `answered()` then come after `delivered()`.
   */
  landAfterMs: number;
  /** who sent a repeated write attempt; null for an operation's first attempt and for other calls. */
  source: RepeatSource | null;
  /**
   * F6: a write sent while a late-landing write of the same operation was still waiting to land: that
   * write's attempt id; null otherwise.
   */
  besideLate: number | null;
}

/**
 * One call of the agent inside the session, from arrival to delivery: the only way to tell the session
 * what became of it, so the steps cannot come out of order. A forwarded call is `forwarded()`, then
 * `answered()` by the upstream, then `delivered()` to the agent; a call answered with an injected fault
 * is only `delivered()`. `delivered()` may also come before the upstream answered (the agent gave up, the
 * session ended); a later `answered()` is then still counted. Each step at most once; a step out of order
 * throws (a bug of the caller, never of the agent's input).
 */
export interface CallAttempt extends CallDecision {
  /** The call was sent to the upstream. */
  forwarded(): void;
  /**
   * The upstream answered (or could not be reached). Returns the result to show the agent instead of
   * the upstream's, if any (F1's timeout after a ghost write).
   */
  answered(outcome: ExecutionOutcome): InjectedResult | null;
  /** The agent received its answer (or gave up on the call). */
  delivered(): void;
  /** The agent cancelled the call (MCP `notifications/cancelled`); at most once, before `delivered()`. */
  cancelled(): void;
  /**
   * F6: once `answered()` as executed, which execution of its operation at the upstream this was (1, 2,
   * …, in landing order) — for a late-landing write and a write sent beside one; null otherwise.
   */
  readonly execution: number | null;
}

/** Where the session writes an answered attempt's execution number (F6; see {@link CallAttempt.execution}). */
export interface ExecutionCounted {
  execution: number | null;
}

/** The session's events of one attempt, reachable only through its {@link CallAttempt}. */
export interface AttemptEvents {
  forwarded(attemptId: number): void;
  answered(attemptId: number, outcome: ExecutionOutcome, counted: ExecutionCounted): InjectedResult | null;
  delivered(attemptId: number): void;
  cancelled(attemptId: number): void;
  /** Applies the session's pending bookkeeping (the decision's operation, source, besideLate and execution are set by it). */
  catchUp(): void;
}

export class AttemptHandle implements CallAttempt {
  private counted: number | null = null;
  private wasForwarded = false;
  private wasAnswered = false;
  private wasDelivered = false;
  private wasCancelled = false;

  constructor(
    private readonly decision: CallDecision,
    private readonly events: AttemptEvents,
  ) {}

  get attemptId(): number {
    return this.decision.attemptId;
  }
  get callClass(): CallClass {
    return this.decision.callClass;
  }
  get operation(): number | null {
    this.events.catchUp();
    return this.decision.operation;
  }
  get fault(): FaultKind | null {
    return this.decision.fault;
  }
  get forward(): boolean {
    return this.decision.forward;
  }
  get injected(): InjectedResult | null {
    return this.decision.injected;
  }
  get delayMs(): number {
    return this.decision.delayMs;
  }
  get holdMs(): number {
    return this.decision.holdMs;
  }
  get landAfterMs(): number {
    return this.decision.landAfterMs;
  }
  get source(): RepeatSource | null {
    this.events.catchUp();
    return this.decision.source;
  }
  get besideLate(): number | null {
    this.events.catchUp();
    return this.decision.besideLate;
  }
  get execution(): number | null {
    this.events.catchUp();
    return this.counted;
  }
  /** Written by the session when it books the answer (F6). */
  set execution(value: number | null) {
    this.counted = value;
  }

  forwarded(): void {
    const late = this.decision.landAfterMs > 0;
    if (!this.decision.forward || this.wasForwarded || (this.wasDelivered && !late)) this.outOfOrder('forwarded');
    this.wasForwarded = true;
    this.events.forwarded(this.decision.attemptId);
  }

  answered(outcome: ExecutionOutcome): InjectedResult | null {
    if (!this.wasForwarded || this.wasAnswered) this.outOfOrder('answered');
    this.wasAnswered = true;
    return this.events.answered(this.decision.attemptId, outcome, this);
  }

  delivered(): void {
    if (this.wasDelivered) this.outOfOrder('delivered');
    this.wasDelivered = true;
    this.events.delivered(this.decision.attemptId);
  }

  cancelled(): void {
    if (this.wasCancelled || this.wasDelivered) this.outOfOrder('cancelled');
    this.wasCancelled = true;
    this.events.cancelled(this.decision.attemptId);
  }

  private outOfOrder(step: string): never {
    const done = [this.wasForwarded && 'forwarded', this.wasAnswered && 'answered', this.wasDelivered && 'delivered'].filter(
      Boolean,
    );
    throw new Error(`call attempt ${this.decision.attemptId}: ${step}() out of order (done: ${done.join(', ') || 'received'})`);
  }
}
