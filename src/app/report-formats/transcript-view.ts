/**
 * A trial run's transcript as the HTML report draws it: both sides of the agent in one list, in time
 * order — model requests (the system prompt and what is new since the previous request; the whole
 * conversation folded), model answers (text, tool calls with their ids), MCP calls (fault injected, the
 * model answer and tool call that asked for it, who sent a repeated write: R-14) and their results, user
 * turns — as a trace viewer (Langfuse, LangSmith) shows a run. The run file is read as untrusted: every
 * field is checked before use, every string escaped when drawn, and every text is cut to a limit and the
 * whole page to a budget, so a conversation of tens of megabytes gives a page of a few.
 * Reading the entries: `transcript-entries.ts`; the limits and the page's budget: `transcript-budget.ts`;
 * a repeat's badge: `attribution-badge.ts`.
 */
import { faultOf, isFaultKind } from '../../domain/faults/index.js';
import { canonicalArguments } from '../../domain/json.js';
import type { HonestyClaimDocument, SessionReportDocument } from '../../ports/shapes/report-documents.js';
import type { CheckedAttribution } from '../check/check-model.js';
import { attributionBadge, operationAttempts, seconds } from './attribution-badge.js';
import { htmlText as h, jsonBreaks } from './escape.js';
import { TRANSCRIPT_LIMITS, TranscriptBudget } from './transcript-budget.js';
import { callKey, interleave, linkCalls, type Message, type ToolCall, type ViewEntry } from './transcript-entries.js';

/** What the page needs of the case besides its transcript. */
export interface TranscriptContext {
  /** Unique per page: the anchors of this run's rows start with it. */
  prefix: string;
  attribution: readonly CheckedAttribution[];
  /** The run's report, for the faults of older run files whose MCP calls do not name theirs. */
  document: SessionReportDocument | null;
  /** The run's honesty claim (and why it is UNPARSED): the list ends with it; absent or null: not measured. */
  honesty?: HonestyClaimDocument | null;
}

/** The fault of each MCP call of a file that does not record it: the first call of a faulted operation (as the report timeline assumes). */
function faultsFromReport(ordered: readonly ViewEntry[], doc: SessionReportDocument | null): Map<string, string> {
  const out = new Map<string, string>();
  if (doc === null) return out;
  const ops = doc.report.operations.filter(
    (op) => op.fault !== undefined && isFaultKind(op.fault) && !faultOf(op.fault).baseline,
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
  // One numbering (see attribution-badge.ts): "attempt k" within the operation, counted over the calls
  // drawn (the attribution's chain where the transcript does not have them); "MCP call #n" the session's.
  const attempts = operationAttempts(ctx.attribution);
  const perOperation = new Map<number, number>();
  const sessions = new Set<number>();
  for (const e of ordered) {
    if (e.kind !== 'mcp-call') continue;
    sessions.add(e.session);
    if (e.operation === null) continue;
    const n = (perOperation.get(e.operation) ?? 0) + 1;
    perOperation.set(e.operation, n);
    attempts.set(callKey(e.session, e.attempt), n);
  }
  const callName = (session: number | string, call: number | string): string =>
    `MCP call #${call}${sessions.size > 1 ? ` (MCP session ${session})` : ''}`;
  const nameOfKey = (key: string): string => {
    const [session, call] = key.split(':');
    return callName(session!, call!);
  };
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
            return `<div class="tc"><span class="mono tc-id">${budget.text(c.id, 120)}</span> <b class="mono">${budget.text(c.name, 200)}</b> <span class="mono">${jsonBreaks(budget.text(c.arguments))}</span> ${to}</div>`;
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
                : `<span class="small">→ ${carried.map((k) => `<a href="#${callAnchor(k)}">${h(nameOfKey(k))}</a>`).join(', ')}</span>`;
            return `<div class="tc"><span class="mono tc-id">${budget.text(c.id, 120)}</span> <b class="mono">${budget.text(c.name, 200)}</b> <span class="mono">${jsonBreaks(budget.text(c.arguments))}</span> ${to}</div>`;
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
            `${callName(e.session, e.attempt)}${e.operation === null ? '' : `, op ${e.operation}, attempt ${attempts.get(key) ?? '?'}`}: <b class="mono">${budget.text(e.tool, 200)}</b>`,
            `<div class="mono args">${jsonBreaks(budget.text(e.arguments))}</div>${parts.length === 0 ? '' : `<div>${parts.join(' ')}</div>`}${repeat === undefined ? '' : attributionBadge(repeat, anchor, attempts)}`,
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
            ? `<a href="#${callAnchor(`${program[1]}:${program[2]}`)}">${h(callName(program[1]!, program[2]!))}</a>`
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
  // What the harness read from the answer that ended the honesty question's turn, after every entry.
  const honesty = ctx.honesty ?? null;
  if (honesty !== null) {
    const unparsed = honesty.claim === 'UNPARSED';
    const why =
      honesty.unparsed !== null
        ? budget.text(honesty.unparsed, 300)
        : unparsed
          ? 'the answer could not be read as a claim'
          : 'read from the answer that ended the turn the honesty question opened';
    rows.push(
      `<li class="tx-row tx-note tx-honesty"><div class="tx-time mono"></div><div class="tx-body"><div class="tx-label">honesty claim</div>` +
        `<div><span class="badge ${unparsed ? 'NOT_TESTED' : 'PASS'}">${budget.text(honesty.claim, 40)}</span> <span class="small">${why}</span></div></div></li>`,
    );
  }
  const left = all.length - drawn;
  const more =
    left === 0
      ? ''
      : `<p class="cut">${left} more entr${left === 1 ? 'y is' : 'ies are'} not drawn (${drawn >= TRANSCRIPT_LIMITS.rows ? `at most ${TRANSCRIPT_LIMITS.rows} per run` : "this page's transcript limit is reached"}); the run file has them all.</p>`;
  return `${head}<ol class="tx">${rows.join('\n')}</ol>${more}`;
}
