/**
 * The evaluation of one agent session. A call arrives (`receive`) and the caller reports its later
 * steps — forwarded, answered by the upstream, delivered to the agent — through the call's `CallAttempt`,
 * getting plain decisions back. Each event costs time independent of the session's length (a write
 * that settles uncertain is judged against the writes of its tool that arrived while it was in flight
 * with a bounded number of comparisons, R-6, `uncertain-tracker.ts`); the report is a view of the accumulated state
 * (`report.ts`), and readers outside see that state only through read-only views.
 */
import {
  answerFingerprint,
  newAttempt,
  type ArrivalContext,
  type Attempt,
  type CallClass,
  type ExecutionOutcome,
} from './attempt.js';
import {
  requestKey,
  type CallOrigin,
  type ModelSide,
  type PendingCall,
  type RepeatAttribution,
  type RepeatSource,
  type RuntimeSignal,
} from './attribution.js';
import type { ToolClass } from './classification.js';
import { behaviourOf, retryWindowSeconds, type FaultKind, type FaultSettings, type InjectedResult } from './faults/index.js';
import { FaultPlan, faultSettingsOf, type PlanView, type ScenarioConfig } from './faults/fault-plan.js';
import { drawLatency, TimingLog } from './timing.js';
import { ChangeSet } from './change-set.js';
import { canonicalJson } from './json.js';
import { KeyFieldMatcher } from './key-fields.js';
import { ObservationCounter, type ObservationsView } from './observations.js';
import { identifyOperation, previewArgs } from './operation.js';
import {
  OperationState,
  type Contribution,
  type OperationView,
  ZERO_CONTRIBUTION,
  assessOperation,
  observationOf,
} from './operation-state.js';
import { RetryWindows } from './retry-windows.js';
import { SessionTotals, type TotalsView } from './session-totals.js';
import { UncertainTracker, type PairFinding, type Uncertainty } from './uncertain-tracker.js';
import type { Clock, RandomSource } from './time-and-chance.js';

/** What the session needs to know about the upstream's tools. */
export interface ToolCatalog {
  /** The class of a listed tool; a name the upstream did not list is 'unclassified'. */
  classOf(name: string): ToolClass;
  /** Whether the tool's input schema declares a key field. */
  acceptsKey(name: string): boolean;
  /**
   * whether the write tool is annotated `idempotentHint: true` and the hint is honoured (an
   * identical re-send is then no duplicate). Absent: no tool is.
   */
  isIdempotent?(name: string): boolean;
}

export interface SessionSettings {
  scenario: ScenarioConfig;
  keyFields: readonly string[];
}

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
  /** who sent a repeated write attempt; null for an operation's first attempt and for other calls. */
  source: RepeatSource | null;
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
}

/** The session's events of one attempt, reachable only through its {@link CallAttempt}. */
interface AttemptEvents {
  forwarded(attemptId: number): void;
  answered(attemptId: number, outcome: ExecutionOutcome): InjectedResult | null;
  delivered(attemptId: number): void;
  cancelled(attemptId: number): void;
}

class AttemptHandle implements CallAttempt {
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
  get source(): RepeatSource | null {
    return this.decision.source;
  }

  forwarded(): void {
    if (!this.decision.forward || this.wasForwarded || this.wasDelivered) this.outOfOrder('forwarded');
    this.wasForwarded = true;
    this.events.forwarded(this.decision.attemptId);
  }

  answered(outcome: ExecutionOutcome): InjectedResult | null {
    if (!this.wasForwarded || this.wasAnswered) this.outOfOrder('answered');
    this.wasAnswered = true;
    return this.events.answered(this.decision.attemptId, outcome);
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

export class EvaluationSession {
  // Everything below changes only through the session's own events (`mutate()` keeps the totals in step);
  // readers get read-only views (the getters after the constructor).
  private readonly counters = new SessionTotals();
  private readonly observationCounter = new ObservationCounter();
  private readonly ops = new Map<string, OperationState>();
  /** Operations currently in violation or with an observation, kept so the report never scans all. */
  private readonly violatingOps = new Set<OperationState>();
  private readonly observedOps = new Set<OperationState>();
  private readonly faultPlan: FaultPlan;
  private readonly keyMatcher: KeyFieldMatcher;
  private readonly open = new Map<number, Attempt>();
  /** the full canonical arguments (key fields included) of open write attempts of idempotent tools. */
  private readonly forms = new Map<number, string>();
  private readonly awaitingRead = new Set<OperationState>();
  private readonly uncertain = new UncertainTracker();
  private readonly retryWindows = new RetryWindows();
  private readonly unclassifiedSeen = new Map<string, Set<string>>();
  /** One record of changed operations per reader (see `recordChanges`). */
  private readonly changeSets: ChangeSet[] = [];
  /** Per-attempt timing (latency, hold, cancellation;); empty unless one of them happened. */
  private readonly timingLog = new TimingLog();
  /** the report's `attribution[]` entries as JSON, comma-separated, appended as repeats arrive. */
  private attributionText = '';
  private attributionCount = 0;
  /** Calls a replayed recording had no answer for (`--upstream-replay`): the session then cannot be judged. */
  private replayMissCount = 0;
  private nextId = 1;
  private seq = 0;
  private lastReadSeq = -1;
  private ended = false;

  constructor(
    readonly settings: SessionSettings,
    private readonly catalog: ToolCatalog,
    private readonly clock: Clock,
    private readonly random: RandomSource,
    /** the model's side of the agent (the built-in loop, the model gateway); null: not seen (plain proxy). */
    private readonly modelSide: ModelSide | null = null,
  ) {
    this.faultPlan = new FaultPlan(settings.scenario, random);
    this.keyMatcher = new KeyFieldMatcher(settings.keyFields);
  }

  /** Running totals of the session (the verdict and the score are computed from these). */
  get totals(): TotalsView {
    return this.counters;
  }

  /** Calls a replayed recording had no answer for; any makes the verdict NOT_TESTED ("replay miss"). */
  get replayMisses(): number {
    return this.replayMissCount;
  }

  /** Tool-level observations counted so far. */
  get toolObservations(): ObservationsView {
    return this.observationCounter;
  }

  /** Every operation, by identity, in order of first arrival. */
  get operations(): ReadonlyMap<string, OperationView> {
    return this.ops;
  }

  /** Operations currently in violation (FAIL causes). */
  get violating(): ReadonlySet<OperationView> {
    return this.violatingOps;
  }

  /** Operations that currently earn an operation-level observation. */
  get observed(): ReadonlySet<OperationView> {
    return this.observedOps;
  }

  /** The fault plan: the configuration, whether it triggered and how often it was applied. */
  get plan(): PlanView {
    return this.faultPlan;
  }

  /** The attempts that had a latency, a held answer or a cancellation, in order of delivery. */
  get timing(): TimingLog {
    return this.timingLog;
  }

  /** whether the model's side of the agent is seen (then every repeat's source is decided). */
  get modelSeen(): boolean {
    return this.modelSide?.seen === true;
  }

  /** the `attribution[]` entries so far, as comma-separated JSON (the report document's bytes). */
  get attributionJson(): string {
    return this.attributionText;
  }

  /** every repeated write attempt so far and who sent it, in order of arrival. */
  attribution(): RepeatAttribution[] {
    return this.attributionCount === 0 ? [] : (JSON.parse(`[${this.attributionText}]`) as RepeatAttribution[]);
  }

  /** True once `finish()` ran: calls still open then have an unknown outcome. */
  get finished(): boolean {
    return this.ended;
  }

  /**
   * A `tools/call` arrived from the agent. Decides the fault synchronously and answers the
   * attempt's handle, through which the caller reports the call's later steps.
   */
  receive(tool: string, args: unknown, origin: CallOrigin = NO_ORIGIN): CallAttempt {
    return new AttemptHandle(this.arrive(tool, args, origin), this.events);
  }

  private readonly events: AttemptEvents = {
    forwarded: (id) => this.forwardedEvent(id),
    answered: (id, outcome) => this.answeredEvent(id, outcome),
    delivered: (id) => this.deliveredEvent(id),
    cancelled: (id) => {
      const attempt = this.open.get(id);
      if (attempt === undefined) return;
      attempt.cancelled = true;
      const op = attempt.opKey === null ? undefined : this.ops.get(attempt.opKey);
      if (op !== undefined && op.lastId === attempt.id) op.lastCancelled = true;
      this.timingLog.cancelled(id, attempt.tool, attempt.receivedAt, this.clock.now());
    },
  };

  private arrive(tool: string, args: unknown, origin: CallOrigin): CallDecision {
    const id = this.nextId++;
    const callClass: CallClass = this.catalog.classOf(tool);
    this.counters.countCall(callClass);
    const scenario = this.settings.scenario;
    const fault = callClass === 'unclassified' ? null : this.faultPlan.decide(callClass, tool);
    const behaviour = behaviourOf(fault);
    const forward = behaviour === null || behaviour.forwards;
    const injected = forward ? null : (behaviour?.injected?.(this.faultSettings()) ?? null);
    // Drawn on arrival, in arrival order, from the seeded source: the same seed repeats the same latencies.
    const delayMs = forward && scenario.latency !== undefined ? drawLatency(scenario.latency, this.random) : 0;
    const holdMs = behaviour?.holdsReplacement === true ? (scenario.holdMs ?? 0) : 0;
    const now = this.clock.now();
    if (scenario.latency !== undefined || holdMs > 0)
      this.timingLog.arrived(id, tool, now, forward && scenario.latency !== undefined ? delayMs : null, holdMs);
    let operation: number | null = null;
    let source: RepeatSource | null = null;
    if (callClass === 'write') ({ operation, source } = this.receiveWrite(id, tool, args, fault, forward, now, origin));
    else this.receiveOther(id, tool, callClass, args, fault, forward, now, origin);
    return { attemptId: id, callClass, operation, fault, forward, injected, delayMs, holdMs, source };
  }

  private forwardedEvent(attemptId: number): void {
    const attempt = this.open.get(attemptId);
    if (attempt !== undefined) attempt.forwardedAt = this.clock.now();
  }

  private answeredEvent(attemptId: number, outcome: ExecutionOutcome): InjectedResult | null {
    const attempt = this.open.get(attemptId);
    if (attempt === undefined || attempt.status !== 'in-flight') return null;
    attempt.upstreamAnsweredAt = this.clock.now();
    const replacement =
      outcome.kind === 'executed' ? (behaviourOf(attempt.fault)?.replaceExecuted?.(this.faultSettings()) ?? null) : null;
    if (replacement !== null) this.timingLog.replaced(attemptId, attempt.upstreamAnsweredAt);
    this.settle(attempt, outcome, replacement !== null);
    if (attempt.deliveredSeq !== null) this.open.delete(attemptId);
    return replacement;
  }

  private deliveredEvent(attemptId: number): void {
    const attempt = this.open.get(attemptId);
    if (attempt === undefined || attempt.deliveredSeq !== null) return;
    attempt.deliveredAt = this.clock.now();
    attempt.deliveredSeq = this.seq++;
    this.timingLog.delivered(attemptId, attempt.deliveredAt, attempt.status);
    if (attempt.opKey !== null) {
      const op = this.ops.get(attempt.opKey)!;
      if (this.modelSide !== null) attempt.userTurns = this.modelSide.userTurns;
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

  /** The session ended: calls still in flight have an unknown outcome. */
  finish(): void {
    if (this.ended) return;
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
    const changes = new ChangeSet();
    this.changeSets.push(changes);
    return changes;
  }

  /** Names of tools called while unclassified (listed as such, or not listed by the upstream). */
  unclassifiedCalled(): IterableIterator<string> {
    return this.unclassifiedSeen.keys();
  }

  private faultSettings(): FaultSettings {
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
      parallel: op.pendingForAgent > 0,
      verifiedBefore: op.failureSeq >= 0 && op.verified,
    };
    const attempt = this.newAttempt(id, tool, 'write', identity.opKey, identity.key, fault, forward, now, context, origin);
    this.open.set(id, attempt);
    this.attribute(op, attempt, args, now);
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

  /**
   * who sent the attempt, decided on arrival (see `attribution.ts` for the rule): takes the model's
   * tool call it carries out, and for a repeat records its source and the report's `attribution[]` entry.
   * Constant time. Runs before the attempt counts as pending, so "unanswered" means the earlier ones.
   */
  private attribute(op: OperationState, attempt: Attempt, args: unknown, now: number): void {
    const sameRequest = attempt.requestId !== null && op.requestIdSeen(requestKey(attempt.session, attempt.requestId));
    const requested = sameRequest ? undefined : this.takeToolCall(attempt, args);
    const repeat = op.lastId !== 0;
    // Unanswered attempts per MCP session, counted only once a second session is seen.
    if (!repeat) op.firstSession = attempt.session;
    else if (op.pendingBySession === null && attempt.session !== op.firstSession)
      op.pendingBySession = new Map([[op.firstSession, op.pendingForAgent]]);
    const bySession = op.pendingBySession;
    const pendingHere = bySession === null ? op.pendingForAgent : (bySession.get(attempt.session) ?? 0);
    bySession?.set(attempt.session, pendingHere + 1);
    if (repeat) this.attributeRepeat(op, attempt, requested, sameRequest, op.pendingForAgent - pendingHere > 0, now);
    // This attempt is the earlier one of the next repeat.
    op.lastId = attempt.id;
    op.lastSession = attempt.session;
    op.lastAt = attempt.receivedAt;
    op.lastDelivered = false;
    op.lastCancelled = false;
    op.lastToolCalled = attempt.toolCallId !== null;
    op.lastUserTurns = attempt.userTurns;
  }

  /** A repeated attempt's source and its `attribution[]` entry; `op.last*` still describe the earlier attempt. */
  private attributeRepeat(
    op: OperationState,
    attempt: Attempt,
    requested: PendingCall | undefined,
    sameRequest: boolean,
    otherSession: boolean,
    now: number,
  ): void {
    let signal: RuntimeSignal | null = null;
    if (sameRequest) signal = 'same-request-id';
    else if (requested === undefined && otherSession) signal = 'other-session-unanswered';
    else if (requested === undefined && this.modelSeen) signal = op.lastToolCalled ? 'same-tool-call-twice' : 'unrequested-call';
    const source: RepeatSource =
      signal !== null
        ? 'runtime'
        : requested === undefined
          ? 'unknown'
          : requested.userTurnsBefore > op.lastUserTurns
            ? 'user'
            : 'model';
    attempt.source = source;
    attempt.signal = signal;
    const entry: RepeatAttribution = {
      operation: op.ordinal,
      tool: attempt.tool,
      attempt: attempt.id,
      session: attempt.session,
      source,
      evidence: {
        earlierAttempt: op.lastId,
        earlierSession: op.lastSession,
        sinceEarlierMs: now - op.lastAt,
        earlierDelivered: op.lastDelivered,
        earlierCancelled: op.lastCancelled,
        ...(requested !== undefined ? { modelAnswer: requested.exchange, toolCallId: requested.id } : {}),
        ...(signal !== null ? { signal } : {}),
        ...(attempt.requestId !== null ? { requestId: attempt.requestId } : {}),
      },
    };
    this.attributionText += `${this.attributionCount++ === 0 ? '' : ','}${JSON.stringify(entry)}`;
  }

  /** The model's tool call an arriving call carries out, marked as carried out; none without a model side. */
  private takeToolCall(attempt: Attempt, args: unknown): PendingCall | undefined {
    if (this.modelSide === null) return undefined;
    const requested = this.modelSide.take(attempt.tool, canonicalJson(args ?? {}));
    attempt.toolCallId = requested?.id ?? null;
    attempt.userTurns = this.modelSide.userTurns;
    return requested;
  }

  private readonly keyedTools = new Set<string>();

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
    this.takeToolCall(attempt, args);
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
      if (op.rejected > 0) op.resentAfterRejection = true;
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
    attempt.agentSawTimeout = ghost || (outcome.kind === 'unknown' && outcome.reason === 'timeout');
    // The agent got the fault's failure instead of the upstream's answer (the call was not forwarded).
    const injectedFailure = behaviourOf(attempt.fault)?.forwards === false;
    attempt.agentSawFailure = ghost || injectedFailure || outcome.kind !== 'executed';
    if (outcome.kind === 'unavailable' && outcome.replayMiss === true) this.replayMissCount++;
    if (attempt.callClass === 'read') this.settleRead(attempt, outcome);
    // A forwarding fault (F1, F4) on a call that never reached the upstream was not applied.
    const unapplied = attempt.forwarded && attempt.fault !== null && outcome.kind === 'unavailable';
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

const NO_ORIGIN: CallOrigin = Object.freeze({ session: 1 });
const NO_CONTEXT: ArrivalContext = Object.freeze({ afterTimeout: false, parallel: false, verifiedBefore: false });

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
