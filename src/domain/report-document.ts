/**
 * The report file document as JSON text. Operation and key-summary entries come from
 * per-operation caches, so serialising a report of 20,000 operations after every call costs string
 * concatenation, not a walk over the whole state.
 */
import type { ToolClassification } from './classification.js';
import type { OperationState } from './operation-state.js';
import { CERTIFICATION, coverageOf, evaluate, keyEntries, observationsOf, operationEntry, reportHead, violationsOf, type Evaluation, type ReportKind } from './report.js';
import type { EvaluationSession } from './session.js';

/** `starting` before the first report, `running` while the session lasts, `finished` at the end. */
export type ReportStatus = 'starting' | 'running' | 'finished';

export interface DocumentMeta {
  kind: ReportKind;
  harnessVersion: string;
  status: ReportStatus;
  toolClassification: readonly ToolClassification[];
}

/** The document written before anything is known (R-9.1: NOT_TESTED, status "starting"). */
export function startingDocument(harnessVersion: string): string {
  return JSON.stringify({ verdict: 'NOT_TESTED', status: 'starting', certification: CERTIFICATION, harnessVersion }, null, 0);
}

/** The document written when start-up failed (R-9.1: NOT_TESTED and startupError). */
export function startupErrorDocument(harnessVersion: string, startupError: string): string {
  return JSON.stringify({ verdict: 'NOT_TESTED', status: 'failed', certification: CERTIFICATION, harnessVersion, startupError });
}

function cachedEntry(op: OperationState): string {
  op.cachedEntry ??= JSON.stringify(operationEntry(op));
  return op.cachedEntry;
}

function cachedKeys(op: OperationState): string {
  op.cachedKeyEntries ??= keyEntries(op).map((e) => JSON.stringify(e)).join(',');
  return op.cachedKeyEntries;
}

/** Serialises the full report document of a session. */
export function serializeDocument(session: EvaluationSession, meta: DocumentMeta, evaluation: Evaluation = evaluate(session)): string {
  const operations: string[] = [];
  const keys: string[] = [];
  for (const op of session.operations.values()) {
    operations.push(cachedEntry(op));
    if (op.keys.size > 0) keys.push(cachedKeys(op));
  }
  const head = reportHead(session, meta.kind, meta.toolClassification, evaluation.verdict);
  const reportText =
    `${JSON.stringify(head).slice(0, -1)},"operations":[${operations.join(',')}]` +
    `,"violations":${JSON.stringify(violationsOf(session.violating))}` +
    `,"observations":${JSON.stringify(observationsOf(session))}` +
    `,"coverage":${JSON.stringify(coverageOf(session, meta.toolClassification))}` +
    `,"keySummary":[${keys.join(',')}],"honesty":"NOT_MEASURED"}`;
  return (
    `{"verdict":${JSON.stringify(evaluation.verdict.verdict)},"status":${JSON.stringify(meta.status)}` +
    `,"certification":"${CERTIFICATION}","harnessVersion":${JSON.stringify(meta.harnessVersion)}` +
    `,"report":${reportText},"score":${JSON.stringify(evaluation.score)}` +
    `,"patches":${JSON.stringify(evaluation.patches)},"toolClassification":${JSON.stringify(meta.toolClassification)}}`
  );
}
