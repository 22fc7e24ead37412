/**
 * Who sent a write again: for every repeated attempt of a write operation (every attempt after the
 * operation's first), whether the model asked for it again (`model`), the model after a user turn
 * (`user`), nobody did and the runtime re-sent it (`runtime`: a client, SDK, framework or proxy carried
 * out one tool call twice, sent a call no model answer requested, re-sent the same JSON-RPC request, or
 * sent the write again in another MCP session while the first was unanswered), or the harness cannot tell
 * (`unknown`), with the evidence.
 *
 * The session decides it online, when the repeated attempt arrives (`EvaluationSession.receive`), in
 * constant time: it keeps, per operation, its last attempt, the MCP sessions of its unanswered attempts
 * and its last JSON-RPC request ids; and, when a model side is attached ({@link ModelSide}: the built-in
 * loop or the model gateway), the tool calls the model answers asked for and the user turns. The rule:
 * - the same JSON-RPC request id as an earlier attempt of the operation, in the same MCP session: `runtime`
 *   (`same-request-id`), with or without the model's side;
 * - with the model's side: each tool call of a model answer may be carried out once; an MCP call takes the
 *   first tool call not yet carried out with the same tool and the same canonical arguments (or, when a
 *   framework rewrote the arguments, the first one of the same tool). A repeat that takes one is `user`
 *   when a user turn came between the earlier attempt's delivery and that model answer, else `model` (two
 *   identical tool calls in one answer are the model's too). A repeat that takes none is `runtime`:
 *   `other-session-unanswered` when it came in another MCP session while an earlier attempt was
 *   unanswered, else `same-tool-call-twice` when the earlier attempt carried out a tool call, else
 *   `unrequested-call`;
 * - without it (plain `proxy`): `runtime` only on the decisive signals (`same-request-id`, or
 *   `other-session-unanswered`: several MCP sessions of one agent are one evaluation only in a trial of an
 *   agent program; `proxy --listen` judges each MCP session alone), everything else `unknown`.
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

/**
 * What the model side tells the session, in the order it happened: a user turn, or a model
 * answer (its number in the run) with the tool calls it asks for — told before any of them is made.
 */
export type ModelSideEvent =
  { kind: 'user-turn' } | { kind: 'model-answer'; exchange: number; toolCalls: readonly RequestedCall[] };

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
    /** Whether the earlier attempt's answer had reached the agent when this one was sent (never when the agent cancelled it). */
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

/**
 * The sources of a report's duplicates (each `DUPLICATE_EXECUTION` violation's `duplicate.source`), each
 * once, in the order of {@link REPEAT_SOURCES}; a violation without one (a file written before
 * attribution) counts as `unknown`. Reads loose shapes: files are read back by `stats`.
 */
export function duplicateSourcesOf(
  violations: ReadonlyArray<{ type?: unknown; duplicate?: { source?: unknown } }>,
): RepeatSource[] {
  const seen = new Set<RepeatSource>();
  for (const v of violations) {
    if (v.type !== 'DUPLICATE_EXECUTION') continue;
    const source = v.duplicate?.source;
    seen.add(REPEAT_SOURCES.includes(source as RepeatSource) ? (source as RepeatSource) : 'unknown');
  }
  return REPEAT_SOURCES.filter((s) => seen.has(s));
}

/** A tool call of a model answer, waiting to be carried out. */
export interface PendingCall extends RequestedCall {
  exchange: number;
  /** User turns the model had seen when it answered. */
  userTurnsBefore: number;
  used: boolean;
}

/** A queue that is only appended to and taken from in order; used entries are skipped lazily. */
interface Queue {
  items: PendingCall[];
  head: number;
}

function firstUnused(queue: Queue | undefined): PendingCall | undefined {
  if (queue === undefined) return undefined;
  while (queue.head < queue.items.length && queue.items[queue.head]!.used) queue.head++;
  const found = queue.items[queue.head];
  // Drop the taken prefix now and then, so a long run does not keep every tool call it ever saw.
  if (queue.head > 64 && queue.head * 2 > queue.items.length) {
    queue.items = queue.items.slice(queue.head);
    queue.head = 0;
  }
  return found;
}

function push(map: Map<string, Queue>, key: string, call: PendingCall): void {
  const queue = map.get(key);
  if (queue === undefined) map.set(key, { items: [call], head: 0 });
  else queue.items.push(call);
}

/**
 * The model's side of an agent, as the harness sees it (the built-in loop, the model gateway): the tool
 * calls its answers asked for and the user turns. Fed by the application, read by the session when a call
 * arrives; every step costs constant time (amortised).
 */
export class ModelSide {
  private readonly byCall = new Map<string, Queue>();
  private readonly byTool = new Map<string, Queue>();
  private turns = 0;
  private fed = false;

  /**
   * `seenFromStart` false: the side counts as seen only once something was fed — `proxy --model-gateway`,
   * where the agent may not send its model requests through the gateway at all (then R-14.2's decisive
   * signals alone decide, as without a gateway).
   */
  constructor(private readonly seenFromStart = true) {}

  /** Whether the model's side is seen, so that a repeat no model answer asked for is the runtime's. */
  get seen(): boolean {
    return this.seenFromStart || this.fed;
  }

  /** User turns seen so far. */
  get userTurns(): number {
    return this.turns;
  }

  /** A model answer or a user turn, in the order they happened. */
  feed(event: ModelSideEvent): void {
    this.fed = true;
    if (event.kind === 'user-turn') {
      this.turns++;
      return;
    }
    for (const call of event.toolCalls) {
      const pending: PendingCall = { ...call, exchange: event.exchange, userTurnsBefore: this.turns, used: false };
      push(this.byCall, `${call.tool}\u0000${call.arguments}`, pending);
      push(this.byTool, call.tool, pending);
    }
  }

  /** The tool call an arriving MCP call carries out (and marks it so), or undefined when none asked for it. */
  take(tool: string, canonicalArguments: string): PendingCall | undefined {
    const found = firstUnused(this.byCall.get(`${tool}\u0000${canonicalArguments}`)) ?? firstUnused(this.byTool.get(tool));
    if (found !== undefined) found.used = true;
    return found;
  }
}

/** How many JSON-RPC request ids of an operation are remembered for `same-request-id` (the latest ones). */
export const REMEMBERED_REQUEST_IDS = 16;

/** The request id of an attempt as one comparable text (a number and a string of the same digits differ). */
export function requestKey(session: number, requestId: string | number): string {
  return `${session}\u0000${typeof requestId}\u0000${requestId}`;
}
