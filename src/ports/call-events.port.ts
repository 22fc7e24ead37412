/**
 * The steps of every call, as the call pipeline goes through them: the observer port behind the journal
 * (`--journal`, `docs/journal.md`) and the per-call lines of `--log-level info`. The pipeline tells a
 * {@link CallEventSink} each step synchronously, in order; a sink must be cheap and must not throw (the
 * pipeline does not wait for it, and a sink that cannot write says so itself, once).
 *
 * An event carries references to the call's arguments and results, never copies: whether they are
 * written anywhere is the sink's decision (the journal writes them only with `--journal-payloads`).
 */
import type { CallClass, UnknownReason } from '../domain/judging/attempt.js';
import type { FaultKind } from '../domain/faults/index.js';
import type { RepeatSource } from '../domain/judging/attribution.js';
import type { ToolCallResult } from './shapes/mcp-shapes.js';

/**
 * The steps of one call, in the order they can happen (`injected` and `forwarded` exclude each other;
 * `asked`, R-17: the upstream asked the agent something while the forwarded call was in flight, between
 * `forwarded` and `answered`, as often as it asked).
 */
export type CallStep = 'received' | 'injected' | 'forwarded' | 'asked' | 'answered' | 'delivered';

/** What the upstream did with a forwarded call, as judged. */
export type UpstreamVerdict = 'executed' | 'rejected' | 'unknown' | 'unavailable';

/**
 * What the agent was told: the upstream's answer, a failure (`isError`), a timeout (F1, the proxy's own
 * wait), or nothing because it cancelled the call first (`cancelled`).
 */
export type AgentTold = 'answer' | 'error' | 'timeout' | 'cancelled';

export interface CallEvent {
  step: CallStep;
  /** Clock time of the step (milliseconds since the epoch with the system clock). */
  at: number;
  /** The attempt's number in its session (1-based, every call counts, reads too). */
  attempt: number;
  tool: string;
  callClass: CallClass;
  /** The write's operation number (the report's `operations[].id`); null for reads and unclassified calls. */
  operation: number | null;
  /** The fault the session decided for this call at receipt (F4 marks its pass-through writes too). */
  fault: FaultKind | null;
  /** `answered`: what the upstream did; `delivered`: the same, or null when the call never reached it. */
  upstream?: UpstreamVerdict | null;
  /** `answered` with `upstream: "unknown"`: why. */
  reason?: UnknownReason;
  /** `answered`: the upstream's answer is replaced by the fault's (F1's timeout after a ghost write). */
  replaced?: boolean;
  /** `delivered`: what the agent got. */
  told?: AgentTold;
  /** `received` of a repeated write attempt: who sent it again; absent on other lines. */
  source?: RepeatSource;
  /**
   * `received` (F6): the write arrived while the late write of its operation (this attempt number) was
   * still waiting to land; absent otherwise.
   */
  besideLate?: number;
  /**
   * `answered` (F6) of a late write or a write beside one that executed: which execution of the operation
   * it was at the upstream, 1, 2, … in landing order; absent otherwise.
   */
  execution?: number;
  /**
   * `asked`: the upstream's request to the agent during the call (`elicitation/create`,
   * `sampling/createMessage`, `roots/list`) and how the agent answered: an elicitation's `action`
   * (`accept`, `decline`, `cancel`), otherwise `answered`, or `error <code>`. Never the payload.
   */
  asked?: { method: string; answer: string };
  /** `received`: the call's arguments, verbatim (a reference). */
  arguments?: unknown;
  /** `received`: the request's `params._meta`, when it has one (a reference; `--otel` reads its `traceparent`). */
  meta?: Record<string, unknown>;
  /** `received`: the JSON-RPC id of the agent's request, when the agent side knows it. */
  requestId?: string | number;
  /** `injected`, `answered` (the upstream's result, when it sent one) and `delivered`: the result (a reference). */
  result?: ToolCallResult;
}

/** Told every step of every call of one session. */
export interface CallEventSink {
  callEvent(event: CallEvent): void;
}
