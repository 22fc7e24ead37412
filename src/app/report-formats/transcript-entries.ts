/**
 * A run file's transcript read for the HTML view: each entry checked field by field (the file is
 * untrusted), both sides of the agent in one list in time order (`interleave`), and each MCP call linked
 * to the model answer whose tool call it carried out (`linkCalls`, R-14).
 */
import { ModelSide, type RepeatAttribution } from '../../domain/judging/attribution.js';
import { canonicalArguments, canonicalJson, isPlainObject, ownValue } from '../../domain/json.js';

export type ToolCall = { id: string; name: string; arguments: string };
export type Message = { role: string; content: string; toolCalls: ToolCall[]; toolCallId: string | null };

/** One transcript entry, checked: what the view knows how to draw. */
export type ViewEntry = { index: number; at: number | null } & (
  | { kind: 'system'; content: string }
  | { kind: 'user'; turn: number | null; content: string }
  | { kind: 'assistant'; content: string; toolCalls: ToolCall[] }
  | {
      kind: 'tool-result';
      callId: string;
      tool: string;
      isError: boolean;
      forwarded: boolean;
      content: string;
      /** What the upstream did (null: it never reached it); undefined in a file that does not record it. */
      upstream: string | null | undefined;
      told: string | null;
    }
  | { kind: 'note'; text: string }
  | {
      kind: 'mcp-call';
      session: number;
      attempt: number;
      tool: string;
      arguments: string;
      operation: number | null;
      /** The fault injected into it; undefined in a file that does not record it (older harness). */
      fault: string | null | undefined;
    }
  | {
      kind: 'model-request';
      exchange: number;
      format: string;
      model: string;
      stream: boolean;
      messages: Message[];
      tools: string[];
    }
  | {
      kind: 'model-answer';
      exchange: number;
      status: number | null;
      content: string;
      toolCalls: ToolCall[];
      error: string | null;
    }
  | { kind: 'other'; name: string }
);

const str = (o: Record<string, unknown>, key: string): string => {
  const v = ownValue(o, key);
  return typeof v === 'string' ? v : '';
};
const int = (o: Record<string, unknown>, key: string): number | null => {
  const v = ownValue(o, key);
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : null;
};
const list = (o: Record<string, unknown>, key: string): unknown[] => {
  const v = ownValue(o, key);
  return Array.isArray(v) ? v : [];
};

function toolCallsOf(o: Record<string, unknown>, argumentsKey: string): ToolCall[] {
  return list(o, 'toolCalls')
    .filter(isPlainObject)
    .map((c) => ({ id: str(c, 'id'), name: str(c, 'name'), arguments: str(c, argumentsKey) }));
}

function messageOf(value: unknown): Message | null {
  if (!isPlainObject(value)) return null;
  const callId = ownValue(value, 'toolCallId');
  return {
    role: str(value, 'role'),
    content: str(value, 'content'),
    toolCalls: toolCallsOf(value, 'argumentsText'),
    toolCallId: typeof callId === 'string' ? callId : null,
  };
}

/** The time of an entry in milliseconds since the epoch; null when it has none that parses. */
function timeOf(o: Record<string, unknown>): number | null {
  const at = ownValue(o, 'at');
  if (typeof at !== 'string') return null;
  const ms = Date.parse(at);
  return Number.isFinite(ms) ? ms : null;
}

/** One entry of a run file's transcript, checked field by field; an unknown kind is kept as `other`. */
export function readEntry(value: unknown, index: number): ViewEntry | null {
  if (!isPlainObject(value)) return null;
  const at = timeOf(value);
  const base = { index, at };
  const kind = str(value, 'kind');
  switch (kind) {
    case 'system':
      return { ...base, kind, content: str(value, 'content') };
    case 'user':
      return { ...base, kind, turn: int(value, 'turn'), content: str(value, 'content') };
    case 'assistant':
      return { ...base, kind, content: str(value, 'content'), toolCalls: toolCallsOf(value, 'arguments') };
    case 'tool-result': {
      const upstream = ownValue(value, 'upstream');
      const told = ownValue(value, 'told');
      return {
        ...base,
        kind,
        callId: str(value, 'callId'),
        tool: str(value, 'tool'),
        isError: ownValue(value, 'isError') === true,
        forwarded: ownValue(value, 'forwarded') !== false,
        content: str(value, 'content'),
        upstream: typeof upstream === 'string' ? upstream : Object.hasOwn(value, 'upstream') ? null : undefined,
        told: typeof told === 'string' ? told : null,
      };
    }
    case 'note':
      return { ...base, kind, text: str(value, 'text') };
    case 'mcp-call': {
      const fault = ownValue(value, 'fault');
      return {
        ...base,
        kind,
        session: int(value, 'session') ?? 0,
        attempt: int(value, 'attempt') ?? 0,
        tool: str(value, 'tool'),
        arguments: canonicalJson(ownValue(value, 'arguments') ?? null),
        operation: int(value, 'operation'),
        fault: typeof fault === 'string' ? fault : Object.hasOwn(value, 'fault') ? null : undefined,
      };
    }
    case 'model-request':
      return {
        ...base,
        kind,
        exchange: int(value, 'exchange') ?? 0,
        format: str(value, 'format'),
        model: str(value, 'model'),
        stream: ownValue(value, 'stream') === true,
        messages: list(value, 'messages')
          .map(messageOf)
          .filter((m): m is Message => m !== null),
        tools: list(value, 'tools').filter((t): t is string => typeof t === 'string'),
      };
    case 'model-answer': {
      const error = ownValue(value, 'error');
      return {
        ...base,
        kind,
        exchange: int(value, 'exchange') ?? 0,
        status: int(value, 'status'),
        content: str(value, 'content'),
        toolCalls: toolCallsOf(value, 'arguments'),
        error: typeof error === 'string' ? error : null,
      };
    }
    default:
      return { ...base, kind: 'other', name: kind };
  }
}

/**
 * The entries in time order: sorted by their time, entries of the same millisecond in their file order
 * (the sort is stable). An entry without a readable time keeps its place after the entry before it.
 */
export function interleave(entries: readonly unknown[]): ViewEntry[] {
  const read = entries.map(readEntry).filter((e): e is ViewEntry => e !== null);
  let last = Number.NEGATIVE_INFINITY;
  const keyed = read.map((entry) => {
    if (entry.at !== null) last = entry.at;
    return { entry, key: entry.at ?? last };
  });
  return keyed.sort((a, b) => a.key - b.key).map((k) => k.entry);
}

/** Which model answer's tool call an MCP call carried out: its exchange and the tool call's id. */
export interface AskedBy {
  exchange: number;
  toolCallId: string;
}

export const callKey = (session: number, attempt: number): string => `${session}:${attempt}`;

/**
 * Which model answer asked for each MCP call (`session:attempt` → answer): the attribution's evidence
 * where it names one, else the rule the session decided it with, replayed on the transcript
 * ({@link ModelSide}: the first tool call not yet carried out with the same tool and arguments, or the
 * same tool). A call no answer asked for has no entry.
 */
export function linkCalls(ordered: readonly ViewEntry[], attribution: readonly RepeatAttribution[]): Map<string, AskedBy> {
  const byRepeat = new Map(attribution.map((a) => [callKey(a.session, a.attempt), a]));
  const model = new ModelSide();
  const links = new Map<string, AskedBy>();
  for (const e of ordered) {
    if (e.kind === 'model-answer')
      model.feed({
        kind: 'model-answer',
        exchange: e.exchange,
        toolCalls: e.toolCalls.map((c) => ({ id: c.id, tool: c.name, arguments: canonicalArguments(c.arguments) })),
      });
    if (e.kind !== 'mcp-call') continue;
    const key = callKey(e.session, e.attempt);
    const evidence = byRepeat.get(key)?.evidence;
    // A repeat nobody asked for (runtime, or the model side unseen) took no tool call.
    if (evidence !== undefined && (evidence.modelAnswer === undefined || evidence.toolCallId === undefined)) continue;
    const taken = model.take(e.tool, e.arguments);
    if (evidence !== undefined) links.set(key, { exchange: evidence.modelAnswer!, toolCallId: evidence.toolCallId! });
    else if (taken !== undefined) links.set(key, { exchange: taken.exchange, toolCallId: taken.id });
  }
  return links;
}
