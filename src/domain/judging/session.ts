/**
 * The evaluation of one agent session. A call arrives (`receive`) and the caller reports its later
 * steps — forwarded, answered by the upstream, delivered to the agent — through the call's `CallAttempt`
 * (`call-attempt.ts`), getting plain decisions back: the fault on arrival, the replacement of an
 * upstream answer (F1). What each step changes is booked by `session-bookkeeping.ts`, later than the
 * decision where nothing waits for it (the backlog, `catchUp()` in `session-state.ts`); what the session
 * holds and its read-only views are in `session-state.ts`; who sent a repeated write in
 * `repeat-attributor.ts`. Each event costs time independent of the session's length (a write that settles
 * uncertain is judged against the writes of its tool that arrived while it was in flight with a bounded
 * number of comparisons, R-6, `uncertain-tracker.ts`); the report is a view of the accumulated state
 * (`report.ts`), and readers outside see that state only through read-only views.
 */
import type { CallClass, ExecutionOutcome } from './attempt.js';
import type { CallOrigin } from './attribution.js';
import { AttemptHandle, type AttemptEvents, type CallAttempt, type CallDecision, type ExecutionCounted } from './call-attempt.js';
import { ChangeSet } from '../report/change-set.js';
import { behaviourOf, parameterValue, type InjectedResult } from '../faults/index.js';
import { SessionBookkeeping } from './session-bookkeeping.js';
import { drawLatency } from './timing.js';

export class EvaluationSession extends SessionBookkeeping {
  private nextId = 1;

  /**
   * A `tools/call` arrived from the agent. Decides the fault synchronously and answers the
   * attempt's handle, through which the caller reports the call's later steps.
   */
  receive(tool: string, args: unknown, origin: CallOrigin = NO_ORIGIN): CallAttempt {
    return new AttemptHandle(this.arrive(tool, args, origin), this.events);
  }

  // Only the decisions a caller waits for are made at once (the fault, the replacement of an answer);
  // the bookkeeping of each step is kept in the backlog with the step's time, in order, and applied by
  // `catchUp()`, which every event and every view runs first. So a proxy can send a call on before its
  // bookkeeping, and answer the agent before the upstream's answer is booked.
  private readonly events: AttemptEvents = {
    forwarded: (id) => {
      const now = this.clock.now();
      this.book(() => this.forwardedEvent(id, now));
    },
    answered: (id, outcome, counted) => this.answeredEvent(id, outcome, counted),
    delivered: (id) => {
      const now = this.clock.now();
      this.book(() => this.deliveredEvent(id, now));
    },
    cancelled: (id) => {
      const now = this.clock.now();
      this.book(() => this.cancelledEvent(id, now));
    },
    catchUp: () => this.catchUp(),
  };

  /** Books a step: kept for the next catch-up, or applied now in a session that books at once. */
  private book(step: () => void): void {
    this.backlog.push(step);
    if (!this.defersBookkeeping) this.catchUp();
  }

  private arrive(tool: string, args: unknown, origin: CallOrigin): CallDecision {
    // The fault plan must see every earlier step (a forwarding fault that was not applied is returned, R-4.1).
    this.catchUp();
    const id = this.nextId++;
    const callClass: CallClass = this.catalog.classOf(tool);
    this.counters.countCall(callClass);
    const scenario = this.settings.scenario;
    const fault = callClass === 'unclassified' ? null : this.faultPlan.decide(callClass, tool);
    const behaviour = behaviourOf(fault);
    const forward = behaviour === null || behaviour.forwards;
    // F6: a write that lands late is answered at once (its `lateAnswer`) and forwarded after `landAfterMs`.
    const landAfterMs =
      forward && behaviour?.landsAfter !== undefined ? parameterValue(this.faultSettings(), behaviour.landsAfter) : 0;
    const injected = forward
      ? landAfterMs > 0
        ? (behaviour?.lateAnswer?.(this.faultSettings()) ?? null)
        : null
      : (behaviour?.injected?.(this.faultSettings()) ?? null);
    // Drawn on arrival, in arrival order, from the seeded source: the same seed repeats the same latencies.
    const delayMs = forward && scenario.latency !== undefined ? drawLatency(scenario.latency, this.random) : 0;
    const holdMs = behaviour?.holdsReplacement === true ? (scenario.holdMs ?? 0) : 0;
    const now = this.clock.now();
    const decision: CallDecision = {
      attemptId: id,
      callClass,
      operation: null,
      fault,
      forward,
      injected,
      delayMs,
      holdMs,
      landAfterMs,
      source: null,
      besideLate: null,
    };
    this.book(() => this.bookArrival(decision, tool, args, now, origin));
    return decision;
  }

  /** Decides the replacement of the upstream's answer at once (the caller waits for it); books the rest. */
  private answeredEvent(attemptId: number, outcome: ExecutionOutcome, counted?: ExecutionCounted): InjectedResult | null {
    this.catchUp();
    const attempt = this.open.get(attemptId);
    if (attempt === undefined || attempt.status !== 'in-flight') return null;
    attempt.upstreamAnsweredAt = this.clock.now();
    const replacement =
      outcome.kind === 'executed' ? (behaviourOf(attempt.fault)?.replaceExecuted?.(this.faultSettings()) ?? null) : null;
    if (replacement !== null) this.timingLog.replaced(attemptId, attempt.upstreamAnsweredAt);
    this.book(() => this.bookAnswer(attempt, outcome, replacement !== null, counted));
    return replacement;
  }

  /** The session ended: calls still in flight have an unknown outcome. */
  finish(): void {
    if (this.ended) return;
    this.catchUp();
    for (const attempt of [...this.open.values()]) {
      if (attempt.status === 'in-flight') this.answeredEvent(attempt.id, { kind: 'unknown', reason: 'still-in-flight' });
    }
    this.ended = true;
  }

  /**
   * Starts a record of the operations that change from now on, for one reader (the incremental report
   * writer). Every reader has its own record, so a second reader never takes the first one's changes.
   */
  recordChanges(): ChangeSet {
    this.catchUp();
    const changes = new ChangeSet(() => this.catchUp());
    this.changeSets.push(changes);
    return changes;
  }
}

const NO_ORIGIN: CallOrigin = Object.freeze({ session: 1 });
