/**
 * Who sent a write again (the specification's R-14; it enters docs/requirements.md with the rest of it):
 * for every repeated attempt of a write operation, whether the model asked for it again (`model`), the model after a user turn (`user`), or nobody did and the runtime re-sent it
 * (`runtime`: a client, SDK, framework or proxy carried out one tool call twice, or sent a call no model
 * answer requested), with the evidence. It needs the model's side of the agent (the built-in loop or the
 * model gateway); without it every repeat is `unknown` here.
 *
 * The rule, over the events of one run in the order they happened:
 * - each tool call of a model answer may be carried out once: an MCP call takes the first tool call not
 *   yet carried out with the same tool and the same canonical arguments (or, when a framework rewrote the
 *   arguments, the first one of the same tool);
 * - a repeated attempt that takes no tool call is `runtime`;
 * - one that takes a tool call is `user` when a user turn came between the earlier attempt and the model
 *   answer that asked for it, else `model`.
 */

export type RepeatSource = 'model' | 'user' | 'runtime' | 'unknown';

/** The sources in the order every list and table shows them. */
export const REPEAT_SOURCES: readonly RepeatSource[] = ['model', 'user', 'runtime', 'unknown'];

/**
 * Why a repeat is `runtime` — the runtime behaviour its finding names:
 * - `same-request-id`: the same JSON-RPC request id was sent again in the same MCP session;
 * - `other-session-unanswered`: the repeat came in another MCP session of the same agent while the earlier
 *   attempt was still unanswered;
 * - `same-tool-call-twice`: (model side seen) the model's tool call was already carried out and no new one asked again;
 * - `unrequested-call`: (model side seen) no model answer asked for the call at all.
 */
export type RuntimeSignal = 'same-request-id' | 'other-session-unanswered' | 'same-tool-call-twice' | 'unrequested-call';

/** A tool call a model answer asked for; `arguments` is canonical JSON (or the raw text when it is none). */
export interface RequestedCall {
  id: string;
  tool: string;
  arguments: string;
}

/** What the model side tells the session: a model answer with its tool calls, or a user turn. */
export type ModelSideEvent =
  { kind: 'user-turn'; at: number } | { kind: 'model-answer'; at: number; exchange: number; toolCalls: readonly RequestedCall[] };

export type AgentEvent =
  | ModelSideEvent
  /** An MCP call as the harness received it; `operation` is the report's operation id (null for reads). */
  | { kind: 'call'; at: number; session: number; attempt: number; operation: number | null; tool: string; arguments: string }
  | { kind: 'delivered'; at: number; session: number; attempt: number; cancelled: boolean };

/** Where a call came from on the agent's side: its MCP session (1-based within the evaluation) and JSON-RPC id. */
export interface CallOrigin {
  session: number;
  /** The JSON-RPC request id of the `tools/call`; absent when the transport has none (in-process). */
  requestId?: string | number;
}

/** One repeated attempt of a write operation and who sent it: the report's `attribution[]`. */
export interface RepeatAttribution {
  operation: number;
  tool: string;
  /** The repeated attempt (its number in the session, as `attempt` in the journal) and its MCP session. */
  attempt: number;
  session: number;
  source: RepeatSource;
  evidence: {
    /** The attempt before it of the same operation. */
    earlierAttempt: number;
    earlierSession: number;
    sinceEarlierMs: number;
    /** Whether the earlier attempt's answer had reached the agent when this one was sent. */
    earlierDelivered: boolean;
    /** Whether the agent had cancelled the earlier attempt when this one was sent. */
    earlierCancelled: boolean;
    /** The model answer (its number) and tool call that asked for this attempt; only for `model` and `user`. */
    modelAnswer?: number;
    toolCallId?: string;
    /** `runtime` only: the decisive signal (the runtime behaviour). */
    signal?: RuntimeSignal;
    /** The JSON-RPC request id of this attempt, when the transport has one. */
    requestId?: string | number;
  };
}

interface Pending extends RequestedCall {
  exchange: number;
  at: number;
  used: boolean;
}

interface AttemptSeen {
  attempt: number;
  session: number;
  at: number;
  deliveredAt: number | null;
  cancelled: boolean;
}

const key = (session: number, attempt: number) => `${session}:${attempt}`;

/** The attribution of every repeated write attempt; `modelSeen` false: the harness did not see the model's side. */
export function attributeRepeats(events: readonly AgentEvent[], modelSeen: boolean): RepeatAttribution[] {
  const pending: Pending[] = [];
  const userTurns: number[] = [];
  const attempts = new Map<string, AttemptSeen>();
  const byOperation = new Map<number, AttemptSeen[]>();
  const out: RepeatAttribution[] = [];
  for (const event of events) {
    if (event.kind === 'user-turn') userTurns.push(event.at);
    else if (event.kind === 'model-answer')
      pending.push(...event.toolCalls.map((call) => ({ ...call, exchange: event.exchange, at: event.at, used: false })));
    else if (event.kind === 'delivered') {
      const seen = attempts.get(key(event.session, event.attempt));
      if (seen !== undefined) {
        seen.deliveredAt = event.at;
        seen.cancelled = event.cancelled;
      }
    } else {
      const requested =
        pending.find((p) => !p.used && p.tool === event.tool && p.arguments === event.arguments) ??
        pending.find((p) => !p.used && p.tool === event.tool);
      if (requested !== undefined) requested.used = true;
      if (event.operation === null) continue;
      const seen: AttemptSeen = {
        attempt: event.attempt,
        session: event.session,
        at: event.at,
        deliveredAt: null,
        cancelled: false,
      };
      attempts.set(key(event.session, event.attempt), seen);
      const earlierOnes = byOperation.get(event.operation) ?? [];
      byOperation.set(event.operation, [...earlierOnes, seen]);
      const earlier = earlierOnes.at(-1);
      if (earlier === undefined) continue;
      const userBetween = requested !== undefined && userTurns.some((t) => t >= earlier.at && t <= requested.at);
      const source: RepeatSource = !modelSeen ? 'unknown' : requested === undefined ? 'runtime' : userBetween ? 'user' : 'model';
      out.push({
        operation: event.operation,
        tool: event.tool,
        attempt: event.attempt,
        session: event.session,
        source,
        evidence: {
          earlierAttempt: earlier.attempt,
          earlierSession: earlier.session,
          sinceEarlierMs: event.at - earlier.at,
          earlierDelivered: earlier.deliveredAt !== null && earlier.deliveredAt <= event.at,
          earlierCancelled: earlier.cancelled,
          ...(requested !== undefined && modelSeen ? { modelAnswer: requested.exchange, toolCallId: requested.id } : {}),
        },
      });
    }
  }
  return out;
}
