/**
 * One call of the agent, from arrival to the answer it got. Every attempt has the same fields whatever
 * happened, so a reader never branches on missing ones.
 */
import type { RepeatSource, RuntimeSignal } from './attribution.js';
import type { FaultKind } from '../faults/index.js';
import { canonicalJson, hashText, isPlainObject, ownValue } from '../json.js';

/** The class a call was judged under. `audit` = the harness's own read-only report tools. */
export type CallClass = 'read' | 'write' | 'unclassified';

/**
 * What became of the call upstream: executed (answered without isError), rejected (isError),
 * unknown (no usable answer), not-executed (a fault was injected instead, or the upstream was gone),
 * or still in flight.
 */
export type AttemptStatus = 'in-flight' | 'executed' | 'rejected' | 'unknown' | 'not-executed';

/** Why an execution is unknown. */
export type UnknownReason =
  | 'timeout'
  | 'connection-lost'
  | 'protocol-error'
  | 'missing-structured-content'
  | 'too-large'
  | 'invalid-answer'
  | 'still-in-flight';

/**
 * What became of a forwarded call at the upstream, as the application reports it to the session.
 * Not a "verdict": in this code base that word names only the run's PASS / FAIL / NOT_TESTED.
 */
export type ExecutionOutcome =
  | { kind: 'executed'; answer: unknown }
  | { kind: 'rejected' }
  | { kind: 'unknown'; reason: UnknownReason }
  /** Not executed. `replayMiss`: a recording replayed in place of the upstream had no answer for the call. */
  | { kind: 'unavailable'; replayMiss?: true };

/** What the agent could know when it sent this attempt (for the details of a duplicate, R-2.4). */
export interface ArrivalContext {
  /** The same operation had already been answered to the agent with a timeout. */
  afterTimeout: boolean;
  /**
   * The same operation had already been answered to the agent with an error after the upstream executed
   * it (F7's 500 after the write): the harness knows the write was done.
   */
  afterExecutedError: boolean;
  /** Another attempt of the same operation was still unanswered to the agent. */
  parallel: boolean;
  /** A successful read happened after the operation's last failure and before this attempt. */
  verifiedBefore: boolean;
}

export interface Attempt {
  readonly id: number;
  readonly tool: string;
  readonly callClass: CallClass;
  /** The operation identity (write calls only). */
  readonly opKey: string | null;
  /** The idempotency key value(s) the agent sent, joined; null when none. */
  readonly key: string | null;
  /** The fault applied to this call, if any (F4 marks its two pass-through writes). */
  readonly fault: FaultKind | null;
  /** Whether the call was sent to the upstream. */
  readonly forwarded: boolean;
  readonly context: ArrivalContext;
  status: AttemptStatus;
  unknownReason: UnknownReason | null;
  /** The agent was told the call failed (injected fault, isError, no usable answer, ghost timeout). */
  agentSawFailure: boolean;
  /** The agent was told the call timed out (F1's ghost write, or the proxy's own wait running out). */
  agentSawTimeout: boolean;
  /** The upstream executed the call and the agent was told an error instead (F7). */
  agentSawExecutedError: boolean;
  /**
   * A late-landing write (F6): the agent got its time-out at once, the call reached the upstream later
   * (`forwardedAt`) and the upstream answered at `upstreamAnsweredAt` (the landing).
   */
  landsLate: boolean;
  /**
   * F6: the late-landing write of the same operation (its attempt id) that was still waiting to land when
   * this write arrived; null otherwise.
   */
  besideLate: number | null;
  readonly receivedAt: number;
  forwardedAt: number | null;
  upstreamAnsweredAt: number | null;
  deliveredAt: number | null;
  /** Event sequence number of arrival and delivery, to order events that share a timestamp. */
  readonly receivedSeq: number;
  deliveredSeq: number | null;
  /** the MCP session it came in (1-based within the evaluation) and its JSON-RPC request id (null: none). */
  readonly session: number;
  readonly requestId: string | number | null;
  /** The agent cancelled it (MCP `notifications/cancelled`). */
  cancelled: boolean;
  /** the model's tool call it carried out (model side seen), else null. */
  toolCallId: string | null;
  /** user turns the model side had seen at its arrival, then at its delivery. */
  userTurns: number;
  /** who sent it, for a repeated attempt of a write (null for the operation's first attempt and other calls). */
  source: RepeatSource | null;
  signal: RuntimeSignal | null;
}

/** The fields fixed when an attempt arrives. */
export type ArrivalFacts = Pick<
  Attempt,
  | 'id'
  | 'tool'
  | 'callClass'
  | 'opKey'
  | 'key'
  | 'fault'
  | 'forwarded'
  | 'context'
  | 'receivedAt'
  | 'receivedSeq'
  | 'session'
  | 'requestId'
>;

/** A new attempt, still in flight. */
export function newAttempt(facts: ArrivalFacts): Attempt {
  // Field by field, not a spread: one object shape for every attempt (the spread showed up in profiles).
  return {
    id: facts.id,
    tool: facts.tool,
    callClass: facts.callClass,
    opKey: facts.opKey,
    key: facts.key,
    fault: facts.fault,
    forwarded: facts.forwarded,
    context: facts.context,
    receivedAt: facts.receivedAt,
    receivedSeq: facts.receivedSeq,
    status: 'in-flight',
    unknownReason: null,
    agentSawFailure: false,
    agentSawTimeout: false,
    agentSawExecutedError: false,
    landsLate: false,
    besideLate: null,
    forwardedAt: null,
    upstreamAnsweredAt: null,
    deliveredAt: null,
    deliveredSeq: null,
    session: facts.session,
    requestId: facts.requestId,
    cancelled: false,
    toolCallId: null,
    userTurns: 0,
    source: null,
    signal: null,
  };
}

/**
 * What two executions' answers are compared on (R-2.4 `upstreamResponsesIdentical`): the content and the
 * structured content of the tool result, key order ignored; `_meta` and extras are left out. Computed only
 * for write calls, the only ones compared.
 */
export function answerFingerprint(answer: unknown): string {
  const facts = isPlainObject(answer)
    ? { content: ownValue(answer, 'content'), structuredContent: ownValue(answer, 'structuredContent') }
    : answer;
  return hashText(canonicalJson(facts));
}
