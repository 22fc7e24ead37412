/**
 * A trial run's transcript as the HTML report draws it: both sides of the agent in one list, in time
 * order — model requests (the system prompt and what is new since the previous request; the whole
 * conversation folded), model answers (text, tool calls with their ids), MCP calls (fault injected, the
 * model answer and tool call that asked for it, who sent a repeated write: R-14) and their results, user
 * turns — as a trace viewer (Langfuse, LangSmith) shows a run. The run file is read as untrusted: every
 * field is checked before use, every string escaped when drawn, and every text is cut to a limit and the
 * whole page to a budget, so a conversation of tens of megabytes gives a page of a few.
 */
import { ModelSide, type RepeatAttribution, type RepeatSource } from '../../domain/attribution.js';
import { FAULTS } from '../../domain/faults/index.js';
import { canonicalArguments, canonicalJson, isPlainObject, ownValue } from '../../domain/json.js';
import type { SessionReportDocument } from '../../ports/report-documents.js';
import type { CheckedAttribution } from '../check/check-attribution.js';
import { htmlText as h } from './escape.js';
import { SOURCE_WORDS } from './words.js';

/** How much of a transcript the page draws (see docs/commands/check.md, `--html`). */
export const TRANSCRIPT_LIMITS = {
  /** Characters of one text in a row (a message, an answer, a result, arguments). */
  textChars: 2000,
  /** Characters of one message inside a request's folded whole conversation. */
  foldedMessageChars: 400,
  /** Messages of one folded whole conversation (its last ones). */
  foldedMessages: 60,
  /** Entries drawn per run. */
  rows: 2000,
  /**
   * Characters of transcript text (as escaped) the whole page draws, all runs together (each row also
   * costs {@link ROW_COST}); the last text drawn may pass it by one text's length.
   */
  pageChars: 4_000_000,
} as const;

/** What a drawn row costs the page's budget beyond its texts (its markup), so rows without text are bounded too. */
const ROW_COST = 200;

type ToolCall = { id: string; name: string; arguments: string };
type Message = { role: string; content: string; toolCalls: ToolCall[]; toolCallId: string | null };

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

const callKey = (session: number, attempt: number): string => `${session}:${attempt}`;

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

/** The characters the page may still draw, shared by every run of one page. */
export class TranscriptBudget {
  constructor(public left: number = TRANSCRIPT_LIMITS.pageChars) {}

  /** The text escaped, cut to `max` characters and to what the page has left, saying what was cut. */
  text(text: string, max: number = TRANSCRIPT_LIMITS.textChars): string {
    let room = Math.max(0, Math.min(max, this.left));
    if (text.length <= room) {
      const shown = h(text);
      // Charged as escaped: invisible characters drawn as `\uXXXX` are six characters each on the page.
      this.left = Math.max(0, this.left - shown.length);
      return shown;
    }
    const why = room < max ? "this page's transcript limit is reached" : `cut at ${max} characters`;
    // Never cut a surrogate pair in two.
    if (room > 0 && /[\ud800-\udbff]/.test(text[room - 1]!)) room -= 1;
    const shown = h(text.slice(0, room));
    this.left = Math.max(0, this.left - shown.length);
    return `${shown}<span class="cut">… (${text.length - room} more character(s) not shown: ${why}; the run file has them all)</span>`;
  }

  /** A row's fixed cost; false when the page has no room left for it. */
  row(): boolean {
    if (this.left < ROW_COST) return false;
    this.left -= ROW_COST;
    return true;
  }
}

const seconds = (ms: number): string => (ms < 1000 ? `${Math.round(ms)} ms` : `${(Math.round(ms / 10) / 100).toFixed(2)} s`);

const SOURCE_CLASS: Record<RepeatSource, string> = {
  model: 'src-model',
  user: 'src-user',
  runtime: 'src-runtime',
  unknown: 'src-unknown',
};

/** The runtime behaviour a `runtime` repeat's signal names (R-14), in words. */
const SIGNAL_WORDS: Record<string, string> = {
  'same-request-id': 'the same JSON-RPC request (same id) was sent again: the client or its transport retried it',
  'other-session-unanswered': 'sent again in another MCP session while the earlier attempt was unanswered (a second connection)',
  'same-tool-call-twice': "the model's one tool call was carried out twice",
  'unrequested-call': 'no model answer asked for this call',
};

/** A short value (an id, a tool name) escaped and cut to `max` characters. */
export function shortText(text: string, max = 120): string {
  return text.length <= max ? h(text) : `${h(text.slice(0, max))}…`;
}

/**
 * The badge and evidence of a repeated write: who sent it again, how long after which attempt, and why it
 * matters; `anchor` links the model answer that asked for it (null: the page does not draw that answer).
 */
export function attributionBadge(a: CheckedAttribution, anchor: ((exchange: number) => string) | null): string {
  const e = a.evidence;
  const signal = a.runtimeSignal;
  const facts = [
    ...(signal === null
      ? []
      : [Object.hasOwn(SIGNAL_WORDS, signal) ? SIGNAL_WORDS[signal]! : `signal: ${shortText(signal, 80)}`]),
    `repeat of attempt ${e.earlierAttempt}${e.earlierSession === a.session ? '' : ` (MCP session ${e.earlierSession})`}, ${seconds(e.sinceEarlierMs)} after it`,
    e.earlierDelivered ? 'its answer had reached the agent' : 'its answer had not reached the agent yet',
    ...(e.earlierCancelled ? ['the agent had cancelled it'] : []),
    ...(e.modelAnswer !== undefined
      ? [
          `asked for by ${anchor === null ? '' : `<a href="#${anchor(e.modelAnswer)}">`}model answer #${e.modelAnswer}${anchor === null ? '' : '</a>'}${e.toolCallId === undefined ? '' : ` (tool call <span class="mono">${shortText(e.toolCallId)}</span>)`}`,
        ]
      : a.source === 'runtime' && signal === null
        ? ['no model answer asked for it']
        : []),
  ];
  return (
    `<div class="attr ${SOURCE_CLASS[a.source]}"><span class="badge ${SOURCE_CLASS[a.source]}">source: ${a.source}</span> ` +
    `<b>${h(SOURCE_WORDS[a.source])}</b><div class="small">${facts.join('; ')}</div></div>`
  );
}

/** What the page needs of the case besides its transcript. */
export interface TranscriptContext {
  /** Unique per page: the anchors of this run's rows start with it. */
  prefix: string;
  attribution: readonly CheckedAttribution[];
  /** The run's report, for the faults of older run files whose MCP calls do not name theirs. */
  document: SessionReportDocument | null;
}

/** The fault of each MCP call of a file that does not record it: the first call of a faulted operation (as the report timeline assumes). */
function faultsFromReport(ordered: readonly ViewEntry[], doc: SessionReportDocument | null): Map<string, string> {
  const out = new Map<string, string>();
  if (doc === null) return out;
  const ops = doc.report.operations.filter(
    (op) => op.fault !== undefined && Object.hasOwn(FAULTS, op.fault) && !FAULTS[op.fault].baseline,
  );
  const done = new Set<number>();
  // The built-in loop records no MCP calls: its tool results (those sent to the upstream) stand for them.
  const loopArguments = new Map<string, string>();
  for (const e of ordered) {
    let call: { key: string; tool: string; arguments: string; operation: number | null };
    if (e.kind === 'assistant') {
      for (const c of e.toolCalls) loopArguments.set(c.id, canonicalArguments(c.arguments));
      continue;
    }
    if (e.kind === 'mcp-call' && e.fault === undefined)
      call = { key: callKey(e.session, e.attempt), tool: e.tool, arguments: e.arguments, operation: e.operation };
    else if (e.kind === 'tool-result' && e.forwarded && !PROGRAM_CALL.test(e.callId))
      call = { key: resultKey(e.index), tool: e.tool, arguments: loopArguments.get(e.callId) ?? '', operation: null };
    else continue;
    const sameTool = ops.filter((op) => op.tool === call.tool);
    const op =
      (call.operation !== null ? sameTool.find((o) => o.id === call.operation) : undefined) ??
      sameTool.find((o) => o.arguments === call.arguments) ??
      (sameTool.length === 1 ? sameTool[0] : undefined);
    if (op === undefined || done.has(op.id)) continue;
    done.add(op.id);
    out.set(call.key, op.fault!);
  }
  return out;
}

/** The `callId` of an agent program's MCP call's result: `mcp-<session>-<attempt>`. */
const PROGRAM_CALL = /^mcp-(\d+)-(\d+)$/;
const resultKey = (index: number): string => `result:${index}`;

const sameMessage = (a: Message, b: Message): boolean =>
  a.role === b.role &&
  a.content === b.content &&
  a.toolCallId === b.toolCallId &&
  a.toolCalls.length === b.toolCalls.length &&
  a.toolCalls.every(
    (c, i) => c.id === b.toolCalls[i]!.id && c.name === b.toolCalls[i]!.name && c.arguments === b.toolCalls[i]!.arguments,
  );

/** How many leading messages two requests share (the conversation before is repeated in every request). */
function sharedPrefix(previous: readonly Message[], next: readonly Message[]): number {
  let n = 0;
  while (n < previous.length && n < next.length && sameMessage(previous[n]!, next[n]!)) n++;
  return n;
}

function toolCallsText(calls: readonly ToolCall[], budget: TranscriptBudget, max: number): string {
  return calls
    .map(
      (c) =>
        `<div class="tc"><span class="mono tc-id">${budget.text(c.id, 120)}</span> <b class="mono">${budget.text(c.name, 200)}</b> <span class="mono">${budget.text(c.arguments, max)}</span></div>`,
    )
    .join('');
}

function messageHtml(m: Message, budget: TranscriptBudget, max: number): string {
  const role = m.role === '' ? 'message' : m.role;
  const answers =
    m.toolCallId === null
      ? ''
      : ` <span class="muted small">answers <span class="mono">${budget.text(m.toolCallId, 120)}</span></span>`;
  const text = m.content === '' ? '' : `<pre>${budget.text(m.content, max)}</pre>`;
  return `<div class="msg role-${m.role === 'user' ? 'user' : m.role === 'system' ? 'system' : 'other'}"><span class="role">${budget.text(role, 40)}</span>${answers}${text}${toolCallsText(m.toolCalls, budget, max)}</div>`;
}

/** The whole conversation of a request, folded: its last messages, each cut short. */
function foldedConversation(messages: readonly Message[], budget: TranscriptBudget): string {
  const { foldedMessages, foldedMessageChars } = TRANSCRIPT_LIMITS;
  const shown = messages.slice(-foldedMessages);
  const earlier = messages.length - shown.length;
  return (
    `<details class="conv"><summary>the whole conversation sent (${messages.length} message(s))</summary>` +
    (earlier === 0 ? '' : `<p class="cut">${earlier} earlier message(s) not shown here (the run file has them)</p>`) +
    shown.map((m) => messageHtml(m, budget, foldedMessageChars)).join('') +
    '</details>'
  );
}

/** What the upstream did with an MCP call, in words. */
function upstreamWords(upstream: string | null): string {
  switch (upstream) {
    case null:
      return 'never reached the upstream';
    case 'executed':
      return 'the upstream executed it';
    case 'rejected':
      return 'the upstream rejected it';
    case 'unknown':
      return "the upstream's outcome is unknown";
    case 'unavailable':
      return 'the upstream was unavailable';
    default:
      return `upstream: ${upstream}`;
  }
}

const TOLD_WORDS: Record<string, string> = {
  answer: "the upstream's answer",
  error: 'an error',
  timeout: 'a timeout',
  cancelled: 'nothing (it cancelled the call)',
};

interface RowState {
  previousMessages: readonly Message[];
  systemPrompt: string | null;
  firstAt: number | null;
}

/** The transcript section of one run; '' when it has none. */
export function transcriptSection(entries: readonly unknown[], ctx: TranscriptContext, budget: TranscriptBudget): string {
  if (entries.length === 0) return '';
  const head = `<h3>Transcript: ${entries.length} entr${entries.length === 1 ? 'y' : 'ies'}, both sides of the agent in time order</h3>`;
  if (!budget.row())
    return `${head}<p class="cut">Not drawn: this page's transcript limit (${TRANSCRIPT_LIMITS.pageChars} characters) is reached; the run file has it.</p>`;
  const all = interleave(entries);
  // Only the rows that can be drawn are linked: the matching is quadratic in the calls of a run.
  const ordered = all.slice(0, TRANSCRIPT_LIMITS.rows);
  const links = linkCalls(ordered, ctx.attribution);
  const repeats = new Map(ctx.attribution.map((a) => [callKey(a.session, a.attempt), a]));
  const reportFaults = faultsFromReport(ordered, ctx.document);
  const callsOfAnswer = new Map<string, string[]>();
  for (const [call, by] of links) {
    const key = `${by.exchange}\u0000${by.toolCallId}`;
    callsOfAnswer.set(key, [...(callsOfAnswer.get(key) ?? []), call]);
  }
  // The built-in loop: a tool call and its result share the model's call id.
  const askedIn = new Map<string, number>();
  const resultOf = new Map<string, number>();
  for (const e of ordered) {
    if (e.kind === 'assistant') for (const c of e.toolCalls) if (!askedIn.has(c.id)) askedIn.set(c.id, e.index);
    if (e.kind === 'tool-result' && !resultOf.has(e.callId)) resultOf.set(e.callId, e.index);
  }
  const entryAnchor = (index: number) => `${ctx.prefix}-entry-${index}`;
  const anchor = (exchange: number) => `${ctx.prefix}-answer-${exchange}`;
  const callAnchor = (call: string) => `${ctx.prefix}-call-${call.replace(':', '-')}`;
  const state: RowState = { previousMessages: [], systemPrompt: null, firstAt: ordered.find((e) => e.at !== null)?.at ?? null };
  const rows: string[] = [];
  let drawn = 0;
  for (const e of ordered) {
    if (drawn >= TRANSCRIPT_LIMITS.rows || !budget.row()) break;
    drawn++;
    const time = e.at === null || state.firstAt === null ? '' : `+${seconds(e.at - state.firstAt)}`;
    const row = (cls: string, label: string, body: string, id = '') =>
      `<li class="tx-row ${cls}"${id === '' ? '' : ` id="${id}"`}><div class="tx-time mono">${time}</div><div class="tx-body"><div class="tx-label">${label}</div>${body}</div></li>`;
    switch (e.kind) {
      case 'system':
        rows.push(row('tx-system', 'system prompt', `<pre>${budget.text(e.content)}</pre>`));
        break;
      case 'user':
        rows.push(row('tx-user', `user${e.turn === null ? '' : ` turn ${e.turn}`}`, `<pre>${budget.text(e.content)}</pre>`));
        break;
      case 'note':
        rows.push(row('tx-note', 'note', `<div>${budget.text(e.text)}</div>`));
        break;
      case 'other':
        rows.push(row('tx-note', 'entry', `<div class="muted">an entry of kind “${budget.text(e.name, 80)}” (not drawn)</div>`));
        break;
      case 'assistant': {
        const text = e.content === '' ? '' : `<pre>${budget.text(e.content)}</pre>`;
        const calls = e.toolCalls
          .map((c) => {
            const result = resultOf.get(c.id);
            const to =
              result === undefined
                ? '<span class="muted small">→ no result</span>'
                : `<span class="small">→ <a href="#${entryAnchor(result)}">its result</a></span>`;
            return `<div class="tc"><span class="mono tc-id">${budget.text(c.id, 120)}</span> <b class="mono">${budget.text(c.name, 200)}</b> <span class="mono">${budget.text(c.arguments)}</span> ${to}</div>`;
          })
          .join('');
        const label = `model answer${e.toolCalls.length > 0 ? `: ${e.toolCalls.length} tool call(s)` : e.content !== '' ? ': text' : ''}`;
        rows.push(row('tx-answer', label, `${text}${calls}`, entryAnchor(e.index)));
        break;
      }
      case 'model-request': {
        const system = e.messages[0]?.role === 'system' ? e.messages[0].content : null;
        const shared = sharedPrefix(state.previousMessages, e.messages);
        const fresh = e.messages.slice(Math.max(shared, system === null ? 0 : 1));
        const systemPart =
          system === null
            ? ''
            : system === state.systemPrompt
              ? '<div class="muted small">system prompt unchanged</div>'
              : `<div class="msg role-system"><span class="role">system prompt</span><pre>${budget.text(system)}</pre></div>`;
        const rewritten =
          state.previousMessages.length > 0 && shared < state.previousMessages.length
            ? `<div class="small note">the conversation is not the previous one extended: it differs from message ${shared + 1} on</div>`
            : '';
        const newPart =
          fresh.length === 0
            ? '<div class="muted small">no new message</div>'
            : `<div class="muted small">${fresh.length} new message(s) since the previous request:</div>${fresh.map((m) => messageHtml(m, budget, TRANSCRIPT_LIMITS.textChars)).join('')}`;
        const meta = [e.format, e.model, e.stream ? 'streamed' : '', `${e.tools.length} tool(s)`]
          .filter((p) => p !== '')
          .join(' · ');
        // A request that brings a new user message is a user turn (a follow-up, "Please try again.").
        const userTurn = fresh.some((m) => m.role === 'user');
        rows.push(
          row(
            `tx-request${userTurn ? ' tx-user' : ''}`,
            `model request #${e.exchange}${userTurn ? ' <span class="badge src-user">user turn</span>' : ''} <span class="muted small">${budget.text(meta, 300)}</span>`,
            `${systemPart}${rewritten}${newPart}${foldedConversation(e.messages, budget)}`,
          ),
        );
        state.previousMessages = e.messages;
        if (system !== null) state.systemPrompt = system;
        break;
      }
      case 'model-answer': {
        const status =
          e.error !== null ? ` <span class="badge FAIL">${budget.text(`HTTP ${e.status ?? '?'}: ${e.error}`, 300)}</span>` : '';
        const text = e.content === '' ? '' : `<pre>${budget.text(e.content)}</pre>`;
        const calls = e.toolCalls
          .map((c) => {
            const carried = callsOfAnswer.get(`${e.exchange}\u0000${c.id}`) ?? [];
            const to =
              carried.length === 0
                ? '<span class="muted small">→ no MCP call carried it out</span>'
                : `<span class="small">→ ${carried.map((k) => `<a href="#${callAnchor(k)}">MCP call ${h(k.replace(':', '·'))}</a>`).join(', ')}</span>`;
            return `<div class="tc"><span class="mono tc-id">${budget.text(c.id, 120)}</span> <b class="mono">${budget.text(c.name, 200)}</b> <span class="mono">${budget.text(c.arguments)}</span> ${to}</div>`;
          })
          .join('');
        const label = `model answer #${e.exchange}${e.toolCalls.length > 0 ? `: ${e.toolCalls.length} tool call(s)` : e.content !== '' ? ': text' : ''}`;
        rows.push(row('tx-answer', `${label}${status}`, `${text}${calls}`, anchor(e.exchange)));
        break;
      }
      case 'mcp-call': {
        const key = callKey(e.session, e.attempt);
        const fault = e.fault ?? reportFaults.get(key) ?? null;
        const by = links.get(key);
        const repeat = repeats.get(key);
        const parts = [
          fault === null ? '' : `<span class="badge NOT_TESTED">fault injected: ${budget.text(fault, 40)}</span>`,
          by === undefined
            ? ''
            : `<span class="small">asked for by <a href="#${anchor(by.exchange)}">model answer #${by.exchange}</a> (tool call <span class="mono">${budget.text(by.toolCallId, 120)}</span>)</span>`,
        ].filter((p) => p !== '');
        rows.push(
          row(
            `tx-call${repeat === undefined ? '' : ' tx-repeat'}`,
            `MCP call ${e.session}·${e.attempt}: <b class="mono">${budget.text(e.tool, 200)}</b>`,
            `<div class="mono args">${budget.text(e.arguments)}</div>${parts.length === 0 ? '' : `<div>${parts.join(' ')}</div>`}${repeat === undefined ? '' : attributionBadge(repeat, anchor)}`,
            callAnchor(key),
          ),
        );
        break;
      }
      case 'tool-result': {
        const program = PROGRAM_CALL.exec(e.callId);
        const asked = askedIn.get(e.callId);
        const fault = reportFaults.get(resultKey(e.index));
        const id = `<span class="mono">${budget.text(e.callId, 120)}</span>`;
        const of =
          program !== null
            ? `<a href="#${callAnchor(`${program[1]}:${program[2]}`)}">MCP call ${program[1]}·${program[2]}</a>`
            : asked !== undefined
              ? `<a href="#${entryAnchor(asked)}">tool call</a> ${id}`
              : `tool call ${id}`;
        const facts = [
          fault === undefined ? '' : `<span class="badge NOT_TESTED">fault injected: ${budget.text(fault, 40)}</span>`,
          e.isError ? '<span class="badge FAIL">isError</span>' : '',
          e.upstream === undefined ? '' : `<span class="small">${budget.text(upstreamWords(e.upstream), 80)}</span>`,
          e.told === null
            ? ''
            : `<span class="small">· the agent was told: ${budget.text(Object.hasOwn(TOLD_WORDS, e.told) ? TOLD_WORDS[e.told]! : e.told, 80)}</span>`,
          e.forwarded ? '' : '<span class="small note">not sent to the upstream (the harness answered)</span>',
        ].filter((p) => p !== '');
        rows.push(
          row(
            `tx-result${e.isError ? ' tx-error' : ''}`,
            `result of ${of} <b class="mono">${budget.text(e.tool, 200)}</b>`,
            `${facts.length === 0 ? '' : `<div>${facts.join(' ')}</div>`}<pre>${budget.text(e.content)}</pre>`,
            entryAnchor(e.index),
          ),
        );
        break;
      }
    }
  }
  const left = all.length - drawn;
  const more =
    left === 0
      ? ''
      : `<p class="cut">${left} more entr${left === 1 ? 'y is' : 'ies are'} not drawn (${drawn >= TRANSCRIPT_LIMITS.rows ? `at most ${TRANSCRIPT_LIMITS.rows} per run` : "this page's transcript limit is reached"}); the run file has them all.</p>`;
  return `${head}<ol class="tx">${rows.join('\n')}</ol>${more}`;
}
