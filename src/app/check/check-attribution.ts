/**
 * Who sent each repeated write (R-14: `model`, `user`, `runtime` or `unknown`), as `check` reads it back:
 * from a trial run file's `attribution[]`, or from a report's own `attribution[]` and its violations'
 * `duplicate.source` where a report carries them. Report fields are read as optional and untrusted (a
 * report of an older harness has none), so nothing here assumes more of them than it checks.
 */
import { REPEAT_SOURCES, type RepeatAttribution, type RepeatSource } from '../../domain/judging/attribution.js';
import { isPlainObject, ownValue } from '../../domain/json.js';
import type { Violation } from '../../domain/report/report.js';
import type { SessionReportDocument } from '../../ports/shapes/report-documents.js';
import type { CheckedAttribution, CheckedViolation } from './check-model.js';

const isSource = (value: unknown): value is RepeatSource =>
  typeof value === 'string' && (REPEAT_SOURCES as string[]).includes(value);
const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 0;

/** One attribution entry when it has the shape the run file's schema gives it; null otherwise. */
function attributionEntry(value: unknown): CheckedAttribution | null {
  if (!isPlainObject(value)) return null;
  const get = (key: string) => ownValue(value, key);
  const evidence = get('evidence');
  const source = get('source');
  const tool = get('tool');
  if (!isSource(source) || typeof tool !== 'string' || !isPlainObject(evidence)) return null;
  const [operation, attempt, session] = [get('operation'), get('attempt'), get('session')];
  if (!isCount(operation) || !isCount(attempt) || !isCount(session)) return null;
  const ev = (key: string) => ownValue(evidence, key);
  const modelAnswer = ev('modelAnswer');
  const toolCallId = ev('toolCallId');
  const signal = ev('signal');
  return {
    runtimeSignal: typeof signal === 'string' ? signal : null,
    operation,
    tool,
    attempt,
    session,
    source,
    evidence: {
      earlierAttempt: isCount(ev('earlierAttempt')) ? (ev('earlierAttempt') as number) : 0,
      earlierSession: isCount(ev('earlierSession')) ? (ev('earlierSession') as number) : 0,
      sinceEarlierMs: typeof ev('sinceEarlierMs') === 'number' ? (ev('sinceEarlierMs') as number) : 0,
      earlierDelivered: ev('earlierDelivered') === true,
      earlierCancelled: ev('earlierCancelled') === true,
      ...(isCount(modelAnswer) ? { modelAnswer } : {}),
      ...(typeof toolCallId === 'string' ? { toolCallId } : {}),
    },
  };
}

/** Attribution entries as read from a file (a run file's or a report's `attribution[]`); the malformed left out. */
export function attributionFrom(list: unknown): CheckedAttribution[] {
  if (!Array.isArray(list)) return [];
  return list.map(attributionEntry).filter((a): a is CheckedAttribution => a !== null);
}

/** A report's own `attribution[]` (a newer harness writes it); empty when it has none. */
export function reportAttribution(doc: SessionReportDocument | null): CheckedAttribution[] {
  return doc === null ? [] : attributionFrom(ownValue(doc.report, 'attribution'));
}

/**
 * Each violation with its sources: those of the attribution entries of its operation (the operation whose
 * tool and canonical arguments it names: every repeat, so a duplicate re-sent by the model and then after a
 * user's turn names both), else the report's own `duplicate.source` (which names the first repeat only).
 */
export function withSources(
  violations: readonly Violation[],
  attribution: readonly RepeatAttribution[],
  doc: SessionReportDocument | null,
): CheckedViolation[] {
  const operationOf = new Map<string, number>();
  for (const op of doc?.report.operations ?? []) operationOf.set(`${op.tool}\u0000${op.arguments}`, op.id);
  return violations.map((v) => {
    if (v.type !== 'DUPLICATE_EXECUTION') return { ...v, sources: [] };
    const operation = operationOf.get(`${v.tool}\u0000${v.arguments}`);
    const sources = new Set(attribution.filter((a) => a.operation === operation).map((a) => a.source));
    if (sources.size > 0) return { ...v, sources: [...sources] };
    const own = v.duplicate === undefined ? undefined : ownValue(v.duplicate, 'source');
    return { ...v, sources: isSource(own) ? [own] : [] };
  });
}

/** How many repeated writes each source sent, over the attributions given (every source named, zeros too). */
export function countBySource(attribution: ReadonlyArray<{ source: RepeatSource }>): Record<RepeatSource, number> {
  const counts: Record<RepeatSource, number> = { model: 0, user: 0, runtime: 0, unknown: 0 };
  for (const a of attribution) counts[a.source] += 1;
  return counts;
}
