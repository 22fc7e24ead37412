/**
 * The bookkeeping of a session's steps: what each arrival, answer, delivery and cancellation changes in
 * the state (`session-state.ts`) — the operation and its attempts, the totals (`mutate()` keeps them in
 * step with every change), the findings and the attribution. The session (`session.ts`) decides
 * what its caller waits for and hands each step here, at once or through its backlog (`catchUp()`), in
 * the order the steps happened and with their times, so the result is the same either way.
 */
import {
  answerFingerprint,
  newAttempt,
  type ArrivalContext,
  type Attempt,
  type CallClass,
  type ExecutionOutcome,
} from './attempt.js';
import type { CallOrigin, RepeatSource } from './attribution.js';
import type { CallDecision, ExecutionCounted } from './call-attempt.js';
import { ChangeSet } from '../report/change-set.js';
import { behaviourOf, repliesTimeout, retryWindowSeconds, type FaultKind, type FaultSettings } from '../faults/index.js';
import { faultSettingsOf } from '../faults/fault-plan.js';
import { canonicalJson } from '../json.js';
import { identifyOperation, previewArgs } from './operation.js';
import { OperationState, type Contribution, ZERO_CONTRIBUTION, assessOperation, observationOf } from './operation-state.js';
import { RetryWindows } from './retry-windows.js';
import { SessionState } from './session-state.js';
import { UncertainTracker, type PairFinding, type Uncertainty } from './uncertain-tracker.js';

export abstract class SessionBookkeeping extends SessionState {
  // The state (`session-state.ts`) changes only through the steps below (`mutate()` keeps the totals in
  // step); readers get its read-only views.
  protected readonly open = new Map<number, Attempt>();
  /** the full canonical arguments (key fields included) of open write attempts of idempotent tools. */
  private readonly forms = new Map<number, string>();
  private readonly awaitingRead = new Set<OperationState>();
  private readonly uncertain = new UncertainTracker();
  private readonly retryWindows = new RetryWindows();
  /** Write tools seen with a key field: a later call without one is WRITE_WITHOUT_KEY. */
  private readonly keyedTools = new Set<string>();
  /** One record of changed operations per reader (see `recordChanges`). */
  protected readonly changeSets: ChangeSet[] = [];
  /** F6: per operation, its late-landing writes the upstream has not answered yet (attempt ids, in arrival order). */
  protected readonly pendingLate = new Map<string, number[]>();
  private seq = 0;
  private lastReadSeq = -1;

  protected cancelledEvent(id: number, now: number): void {
    const attempt = this.open.get(id);
    if (attempt === undefined) return;
    attempt.cancelled = true;
    const op = attempt.opKey === null ? undefined : this.ops.get(attempt.opKey);
    if (op !== undefined && op.lastId === attempt.id) op.lastCancelled = true;
    this.timingLog.cancelled(id, attempt.tool, attempt.receivedAt, now);
  }

  /** The bookkeeping of an arrival (`decision`: what `arrive` decided; its operation and source are set here). */
  protected bookArrival(decision: CallDecision, tool: string, args: unknown, now: number, origin: CallOrigin): void {
    const { attemptId: id, callClass, fault, forward, delayMs, holdMs, landAfterMs } = decision;
    const scenario = this.settings.scenario;
    if (scenario.latency !== undefined || holdMs > 0)
      this.timingLog.arrived(id, tool, now, forward && scenario.latency !== undefined ? delayMs : null, holdMs);
    if (callClass === 'write')
      ({ operation: decision.operation, source: decision.source } = this.receiveWrite(
        id,
        tool,
        args,
        fault,
        forward,
        now,
        origin,
      ));
    else this.receiveOther(id, tool, callClass, args, fault, forward, now, origin);
    // F6: a write of an operation whose late write has not landed yet is marked with that write's id.
    decision.besideLate = this.pendingLate.size > 0 ? this.besideLateOf(id) : null;
    const besideLate = decision.besideLate;
    if (landAfterMs > 0) {
      this.timingLog.arrivedLate(id, tool, now);
      // The agent hears the time-out before the upstream has the write: a failure it saw, as under F1.
      const attempt = this.open.get(id)!;
      attempt.agentSawTimeout = true;
      attempt.agentSawFailure = true;
      attempt.landsLate = true;
      if (attempt.opKey !== null) {
        const op = this.ops.get(attempt.opKey)!;
        this.mutate(op, () => (op.landedLate = true));
        const pending = this.pendingLate.get(attempt.opKey);
        if (pending === undefined) this.pendingLate.set(attempt.opKey, [id]);
        else pending.push(id);
      }
    }
    if (besideLate !== null) this.timingLog.besideLate(id, tool, now, besideLate);
  }

  /** The late write (F6) still waiting to land that attempt `id`'s operation had when it arrived, if any. */
  private besideLateOf(id: number): number | null {
    const attempt = this.open.get(id);
    if (attempt?.opKey == null) return null;
    const pending = this.pendingLate.get(attempt.opKey);
    if (pending === undefined) return null;
    attempt.besideLate = pending[0]!;
    return attempt.besideLate;
  }

  protected forwardedEvent(attemptId: number, now: number): void {
    const attempt = this.open.get(attemptId);
    if (attempt !== undefined) attempt.forwardedAt = now;
  }

  protected bookAnswer(attempt: Attempt, outcome: ExecutionOutcome, replaced: boolean, counted?: ExecutionCounted): void {
    const attemptId = attempt.id;
    this.settle(attempt, outcome, replaced);
    if (attempt.landsLate || attempt.besideLate !== null) this.countExecution(attempt, counted);
    // A late write the upstream could not be sent (it was gone by then) never reached it.
    if (attempt.landsLate)
      this.timingLog.landed(
        attemptId,
        outcome.kind === 'unavailable' ? null : attempt.forwardedAt,
        // Set when the answer came, before this step was booked.
        attempt.upstreamAnsweredAt!,
        attempt.status,
      );
    if (attempt.deliveredSeq !== null) this.open.delete(attemptId);
  }

  /**
   * F6: a late-landing write, or a write sent beside one, has been answered: an execution gets its number
   * in its operation (landing order), and a late write is no longer waiting to land.
   */
  private countExecution(attempt: Attempt, counted: ExecutionCounted | undefined): void {
    const op = attempt.opKey === null ? undefined : this.ops.get(attempt.opKey);
    if (op === undefined) return;
    if (attempt.status === 'executed') {
      if (counted !== undefined) counted.execution = op.executions;
      this.timingLog.executed(attempt.id, op.executions);
    }
    if (!attempt.landsLate) return;
    const pending = this.pendingLate.get(op.opKey);
    const at = pending?.indexOf(attempt.id) ?? -1;
    if (at >= 0) pending!.splice(at, 1);
    if (pending?.length === 0) this.pendingLate.delete(op.opKey);
  }

  protected deliveredEvent(attemptId: number, now: number): void {
    const attempt = this.open.get(attemptId);
    if (attempt === undefined || attempt.deliveredSeq !== null) return;
    attempt.deliveredAt = now;
    attempt.deliveredSeq = this.seq++;
    this.timingLog.delivered(attemptId, attempt.deliveredAt, attempt.status);
    if (attempt.opKey !== null) {
      const op = this.ops.get(attempt.opKey)!;
      this.attributor.delivered(attempt);
      if (op.lastId === attempt.id) {
        // MCP sends no answer to a request the agent cancelled: its end reached nobody.
        op.lastDelivered = !attempt.cancelled;
        op.lastUserTurns = attempt.userTurns;
      }
      const bySession = op.pendingBySession;
      if (bySession !== null) {
        const pendingHere = bySession.get(attempt.session) ?? 0;
        if (pendingHere <= 1) bySession.delete(attempt.session);
        else bySession.set(attempt.session, pendingHere - 1);
      }
      this.mutate(op, () => {
        op.pendingForAgent--;
        if (attempt.agentSawTimeout) op.timeoutSeen = true;
        if (attempt.agentSawExecutedError) op.executedErrorSeen = true;
        const key = attempt.key === null ? undefined : op.keys.get(attempt.key);
        if (key !== undefined && key.lastSeq === attempt.receivedSeq) key.lastFailed = attempt.agentSawFailure;
        if (attempt.agentSawFailure) {
          op.failureSeq = attempt.deliveredSeq!;
          op.verified = false;
          this.awaitingRead.add(op);
        }
      });
    }
    if (attempt.status !== 'in-flight') this.open.delete(attemptId);
  }

  protected faultSettings(): FaultSettings {
    return faultSettingsOf(this.settings.scenario);
  }

  /** Returns the operation's number (1-based, order of first arrival) and, for a repeat, who sent it. */
  private receiveWrite(
    id: number,
    tool: string,
    args: unknown,
    fault: FaultKind | null,
    forward: boolean,
    now: number,
    origin: CallOrigin,
  ): { operation: number; source: RepeatSource | null } {
    const identity = identifyOperation(tool, args, this.keyMatcher);
    let op = this.ops.get(identity.opKey);
    const idempotent = this.catalog.isIdempotent?.(tool) === true;
    if (op === undefined) {
      op = new OperationState(identity.opKey, tool, previewArgs(identity.canonicalArgs));
      op.idempotent = idempotent;
      this.ops.set(identity.opKey, op);
      op.ordinal = this.ops.size;
      this.applyContribution(op, ZERO_CONTRIBUTION, assessOperation(op));
    }
    const context: ArrivalContext = {
      afterTimeout: op.timeoutSeen,
      afterExecutedError: op.executedErrorSeen,
      parallel: op.pendingForAgent > 0,
      verifiedBefore: op.failureSeq >= 0 && op.verified,
    };
    const attempt = this.newAttempt(id, tool, 'write', identity.opKey, identity.key, fault, forward, now, context, origin);
    this.open.set(id, attempt);
    this.attributor.attribute(op, attempt, args, now);
    const form = idempotent ? canonicalJson(args ?? {}) : null;
    if (form !== null) this.forms.set(id, form);
    if (identity.key === null && (this.catalog.acceptsKey(tool) || this.keyedTools.has(tool))) {
      this.observationCounter.add('WRITE_WITHOUT_KEY', tool);
    }
    if (identity.key !== null) this.keyedTools.add(tool);
    const others = this.retryWindows.othersOpen(tool, identity.opKey, now);
    if (others > 0) this.observationCounter.add('OTHER_CALL_DURING_RETRY_AFTER', tool, others);
    const target = op;
    this.mutate(target, () => {
      this.applyArrival(target, attempt, now);
      if (form !== null && forward) target.addForwardedForm(form);
    });
    this.recordFindings(this.uncertain.arrived(tool, id, identity.opKey, identity.operationArgs, target.argsPreview, forward));
    if (!forward) this.settle(attempt, { kind: 'unavailable' }, false);
    return { operation: target.ordinal, source: attempt.source };
  }

  private receiveOther(
    id: number,
    tool: string,
    callClass: CallClass,
    args: unknown,
    fault: FaultKind | null,
    forward: boolean,
    now: number,
    origin: CallOrigin,
  ): void {
    const attempt = this.newAttempt(id, tool, callClass, null, null, fault, forward, now, NO_CONTEXT, origin);
    this.open.set(id, attempt);
    // A read carries out its model tool call too, so no later call takes it.
    this.attributor.takeToolCall(attempt, args);
    if (callClass === 'unclassified') this.noteUnclassified(tool, args);
    if (callClass === 'read' && forward) this.counters.readForwarded();
    if (!forward) this.settle(attempt, { kind: 'unavailable' }, false);
  }

  private applyArrival(op: OperationState, attempt: Attempt, now: number): void {
    op.attempts++;
    op.pendingForAgent++;
    op.lastAttemptSeq = attempt.receivedSeq;
    if (attempt.forwarded) {
      op.inFlight++;
      if (op.rejected > 0) {
        op.resentAfterRejection = true;
        this.firstResend ??= { op, attempt: op.attempts };
      }
    }
    const fault = behaviourOf(attempt.fault);
    if (fault !== null && !fault.baseline) {
      op.faulted++;
      op.firstFault ??= attempt.fault;
    }
    if (op.retryAfterStart !== null) {
      const waited = now - op.retryAfterStart;
      if (waited < op.retryAfterRequiredMs) {
        op.retryAfterViolations++;
        op.firstViolationWaitedMs ??= waited;
      } else {
        op.recoveredWaitedMs ??= waited;
      }
    }
    const windowSeconds = retryWindowSeconds(fault, this.faultSettings());
    if (windowSeconds !== undefined) this.openRetryWindow(op, now, windowSeconds * 1000);
    if (attempt.key !== null) op.keyArrived(attempt.key, attempt.receivedSeq, this.lastReadSeq);
  }

  private openRetryWindow(op: OperationState, now: number, requiredMs: number): void {
    op.retryAfterStart = now;
    op.retryAfterRequiredMs = requiredMs;
    this.retryWindows.open(op.tool, op.opKey, now, op.retryAfterRequiredMs);
  }

  private noteUnclassified(tool: string, args: unknown): void {
    const seen = this.unclassifiedSeen.get(tool) ?? new Set<string>();
    const text = canonicalJson(args ?? {});
    if (seen.has(text)) this.observationCounter.add('UNCLASSIFIED_REPEAT', tool);
    seen.add(text);
    this.unclassifiedSeen.set(tool, seen);
  }

  private settle(attempt: Attempt, outcome: ExecutionOutcome, ghost: boolean): void {
    attempt.status = statusOf(outcome);
    attempt.unknownReason = outcome.kind === 'unknown' ? outcome.reason : null;
    // A replaced answer is a timeout (F1) unless its fault tells an error instead (F7's 500).
    const toldTimeout = ghost && repliesTimeout(attempt.fault);
    attempt.agentSawTimeout = toldTimeout || (outcome.kind === 'unknown' && outcome.reason === 'timeout');
    attempt.agentSawExecutedError = ghost && !toldTimeout;
    // The agent got the fault's failure instead of the upstream's answer (the call was not forwarded).
    const injectedFailure = behaviourOf(attempt.fault)?.forwards === false;
    attempt.agentSawFailure = ghost || injectedFailure || outcome.kind !== 'executed';
    if (outcome.kind === 'unavailable' && outcome.replayMiss === true) this.replayMissCount++;
    if (attempt.callClass === 'read') this.settleRead(attempt, outcome);
    // A forwarding fault (F1, F4) on a call that never reached the upstream was not applied.
    // F6's late write is applied when the agent is told its time-out, whether or not it could land later.
    const unapplied = attempt.forwarded && attempt.fault !== null && outcome.kind === 'unavailable' && !attempt.landsLate;
    if (unapplied) this.faultPlan.release();
    if (attempt.opKey === null) return;
    const op = this.ops.get(attempt.opKey)!;
    this.mutate(op, () => {
      if (unapplied && behaviourOf(attempt.fault)?.baseline === false && --op.faulted === 0) op.firstFault = null;
      if (attempt.forwarded) op.inFlight--;
      if (attempt.agentSawFailure) op.failedAttempts++;
      const form = this.forms.get(attempt.id);
      if (outcome.kind === 'executed' && form !== undefined && op.executedForms.has(form)) {
        // the same call again, with the same arguments, on a tool that declares it has no further effect.
        op.executions++;
        op.idempotentRepeats++;
        if (attempt.key !== null) op.keys.get(attempt.key)!.executions++;
        this.observationCounter.add('IDEMPOTENT_REPEAT', attempt.tool);
      } else if (outcome.kind === 'executed') {
        if (form !== undefined) op.addExecutedForm(form);
        op.recordExecution(attempt, answerFingerprint(outcome.answer));
        if (attempt.key !== null) op.keys.get(attempt.key)!.executions++;
        if (ghost) op.ghostExecuted = true;
      } else if (outcome.kind === 'rejected') op.rejected++;
      else if (outcome.kind === 'unknown') op.unknown++;
    });
    this.forms.delete(attempt.id);
    if (attempt.forwarded) {
      const uncertainty: Uncertainty =
        ghost || outcome.kind === 'unknown' ? 'unknown' : outcome.kind === 'rejected' ? 'rejected' : 'none';
      this.recordFindings(this.uncertain.settled(attempt.tool, attempt.id, uncertainty));
    }
  }

  private settleRead(attempt: Attempt, outcome: ExecutionOutcome): void {
    if (attempt.forwarded) this.counters.readSettled();
    if (outcome.kind !== 'executed') return;
    this.lastReadSeq = Math.max(this.lastReadSeq, attempt.receivedSeq);
    for (const op of this.awaitingRead) {
      if (op.failureSeq < attempt.receivedSeq) {
        this.mutate(op, () => (op.verified = true));
        this.awaitingRead.delete(op);
      }
    }
  }

  private recordFindings(findings: PairFinding[]): void {
    for (const f of findings) {
      const type = f.nearDuplicate ? 'POSSIBLE_DUPLICATE_DIFFERENT_ARGUMENTS' : 'OTHER_WRITE_AFTER_UNCERTAIN_ATTEMPT';
      this.observationCounter.add(type, f.tool, f.count, { first: f.first, second: f.second });
    }
  }

  private newAttempt(
    id: number,
    tool: string,
    callClass: CallClass,
    opKey: string | null,
    key: string | null,
    fault: FaultKind | null,
    forwarded: boolean,
    now: number,
    context: ArrivalContext,
    origin: CallOrigin,
  ): Attempt {
    return newAttempt({
      id,
      tool,
      callClass,
      opKey,
      key,
      fault,
      forwarded,
      context,
      receivedAt: now,
      receivedSeq: this.seq++,
      session: origin.session,
      requestId: origin.requestId ?? null,
    });
  }

  /** Runs a change of an operation and keeps the totals and report caches in step with it. */
  private mutate(op: OperationState, change: () => void): void {
    const before = assessOperation(op);
    change();
    const after = assessOperation(op);
    this.applyContribution(op, before, after);
    for (const changes of this.changeSets) changes.add(op);
  }

  private applyContribution(op: OperationState, before: Contribution, after: Contribution): void {
    this.counters.apply(before, after);
    if (after.duplicate + after.retryAfterViolated > 0) this.violatingOps.add(op);
    else this.violatingOps.delete(op);
    if (observationOf(op) !== null) this.observedOps.add(op);
    else this.observedOps.delete(op);
  }
}

const NO_CONTEXT: ArrivalContext = Object.freeze({
  afterTimeout: false,
  afterExecutedError: false,
  parallel: false,
  verifiedBefore: false,
});

function statusOf(outcome: ExecutionOutcome): Attempt['status'] {
  switch (outcome.kind) {
    case 'executed':
      return 'executed';
    case 'rejected':
      return 'rejected';
    case 'unknown':
      return 'unknown';
    case 'unavailable':
      return 'not-executed';
  }
}
