/**
 * who sent each repeated write attempt of a session — the model, the user, the runtime or unknown
 * (`attribution.ts` holds the rule and the signals). Decided on arrival in constant time; keeps the
 * report's `attribution[]` entries as JSON, appended as repeats arrive.
 */
import type { Attempt } from './attempt.js';
import {
  requestKey,
  type ModelSide,
  type PendingCall,
  type RepeatAttribution,
  type RepeatSource,
  type RuntimeSignal,
} from './attribution.js';
import { canonicalJson } from '../json.js';
import type { OperationState } from './operation-state.js';

export class RepeatAttributor {
  /** The report's `attribution[]` entries as JSON, comma-separated, appended as repeats arrive. */
  private text = '';
  private count = 0;

  /** `modelSide`: the model's side of the agent (the built-in loop, the model gateway); null: not seen (plain proxy). */
  constructor(private readonly modelSide: ModelSide | null) {}

  /** whether the model's side of the agent is seen (then every repeat's source is decided). */
  get modelSeen(): boolean {
    return this.modelSide?.seen === true;
  }

  /** The `attribution[]` entries so far, as comma-separated JSON (the report document's bytes). */
  get json(): string {
    return this.text;
  }

  /** Every repeated write attempt so far and who sent it, in order of arrival. */
  entries(): RepeatAttribution[] {
    return this.count === 0 ? [] : (JSON.parse(`[${this.text}]`) as RepeatAttribution[]);
  }

  /**
   * Who sent the write attempt, decided on arrival: takes the model's tool call it carries out, and for a
   * repeat records its source and the report's `attribution[]` entry. Runs before the attempt counts as
   * pending, so "unanswered" means the earlier ones.
   */
  attribute(op: OperationState, attempt: Attempt, args: unknown, now: number): void {
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
    this.text += `${this.count++ === 0 ? '' : ','}${JSON.stringify(entry)}`;
  }

  /** The model's tool call an arriving call carries out, marked as carried out; none without a model side. */
  takeToolCall(attempt: Attempt, args: unknown): PendingCall | undefined {
    if (this.modelSide === null) return undefined;
    const requested = this.modelSide.take(attempt.tool, canonicalJson(args ?? {}));
    attempt.toolCallId = requested?.id ?? null;
    attempt.userTurns = this.modelSide.userTurns;
    return requested;
  }

  private readonly keyedTools = new Set<string>();

  /** The attempt was delivered to the agent: the user turns seen by then. */
  delivered(attempt: Attempt): void {
    if (this.modelSide !== null) attempt.userTurns = this.modelSide.userTurns;
  }
}
