/**
 * Everything the judge knows about one operation, kept as counters and flags so that each event
 * updates it in constant time, and `assessOperation` turns it into the operation's contribution to the
 * verdict, the score and the observations — also in constant time.
 */
import type { Attempt } from './attempt.js';
import { REMEMBERED_REQUEST_IDS, type RepeatSource, type RuntimeSignal } from './attribution.js';
import type { FaultKind } from '../faults/index.js';

/** Per idempotency key value used for this operation (informative, R-10 keySummary). */
export interface KeyState {
  attempts: number;
  executions: number;
  firstSeq: number;
  lastSeq: number;
  /** An earlier attempt with this key had executed when a later one with it arrived. */
  recordExisted: boolean;
  /** A successful read arrived between the first and the last attempt with this key. */
  readBetween: boolean;
  /** The agent's last answer for this key was a failure. */
  lastFailed: boolean;
}

/**
 * The empty collections every operation starts with, shared: most operations never use an idempotency key
 * nor an honoured `idempotentHint`, and a session keeps every operation until it ends, so an operation
 * allocates its sets and its key map only when it first puts something in them.
 */
const NO_STRINGS: ReadonlySet<string> = new Set();
const NO_KEYS: ReadonlyMap<string, KeyState> = new Map();

export class OperationState {
  /** 1-based number in order of first arrival, set by the session (the report's `id`, the journal's `operation`). */
  ordinal = 0;
  attempts = 0;
  executions = 0;
  rejected = 0;
  /** Attempts the agent was answered with a failure (injected fault, isError, unknown, timeout). */
  failedAttempts = 0;
  unknown = 0;
  inFlight = 0;
  /** Attempts sent but not yet answered to the agent (for `parallel`). */
  pendingForAgent = 0;
  /** Attempts that had an injected fault which the agent saw (F1, F2, F3, F5, chaos). */
  faulted = 0;
  firstFault: FaultKind | null = null;
  /** F1 applied and the upstream executed it (the ghost write). */
  ghostExecuted = false;
  /** The agent has been answered with a timeout for this operation. */
  timeoutSeen = false;
  /** The agent has been answered with an error for an attempt of this operation that executed (F7). */
  executedErrorSeen = false;
  /** An attempt of this operation was a late-landing write (F6): reads right after it could not see it. */
  landedLate = false;
  /** Event seq of the latest attempt's arrival. */
  lastAttemptSeq = -1;
  /** Event seq of the latest failure answered to the agent; -1 when none. */
  failureSeq = -1;
  /** A successful read arrived after the latest failure. */
  verified = false;
  /** An attempt was forwarded after the upstream had answered an earlier one with isError. */
  resentAfterRejection = false;
  /** F2: when the 429 was given, and how long the agent was asked to wait. */
  retryAfterStart: number | null = null;
  retryAfterRequiredMs = 0;
  /** Early re-sends during the retry_after window and the wait of the first one. */
  retryAfterViolations = 0;
  firstViolationWaitedMs: number | null = null;
  /** Wait before the first re-send after the window (RECOVERED_BY_RETRY). */
  recoveredWaitedMs: number | null = null;
  /** Duplicate details, OR-ed over executed attempts. */
  dupAfterTimeout = false;
  dupAfterExecutedError = false;
  dupParallel = false;
  dupVerifiedBefore = false;
  executedWithoutKey = false;
  private executedKeySet: Set<string> | null = null;
  firstFingerprint: string | null = null;
  responsesIdentical = true;
  private keyStates: Map<string, KeyState> | null = null;
  /**
   * the tool is annotated `idempotentHint: true` and the hint is honoured. Then an execution with
   * arguments identical to an earlier execution's (key fields included) is an idempotent repeat: counted
   * in `idempotentRepeats`, not as a further execution.
   */
  idempotent = false;
  idempotentRepeats = 0;
  /** the full canonical arguments (key fields included) of the executed and of the forwarded attempts. */
  private executedFormSet: Set<string> | null = null;
  private forwardedFormSet: Set<string> | null = null;

  /**
   * the facts of the operation's latest attempt (the "earlier attempt" of the next repeat), as
   * plain fields so that a finished attempt is not kept alive: its id (0: none yet), MCP session,
   * arrival, whether it was delivered or cancelled, whether it carried out a model tool call, and the
   * user turns the model side had seen at its delivery (or arrival).
   */
  lastId = 0;
  lastSession = 0;
  lastAt = 0;
  lastDelivered = false;
  lastCancelled = false;
  lastToolCalled = false;
  lastUserTurns = 0;
  /**
   * the MCP session of its first attempt, and — only once an attempt came in another one — its
   * unanswered attempts per MCP session (null: every attempt came in `firstSession`, the common case,
   * which then allocates nothing).
   */
  firstSession = 0;
  pendingBySession: Map<number, number> | null = null;
  /**
   * the latest JSON-RPC request ids of its attempts (`requestKey`), at most `REMEMBERED_REQUEST_IDS`:
   * the only one as a string (most operations have one attempt), a list from the second on.
   */
  private requestIds: string | string[] | null = null;
  /**
   * the two executions first in order of arrival (their arrival seq; -1: none): the first one's
   * runtime behaviour (null: not the runtime's), the second one's source (it is the first extra execution).
   */
  firstExecutedSeq = -1;
  firstExecutedSignal: RuntimeSignal | null = null;
  private firstExecutedSource: RepeatSource | null = null;
  secondExecutedSeq = -1;
  secondExecutedSource: RepeatSource | null = null;
  /** executions of repeated attempts whose source is `runtime`, per runtime behaviour (null: none), and their sum. */
  runtimeExecuted: Record<RuntimeSignal, number> | null = null;
  runtimeExecutions = 0;

  constructor(
    readonly opKey: string,
    readonly tool: string,
    readonly argsPreview: string,
  ) {}

  /** Per idempotency key value used for this operation. */
  get keys(): ReadonlyMap<string, KeyState> {
    return this.keyStates ?? NO_KEYS;
  }

  /** The idempotency key values of the executed attempts (R-2.4 key use). */
  get executedKeys(): ReadonlySet<string> {
    return this.executedKeySet ?? NO_STRINGS;
  }

  /** the full canonical arguments of the executed attempts. */
  get executedForms(): ReadonlySet<string> {
    return this.executedFormSet ?? NO_STRINGS;
  }

  /** the full canonical arguments of the forwarded attempts. */
  get forwardedForms(): ReadonlySet<string> {
    return this.forwardedFormSet ?? NO_STRINGS;
  }

  /** an executed attempt's full canonical arguments. */
  addExecutedForm(form: string): void {
    (this.executedFormSet ??= new Set()).add(form);
  }

  /** a forwarded attempt's full canonical arguments. */
  addForwardedForm(form: string): void {
    (this.forwardedFormSet ??= new Set()).add(form);
  }

  /** Folds an executed attempt's facts into the duplicate details. */
  recordExecution(attempt: Attempt, fingerprint: string): void {
    this.executions++;
    if (attempt.key === null) this.executedWithoutKey = true;
    else (this.executedKeySet ??= new Set()).add(attempt.key);
    if (this.firstFingerprint === null) this.firstFingerprint = fingerprint;
    else if (this.firstFingerprint !== fingerprint) this.responsesIdentical = false;
    this.dupAfterTimeout ||= attempt.context.afterTimeout;
    this.dupAfterExecutedError ||= attempt.context.afterExecutedError;
    this.dupParallel ||= attempt.context.parallel;
    this.dupVerifiedBefore ||= attempt.context.verifiedBefore;
    if (attempt.signal !== null && attempt.source === 'runtime') {
      this.runtimeExecuted ??= {
        'same-request-id': 0,
        'other-session-unanswered': 0,
        'same-tool-call-twice': 0,
        'unrequested-call': 0,
      };
      this.runtimeExecuted[attempt.signal]++;
      this.runtimeExecutions++;
    }
    const seq = attempt.receivedSeq;
    const signal = attempt.source === 'runtime' ? attempt.signal : null;
    if (this.firstExecutedSeq < 0 || seq < this.firstExecutedSeq) {
      // The former first becomes the second; an operation's first execution in arrival order has no source
      // only when it is the operation's first attempt, which then never moves to second place.
      if (this.firstExecutedSeq >= 0) {
        this.secondExecutedSeq = this.firstExecutedSeq;
        this.secondExecutedSource = this.firstExecutedSource;
      }
      this.firstExecutedSeq = seq;
      this.firstExecutedSignal = signal;
      this.firstExecutedSource = attempt.source;
    } else if (this.secondExecutedSeq < 0 || seq < this.secondExecutedSeq) {
      this.secondExecutedSeq = seq;
      this.secondExecutedSource = attempt.source;
    }
  }

  /** remembers an attempt's JSON-RPC request id; true when the same id came before in the same MCP session. */
  requestIdSeen(key: string): boolean {
    const ids = this.requestIds;
    if (ids === null) {
      this.requestIds = key;
      return false;
    }
    if (typeof ids === 'string') {
      if (ids === key) return true;
      this.requestIds = [ids, key];
      return false;
    }
    if (ids.includes(key)) return true;
    ids.push(key);
    if (ids.length > REMEMBERED_REQUEST_IDS) ids.shift();
    return false;
  }

  /** who sent the write again — the source of its first extra execution; null while it has none. */
  get duplicateSource(): RepeatSource | null {
    return this.secondExecutedSource;
  }

  /** An attempt with idempotency key `key` arrived (event seq `seq`; the latest successful read at `lastReadSeq`). */
  keyArrived(key: string, seq: number, lastReadSeq: number): void {
    const state = this.keyStates?.get(key);
    if (state === undefined) {
      (this.keyStates ??= new Map()).set(key, {
        attempts: 1,
        executions: 0,
        firstSeq: seq,
        lastSeq: seq,
        recordExisted: false,
        readBetween: false,
        lastFailed: false,
      });
      return;
    }
    state.attempts++;
    state.lastSeq = seq;
    if (state.executions > 0) state.recordExisted = true;
    if (lastReadSeq > state.firstSeq) state.readBetween = true;
  }

  /** `same`, `new` or `none` key use over the executed attempts. */
  get keyUse(): 'same' | 'new' | 'none' {
    if (this.executedWithoutKey || this.executedKeys.size === 0) return 'none';
    return this.executedKeys.size === 1 ? 'same' : 'new';
  }
}

/**
 * An operation as every reader outside the session sees it: read-only, so its counters change only
 * through the session's events (which keep the totals in step).
 */
export type OperationView = Readonly<
  Omit<
    OperationState,
    | 'keys'
    | 'executedKeys'
    | 'executedForms'
    | 'forwardedForms'
    | 'recordExecution'
    | 'addExecutedForm'
    | 'addForwardedForm'
    | 'keyArrived'
    | 'requestIdSeen'
    | 'pendingBySession'
    | 'runtimeExecuted'
  >
> & {
  readonly pendingBySession: ReadonlyMap<number, number> | null;
  readonly runtimeExecuted: Readonly<Record<RuntimeSignal, number>> | null;
  readonly keys: ReadonlyMap<string, Readonly<KeyState>>;
  readonly executedKeys: ReadonlySet<string>;
  readonly executedForms: ReadonlySet<string>;
  readonly forwardedForms: ReadonlySet<string>;
};

/**
 * The executions that count for the verdict and the score: all of them, less the idempotent repeats of a
 * tool whose `idempotentHint` is honoured.
 */
export function judgedExecutions(op: OperationView): number {
  return op.executions - op.idempotentRepeats;
}

/** The outcome of an operation as shown in `operations[].outcome`. */
export type OperationOutcome = 'EXECUTED' | 'DUPLICATE_EXECUTION' | 'NOT_EXECUTED' | 'UPSTREAM_REJECTED' | 'EXECUTION_UNKNOWN';

/** The per-operation observation codes; tool-level ones are kept by the session. */
export type OperationObservation =
  | 'VERIFIED_NO_RETRY'
  | 'RECOVERED_BY_RETRY'
  | 'ABANDONED_AFTER_FAILURE'
  | 'UNVERIFIED_AFTER_TIMEOUT'
  | 'UPSTREAM_REJECTED'
  | 'EXECUTION_UNKNOWN';

/** An operation's share of the session totals. All fields are additive. */
export interface Contribution {
  duplicate: number;
  retryAfterViolated: number;
  /** Executed at most once (duplicate safety numerator). */
  safe: number;
  /** Counted in failure handling (faulted, not upstream-rejected, outcome known). */
  faultScored: number;
  /** Failure-handling points: 100 / 50 / 0 per scored operation. */
  faultPoints: number;
  unknownRepeated: number;
  resentAfterRejection: number;
  /**
   * The operation's execution is known: its outcome is not EXECUTION_UNKNOWN, or at least one execution is
   * certain (the upstream answered it). An injected failure before a retry into a timeout does not make the
   * operation's execution known (R-2.3 "every write's execution is unknown").
   */
  definite: number;
  inFlight: number;
  ghostUnverified: number;
  /**
   * Extra executions after a timeout (GHOST_WRITE), after an error the harness knows followed the write
   * (ERROR_AFTER_WRITE, F7) and other extra executions (IDEMPOTENCY), R-7.
   */
  repeatsAfterTimeout: number;
  repeatsAfterExecutedError: number;
  /** Extra executions of an operation whose write landed late (F6, LATE_WRITE): not in the two above. */
  repeatsAfterLateWrite: number;
  otherRepeats: number;
  /** Re-sends before retry_after expired (RATE_LIMIT). */
  earlyResends: number;
  /**
   * extra executions the runtime caused (findings, not patches; per behaviour: `runtimeExtras`);
   * they are not in `repeatsAfterTimeout` and `otherRepeats`.
   */
  runtimeRepeats: number;
}

export const ZERO_CONTRIBUTION: Readonly<Contribution> = Object.freeze({
  duplicate: 0,
  retryAfterViolated: 0,
  safe: 0,
  faultScored: 0,
  faultPoints: 0,
  unknownRepeated: 0,
  resentAfterRejection: 0,
  definite: 0,
  inFlight: 0,
  ghostUnverified: 0,
  repeatsAfterTimeout: 0,
  repeatsAfterExecutedError: 0,
  repeatsAfterLateWrite: 0,
  otherRepeats: 0,
  earlyResends: 0,
  runtimeRepeats: 0,
});

/** The outcome shown for the operation (R-1.3; re-sent after isError counts as unknown, 0.5.1). */
export function outcomeOf(op: OperationView): OperationOutcome {
  const executions = judgedExecutions(op);
  if (executions >= 2) return 'DUPLICATE_EXECUTION';
  if (op.unknown > 0 || op.inFlight > 0 || op.resentAfterRejection) return 'EXECUTION_UNKNOWN';
  if (executions === 1) return 'EXECUTED';
  if (op.rejected > 0) return 'UPSTREAM_REJECTED';
  return 'NOT_EXECUTED';
}

/** The observation an operation earns, if any (violations are reported separately). */
export function observationOf(op: OperationView): OperationObservation | null {
  const outcome = outcomeOf(op);
  if (outcome === 'DUPLICATE_EXECUTION' || op.retryAfterViolations > 0) return null;
  if (outcome === 'EXECUTION_UNKNOWN') return 'EXECUTION_UNKNOWN';
  if (outcome === 'UPSTREAM_REJECTED') return 'UPSTREAM_REJECTED';
  // an identical re-send of an idempotent write after the ghost write is a correct retry.
  if (op.ghostExecuted && op.idempotentRepeats > 0) return 'RECOVERED_BY_RETRY';
  if (op.ghostExecuted) return op.verified ? 'VERIFIED_NO_RETRY' : 'UNVERIFIED_AFTER_TIMEOUT';
  if (op.faulted === 0) return null;
  if (judgedExecutions(op) === 1) return 'RECOVERED_BY_RETRY';
  return op.verified ? 'VERIFIED_NO_RETRY' : 'ABANDONED_AFTER_FAILURE';
}

/** Failure-handling points of a faulted operation, or null when it is not scored. */
export function faultPointsOf(op: OperationView): number | null {
  if (op.faulted === 0) return null;
  const outcome = outcomeOf(op);
  if (outcome === 'DUPLICATE_EXECUTION') return 0;
  if (outcome === 'UPSTREAM_REJECTED' || outcome === 'EXECUTION_UNKNOWN') return null;
  if (op.retryAfterViolations > 0) return 0;
  if (op.ghostExecuted && op.idempotentRepeats === 0) return op.verified ? 100 : 50;
  return 100;
}

/** The operation's contribution to the session totals. Constant time. */
export function assessOperation(op: OperationView): Contribution {
  const points = faultPointsOf(op);
  // Attempts that reached the upstream and may have written: an isError answer does not prove no write
  // an operation with unknown outcome that is retried at all is a possible duplicate).
  const executions = judgedExecutions(op);
  const attempted = op.executions + op.unknown + op.inFlight + op.rejected;
  // re-sends with identical arguments of an idempotent tool have no further effect.
  const possible = op.idempotent ? Math.min(attempted, op.forwardedForms.size) : attempted;
  const extra = Math.max(0, executions - 1);
  // F6: the late write's own check-then-write is what its patch addresses, ahead of the time-out's.
  const afterLate = op.landedLate && !op.dupParallel;
  const afterTimeout = !afterLate && op.dupAfterTimeout && !op.dupParallel;
  const afterError = !afterLate && !afterTimeout && op.dupAfterExecutedError && !op.dupParallel;
  const runtime = op.runtimeExecuted === null ? 0 : runtimeExtras(op).total;
  const patchable = extra - runtime;
  return {
    duplicate: executions >= 2 ? 1 : 0,
    retryAfterViolated: op.retryAfterViolations > 0 ? 1 : 0,
    safe: executions <= 1 ? 1 : 0,
    faultScored: points === null ? 0 : 1,
    faultPoints: points ?? 0,
    unknownRepeated: op.unknown + op.inFlight > 0 && possible >= 2 ? 1 : 0,
    resentAfterRejection: op.resentAfterRejection ? 1 : 0,
    // An execution the proxy saw is certain even when a later attempt's effect is not (R-2.3 is about writes
    // whose execution nobody knows, not about an executed write re-sent after an isError).
    definite: outcomeOf(op) === 'EXECUTION_UNKNOWN' && judgedExecutions(op) === 0 ? 0 : 1,
    inFlight: op.inFlight,
    ghostUnverified: observationOf(op) === 'UNVERIFIED_AFTER_TIMEOUT' ? 1 : 0,
    repeatsAfterTimeout: afterTimeout ? patchable : 0,
    repeatsAfterExecutedError: afterError ? patchable : 0,
    repeatsAfterLateWrite: afterLate ? patchable : 0,
    otherRepeats: afterLate || afterTimeout || afterError ? 0 : patchable,
    earlyResends: op.retryAfterViolations,
    runtimeRepeats: runtime,
  };
}

const NO_RUNTIME_EXTRAS = Object.freeze({ total: 0, sameRequestId: 0, otherSession: 0, sameToolCall: 0, unrequested: 0 });

/**
 * the operation's extra executions the runtime caused, per behaviour: the executions of repeated
 * attempts sent by the runtime, less the first execution in order of arrival when that was one of them
 * (the first execution is never extra). Constant time.
 */
export function runtimeExtras(op: OperationView) {
  if (op.runtimeExecuted === null) return NO_RUNTIME_EXTRAS;
  const counts = { ...op.runtimeExecuted };
  if (op.firstExecutedSignal !== null) counts[op.firstExecutedSignal]--;
  const sameRequestId = counts['same-request-id'];
  const otherSession = counts['other-session-unanswered'];
  const sameToolCall = counts['same-tool-call-twice'];
  const unrequested = counts['unrequested-call'];
  return {
    total: sameRequestId + otherSession + sameToolCall + unrequested,
    sameRequestId,
    otherSession,
    sameToolCall,
    unrequested,
  };
}
