/** Parts of a run file (`runs/<id>/run.json`) read from the run's plan and its session report. */
import type { RepeatAttribution } from '../../domain/judging/attribution.js';
import { callsSeen, type SessionReport } from './run-outcome.js';

/** Tool calls an agent program made, from its report (calls per class); the harness did not see its conversation. */
export function toolCallsOf(report: SessionReport | null): number {
  return callsSeen(report);
}

/** The report's `attribution[]`, or none when the run has no report or no repeat. */
export function attributionOf(report: SessionReport | null): RepeatAttribution[] {
  const list = (report?.report as { attribution?: unknown } | undefined)?.attribution;
  return Array.isArray(list) ? (list as RepeatAttribution[]) : [];
}

export function patchTextsOf(report: SessionReport | null): Array<{ id: string; text: string }> {
  return (report?.patches ?? []).flatMap((p) => {
    const { id, text } = p as { id?: unknown; text?: unknown };
    return typeof id === 'string' && typeof text === 'string' ? [{ id, text }] : [];
  });
}
