/**
 * The calls of a session as rows of a timeline (the HTML report draws them). Two sources fill the same
 * shape: {@link timelineFromReport} derives it from a report file alone, and {@link timelineFromJournal}
 * fills it exactly from the journal (`--journal`: one line per event, with times and every read) — the
 * HTML builder takes a `Timeline` and does not care which. From the report alone the rows are the write attempts of each operation, in
 * the order the operations first appeared; the times, the reads and the order of attempts within one
 * operation are not in the report, so `exact` is false and the report says so.
 */
import { faultOf, isFaultKind, recordedSettings, type FaultKind } from '../../domain/faults/index.js';
import type { ToolClass } from '../../domain/judging/classification.js';
import type { JournalCallRecord, JournalOpenedRecord, JournalRecord } from '../../ports/journal.port.js';
import type { OperationDocument, SessionReportDocument } from '../../ports/shapes/report-documents.js';

/** What the upstream did with a call. */
export type UpstreamDid = 'executed' | 'rejected' | 'unknown' | 'not sent';

export interface TimelineCall {
  /** 1-based position in the timeline. */
  seq: number;
  /** Milliseconds since the session began; null when the source has no times. */
  atMs: number | null;
  tool: string;
  toolClass: ToolClass;
  arguments: string;
  /** Index of the operation in `report.operations`, or null for a call that is not an operation. */
  operation: number | null;
  /** The attempt's number within its operation (1 = first). */
  attempt: number;
  /** The session's running number of the call (the journal's and the attribution's `attempt`); null when the source does not say. */
  call: number | null;
  /** The fault injected into this call, or null. */
  fault: string | null;
  upstream: UpstreamDid;
  /** What the agent was told (the injected text, or where the upstream's own answer went through). */
  agentTold: string;
  /** One of two or more executions of the same operation. */
  duplicate: boolean;
  /** F2: the retry_after window opened by this call, and how long the agent waited before re-sending. */
  retryAfter: { requiredMs: number; waitedMs: number | null } | null;
  /** `--hold`: how long F1's timeout was held after the upstream answered; null when it was not. */
  heldMs: number | null;
  /** The agent cancelled the call this long after it arrived (it was then told nothing); null when it did not. */
  cancelledAfterMs: number | null;
  /**
   * F6: a write the agent was told had timed out, forwarded to the upstream later — ms after its arrival
   * the agent was told, it reached the upstream (null: never) and the upstream answered; null otherwise.
   */
  landedLate: { toldAfterMs: number; forwardedAfterMs: number | null; landedAfterMs: number } | null;
  /** F6: sent while the late write of its operation (that call's number) was still waiting to land; null otherwise. */
  besideLate: number | null;
  /**
   * F6, on a late write and a write beside one that executed: which execution of the operation it was at
   * the upstream (1, 2, … in landing order, which need not be the order of the rows); null otherwise.
   */
  execution: number | null;
}

/** What the agent was told when it cancelled the call: nothing (MCP answers no cancelled request). */
export const CANCELLED_TOLD = 'nothing: the agent cancelled the call';

type TimingDocument = NonNullable<SessionReportDocument['report']['timing']>[number];

/** The hold, cancellation, late landing (F6) and what was sent beside it of one timing entry, as a row shows them. */
function timingOf(
  entry: TimingDocument | undefined,
): Pick<TimelineCall, 'heldMs' | 'cancelledAfterMs' | 'landedLate' | 'besideLate' | 'execution'> {
  return {
    heldMs: entry?.heldMs ?? null,
    cancelledAfterMs: entry?.cancelledAfterMs ?? null,
    landedLate: entry?.landedLate ?? null,
    besideLate: entry?.besideLate ?? null,
    execution: entry?.execution ?? null,
  };
}

/** What the upstream did with an attempt, from its timing entry's outcome. */
function upstreamOfOutcome(outcome: TimingDocument['outcome']): UpstreamDid {
  if (outcome === 'executed' || outcome === 'rejected' || outcome === 'unknown') return outcome;
  return outcome === 'not-executed' ? 'not sent' : 'unknown';
}

/** F1's `--hold` of the report's run, for the timeout text the agent got ("did not answer within 5 seconds"). */
const holdOf = (doc: SessionReportDocument): number | undefined => doc.report.configuration?.holdMs ?? undefined;

export interface Timeline {
  /** True when times and order are recorded (a journal); false when derived from a report's counts. */
  exact: boolean;
  calls: TimelineCall[];
  /** Calls the source counts but does not list (reads and unclassified calls in a report). */
  unlisted: { read: number; unclassified: number };
  /** Rows beyond {@link TIMELINE_MAX_ROWS}: counted, not drawn. */
  omitted: number;
}

/**
 * Rows drawn at most: a runaway agent re-sending one write 200,000 times still gets its HTML report (the
 * first rows, then how many more), and a report's attempt count cannot make the builder allocate without bound.
 */
export const TIMELINE_MAX_ROWS = 5000;

const isFault = (fault: string | undefined): fault is FaultKind => fault !== undefined && isFaultKind(fault);

function injected(fault: FaultKind, op: OperationDocument, holdMs: number | undefined): { upstream: UpstreamDid; told: string } {
  const behaviour = faultOf(fault);
  const settings = recordedSettings(behaviour, op.retryAfter?.requiredMs, holdMs);
  const result = behaviour.injected?.(settings) ?? behaviour.replaceExecuted?.(settings);
  const text = result?.content[0]?.text ?? "the upstream's own answer";
  return { upstream: behaviour.forwards ? 'executed' : 'not sent', told: `${result === undefined ? '' : 'isError: '}${text}` };
}

function operationRows(
  op: OperationDocument,
  index: number,
  classOf: (tool: string) => ToolClass,
  seq: number,
  room: number,
  holdMs: number | undefined,
  faultTiming: TimingDocument | undefined,
  besideTiming: readonly TimingDocument[],
): TimelineCall[] {
  const rows: TimelineCall[] = [];
  const faulted = isFault(op.fault) && !faultOf(op.fault).baseline;
  let executedLeft = op.executions;
  let failedLeft = op.failedAttempts;
  let besideNext = 0;
  for (let attempt = 1; attempt <= op.attempts && rows.length < room; attempt++) {
    let upstream: UpstreamDid;
    let told: string;
    let fault: string | null = null;
    let timing = timingOf(undefined);
    // F6: the entries name their attempts (the session's call numbers) and say what the upstream did.
    let call: number | null = null;
    const beside = attempt > 1 && faulted ? besideTiming[besideNext] : undefined;
    if (attempt === 1 && faulted) {
      fault = op.fault!;
      ({ upstream, told } = injected(op.fault as FaultKind, op, holdMs));
      timing = timingOf(faultTiming);
      if (timing.cancelledAfterMs !== null) told = CANCELLED_TOLD;
      if (faultTiming?.landedLate !== undefined) {
        upstream = upstreamOfOutcome(faultTiming.outcome);
        call = faultTiming.attempt;
      }
      failedLeft -= 1;
    } else if (beside !== undefined) {
      // A write sent beside the pending late one, in the order the agent sent them.
      besideNext += 1;
      timing = timingOf(beside);
      call = beside.attempt;
      upstream = upstreamOfOutcome(beside.outcome);
      told =
        upstream === 'executed'
          ? "the upstream's answer"
          : upstream === 'rejected'
            ? "the upstream's isError answer"
            : 'no usable answer (timeout, lost connection or error)';
      if (upstream !== 'executed') failedLeft -= 1;
    } else if (executedLeft > 0) {
      upstream = 'executed';
      told = "the upstream's answer";
    } else if (failedLeft > 0) {
      upstream = op.outcome === 'UPSTREAM_REJECTED' ? 'rejected' : 'unknown';
      told = upstream === 'rejected' ? "the upstream's isError answer" : 'no usable answer (timeout, lost connection or error)';
      failedLeft -= 1;
    } else {
      upstream = 'unknown';
      told = 'unknown';
    }
    if (upstream === 'executed') executedLeft -= 1;
    rows.push({
      seq: seq + rows.length,
      atMs: null,
      tool: op.tool,
      toolClass: classOf(op.tool),
      arguments: op.arguments,
      operation: index,
      attempt,
      call,
      fault,
      upstream,
      agentTold: told,
      duplicate: upstream === 'executed' && op.outcome === 'DUPLICATE_EXECUTION',
      retryAfter:
        fault !== null && faultOf(fault).retryWindow !== undefined && op.retryAfter !== undefined
          ? { requiredMs: op.retryAfter.requiredMs, waitedMs: op.retryAfter.waitedMs }
          : null,
      ...timing,
    });
  }
  return rows;
}

/** The timeline a report file alone allows: every write attempt, grouped by operation. */
export function timelineFromReport(doc: SessionReportDocument): Timeline {
  const classes = new Map(doc.toolClassification.map((t) => [t.name, t.class]));
  const classOf = (tool: string): ToolClass => classes.get(tool) ?? 'unclassified';
  const calls: TimelineCall[] = [];
  let omitted = 0;
  // The report does not say which attempt of an operation a timing entry is: the faulted (first) attempt
  // of a tool takes that tool's first held, cancelled or late-landed entry, in order.
  const timingQueue = new Map<string, TimingDocument[]>();
  for (const entry of doc.report.timing ?? []) {
    if (entry.heldMs === undefined && entry.cancelledAfterMs === undefined && entry.landedLate === undefined) continue;
    timingQueue.set(entry.tool, [...(timingQueue.get(entry.tool) ?? []), entry]);
  }
  // F6: the writes sent beside a pending late write, by the late write's attempt, in the order they arrived.
  const besideOf = new Map<number, TimingDocument[]>();
  for (const entry of doc.report.timing ?? []) {
    if (entry.besideLate === undefined) continue;
    besideOf.set(entry.besideLate, [...(besideOf.get(entry.besideLate) ?? []), entry]);
  }
  for (const entries of besideOf.values()) entries.sort((a, b) => a.attempt - b.attempt);
  doc.report.operations.forEach((op, i) => {
    const faultTiming = isFault(op.fault) ? timingQueue.get(op.tool)?.shift() : undefined;
    const beside = faultTiming?.landedLate === undefined ? [] : (besideOf.get(faultTiming.attempt) ?? []);
    const rows = operationRows(
      op,
      i,
      classOf,
      calls.length + 1,
      TIMELINE_MAX_ROWS - calls.length,
      holdOf(doc),
      faultTiming,
      beside,
    );
    for (const row of rows) calls.push(row);
    omitted += op.attempts - rows.length;
  });
  const { read, unclassified } = doc.report.coverage.calls;
  return { exact: false, calls, unlisted: { read, unclassified }, omitted };
}

/** One agent session of a journal: its `opened` line (when kept) and its call lines in file order. */
export interface JournalSessionRecords {
  session: string;
  opened: JournalOpenedRecord | null;
  calls: JournalCallRecord[];
}

/** The journal's records grouped by agent session, in the order the sessions opened. */
export function journalSessions(records: readonly JournalRecord[]): JournalSessionRecords[] {
  const sessions = new Map<string, JournalSessionRecords>();
  const of = (session: string): JournalSessionRecords => {
    let entry = sessions.get(session);
    if (entry === undefined) sessions.set(session, (entry = { session, opened: null, calls: [] }));
    return entry;
  };
  for (const record of records) {
    if (record.event === 'opened') of(record.session).opened = record;
    else if (isCallRecord(record)) of(record.session).calls.push(record);
  }
  return [...sessions.values()];
}

/**
 * A step of a tool call, the timeline's rows: not the header, `ended`, a forwarded request that is not a
 * tool call (R-17, `request`) or the session's effects lines (R-15, `snapshot`, `effects`), whatever
 * other kinds of line the journal gains.
 */
function isCallRecord(record: JournalRecord): record is JournalCallRecord {
  return 'attempt' in record;
}

const TOLD_WORDS: Record<string, string> = {
  answer: "the upstream's answer",
  error: 'an error (isError)',
  timeout: 'a timeout (isError)',
  cancelled: CANCELLED_TOLD,
};

/** The first text block of a result, when the journal has it (`--journal-payloads on`). */
function resultText(result: unknown): string | null {
  if (typeof result !== 'object' || result === null) return null;
  const content = Object.hasOwn(result, 'content') ? (result as { content: unknown }).content : undefined;
  const first: unknown = Array.isArray(content) ? content[0] : undefined;
  if (typeof first !== 'object' || first === null || !Object.hasOwn(first, 'text')) return null;
  const text = (first as { text: unknown }).text;
  return typeof text === 'string' ? text : null;
}

/**
 * The exact timeline of one session from its journal lines (see {@link journalSessions}): every call —
 * reads and unclassified calls included — in the order the proxy received them, with its time since the
 * session opened; the report adds what the journal does not repeat (argument previews without
 * `--journal-payloads`, the operations' index, retry_after windows). A call still open when the journal
 * ends (the proxy was killed) shows no answer.
 */
export function timelineFromJournal(records: JournalSessionRecords, doc: SessionReportDocument): Timeline {
  const classes = new Map(doc.toolClassification.map((t) => [t.name, t.class]));
  const byId = new Map<number, number>();
  doc.report.operations.forEach((op, i) => {
    if (op.id !== undefined) byId.set(op.id, i);
  });
  const origin = records.opened?.at ?? records.calls[0]?.at ?? 0;
  const timingByAttempt = new Map((doc.report.timing ?? []).map((t) => [t.attempt, t]));
  const rows = new Map<number, TimelineCall & { at: number; executedAt: boolean }>();
  const attemptsOf = new Map<number, number>();
  for (const e of records.calls) {
    if (e.event === 'received') {
      const index = e.operation === null ? null : (byId.get(e.operation) ?? null);
      const n = e.operation === null ? 1 : (attemptsOf.get(e.operation) ?? 0) + 1;
      if (e.operation !== null) attemptsOf.set(e.operation, n);
      const args = Object.hasOwn(e, 'arguments')
        ? JSON.stringify(e.arguments ?? null)
        : index === null
          ? ''
          : doc.report.operations[index]!.arguments;
      rows.set(e.attempt, {
        seq: rows.size + 1,
        atMs: e.at - origin,
        at: e.at,
        tool: e.tool,
        toolClass: classes.get(e.tool) ?? e.class,
        arguments: args,
        operation: index,
        attempt: n,
        call: e.attempt,
        fault: e.fault,
        upstream: 'not sent',
        agentTold: 'no answer (the journal ends first)',
        duplicate: false,
        retryAfter: null,
        ...timingOf(timingByAttempt.get(e.attempt)),
        executedAt: false,
      });
      // F6: the journal's own mark of a write sent beside a pending late one (the report's, when older).
      if (e.besideLate !== undefined) rows.get(e.attempt)!.besideLate = e.besideLate;
      continue;
    }
    const row = rows.get(e.attempt);
    if (row === undefined) continue;
    if (e.event === 'answered') {
      row.upstream = e.upstream === 'executed' || e.upstream === 'rejected' || e.upstream === 'unknown' ? e.upstream : 'not sent';
      row.executedAt = e.upstream === 'executed';
      if (e.execution !== undefined) row.execution = e.execution;
    } else if (e.event === 'delivered' || e.event === 'injected') {
      const text = resultText(e.result);
      const told = e.told ?? 'error';
      // A cancelled call is told nothing (older journals wrote the result the proxy had ready).
      if (told === 'cancelled' || row.cancelledAfterMs !== null) {
        if (e.event === 'delivered') row.agentTold = CANCELLED_TOLD;
        continue;
      }
      row.agentTold =
        e.event === 'injected' || told !== 'answer'
          ? `${Object.hasOwn(TOLD_WORDS, told) ? TOLD_WORDS[told] : told}${text === null ? injectedText(row.fault, row.operation === null ? undefined : doc.report.operations[row.operation], holdOf(doc)) : `: ${text}`}`
          : `${TOLD_WORDS.answer}${text === null ? '' : `: ${text}`}`;
    }
  }
  const calls = [...rows.values()];
  const executions = new Map<number | null, number>();
  for (const row of calls) if (row.executedAt) executions.set(row.operation, (executions.get(row.operation) ?? 0) + 1);
  for (const [i, row] of calls.entries()) {
    row.duplicate = row.executedAt && row.operation !== null && (executions.get(row.operation) ?? 0) >= 2;
    const window = row.fault !== null && isFault(row.fault) ? faultOf(row.fault).retryWindow : undefined;
    if (window !== undefined && row.operation !== null) {
      const op = doc.report.operations[row.operation]!;
      const next = calls.slice(i + 1).find((later) => later.operation === row.operation);
      // A report without the window's length: the fault's default (what it announced unless configured).
      const requiredMs = op.retryAfter?.requiredMs ?? window.default * 1000;
      row.retryAfter = { requiredMs, waitedMs: next === undefined ? null : next.at - row.at };
    }
  }
  return {
    exact: true,
    calls: calls.slice(0, TIMELINE_MAX_ROWS).map(({ at: _at, executedAt: _executed, ...call }) => call),
    unlisted: { read: 0, unclassified: 0 },
    omitted: Math.max(0, calls.length - TIMELINE_MAX_ROWS),
  };
}

/** The fault's own words when the journal has no payloads: `: <text>`, or '' when there is no fault text. */
function injectedText(fault: string | null, op: OperationDocument | undefined, holdMs: number | undefined): string {
  if (fault === null || !isFault(fault)) return '';
  const behaviour = faultOf(fault);
  const settings = recordedSettings(behaviour, op?.retryAfter?.requiredMs, holdMs);
  const result = behaviour.injected?.(settings) ?? behaviour.replaceExecuted?.(settings);
  const text = result?.content[0]?.text;
  return text === undefined ? '' : `: ${text}`;
}

const fileName = (path: string): string =>
  path
    .split(/[\\/]/)
    .filter((p) => p !== '')
    .pop() ?? path;

/**
 * Whether a journal session can be this report's (see {@link journalSessionFor}): every operation it names
 * is in the report, with no more attempts received and executions answered than the report counts, and —
 * for a finished report — exactly as many. A journal of another run (one that wrote a report of the same
 * name, or an older journal beside a newer report) then falls back to the report's own timeline instead
 * of being drawn as this report's exact one. A running report may count one call more than the journal
 * (a proxy killed while writing its journal line).
 */
export function journalAgrees(records: JournalSessionRecords, doc: SessionReportDocument): boolean {
  const counts = new Map<number, { attempts: number; executions: number }>();
  for (const e of records.calls) {
    if (e.event !== 'received' && e.event !== 'answered') continue;
    if (e.operation === null) continue;
    const count = counts.get(e.operation) ?? { attempts: 0, executions: 0 };
    if (e.event === 'received') count.attempts++;
    else if (e.upstream === 'executed') count.executions++;
    counts.set(e.operation, count);
  }
  const finished = doc.status === 'finished';
  const reported = new Map(doc.report.operations.flatMap((op) => (op.id === undefined ? [] : [[op.id, op] as const])));
  for (const [id, count] of counts) {
    const op = reported.get(id);
    if (op === undefined || count.attempts > op.attempts || count.executions > op.executions) return false;
  }
  if (!finished) return true;
  for (const [id, op] of reported) {
    const count = counts.get(id);
    if ((count?.attempts ?? 0) !== op.attempts || (count?.executions ?? 0) !== op.executions) return false;
  }
  return true;
}

/**
 * Which journal session belongs to the report at `reportPath`: the one whose `opened` line names that
 * file (`samePath` compares, the caller knows the working folder), else the only one naming a file of
 * that name (a report copied elsewhere, e.g. a CI artifact), else the journal's only session when it names
 * no report. Null: the report's timeline comes from the report alone.
 */
export function journalSessionFor(
  sessions: readonly JournalSessionRecords[],
  reportPath: string,
  samePath: (journaled: string, report: string) => boolean,
): JournalSessionRecords | null {
  const named = (s: JournalSessionRecords) => s.opened?.report;
  const exact = sessions.filter((s) => named(s) !== undefined && samePath(named(s)!, reportPath));
  if (exact.length === 1) return exact[0]!;
  const byName = sessions.filter((s) => named(s) !== undefined && fileName(named(s)!) === fileName(reportPath));
  if (byName.length === 1) return byName[0]!;
  return sessions.length === 1 && named(sessions[0]!) === undefined ? sessions[0]! : null;
}
