/**
 * The calls of a session as rows of a timeline (the HTML report draws them). Two sources fill the same
 * shape: {@link timelineFromReport} derives it from a report file alone, and a journal (one line per
 * event, with times and every read) can later fill it exactly — the HTML builder takes a `Timeline`
 * and does not care which. From the report alone the rows are the write attempts of each operation, in
 * the order the operations first appeared; the times, the reads and the order of attempts within one
 * operation are not in the report, so `exact` is false and the report says so.
 */
import { FAULTS, type FaultKind } from '../../domain/faults/index.js';
import type { ToolClass } from '../../domain/classification.js';
import type { OperationDocument, SessionReportDocument } from '../../ports/report-documents.js';

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
  /** The fault injected into this call, or null. */
  fault: string | null;
  upstream: UpstreamDid;
  /** What the agent was told (the injected text, or where the upstream's own answer went through). */
  agentTold: string;
  /** One of two or more executions of the same operation. */
  duplicate: boolean;
  /** F2: the retry_after window opened by this call, and how long the agent waited before re-sending. */
  retryAfter: { requiredMs: number; waitedMs: number | null } | null;
}

export interface Timeline {
  /** True when times and order are recorded (a journal); false when derived from a report's counts. */
  exact: boolean;
  calls: TimelineCall[];
  /** Calls the source counts but does not list (reads and unclassified calls in a report). */
  unlisted: { read: number; unclassified: number };
}

const isFault = (fault: string | undefined): fault is FaultKind => fault !== undefined && Object.hasOwn(FAULTS, fault);

function injected(fault: FaultKind, op: OperationDocument): { upstream: UpstreamDid; told: string } {
  const behaviour = FAULTS[fault];
  const seconds = op.retryAfter === undefined ? 60 : Math.round(op.retryAfter.requiredMs / 1000);
  const settings = { retryAfterSeconds: seconds };
  const result = behaviour.injected?.(settings) ?? behaviour.replaceExecuted?.(settings);
  const text = result?.content[0]?.text ?? "the upstream's own answer";
  return { upstream: behaviour.forwards ? 'executed' : 'not sent', told: `${result === undefined ? '' : 'isError: '}${text}` };
}

function operationRows(op: OperationDocument, index: number, classOf: (tool: string) => ToolClass, seq: number): TimelineCall[] {
  const rows: TimelineCall[] = [];
  const faulted = isFault(op.fault) && !FAULTS[op.fault].baseline;
  let executedLeft = op.executions;
  let failedLeft = op.failedAttempts;
  for (let attempt = 1; attempt <= op.attempts; attempt++) {
    let upstream: UpstreamDid;
    let told: string;
    let fault: string | null = null;
    if (attempt === 1 && faulted) {
      fault = op.fault!;
      ({ upstream, told } = injected(op.fault as FaultKind, op));
      failedLeft -= 1;
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
      seq: seq + rows.length, atMs: null, tool: op.tool, toolClass: classOf(op.tool), arguments: op.arguments, operation: index, attempt,
      fault, upstream, agentTold: told, duplicate: upstream === 'executed' && op.executions >= 2,
      retryAfter: isFault(fault ?? undefined) && FAULTS[fault as FaultKind].opensRetryWindow === true && op.retryAfter !== undefined ? { requiredMs: op.retryAfter.requiredMs, waitedMs: op.retryAfter.waitedMs } : null,
    });
  }
  return rows;
}

/** The timeline a report file alone allows: every write attempt, grouped by operation. */
export function timelineFromReport(doc: SessionReportDocument): Timeline {
  const classes = new Map(doc.toolClassification.map((t) => [t.name, t.class]));
  const classOf = (tool: string): ToolClass => classes.get(tool) ?? 'unclassified';
  const calls: TimelineCall[] = [];
  doc.report.operations.forEach((op, i) => calls.push(...operationRows(op, i, classOf, calls.length + 1)));
  const { read, unclassified } = doc.report.coverage.calls;
  return { exact: false, calls, unlisted: { read, unclassified } };
}
