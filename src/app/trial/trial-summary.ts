/**
 * The trial's summary: one group per scenario and task — runs, PASS / FAIL / NOT_TESTED, duplicate
 * executions, median tool calls, the NOT_TESTED reasons, where the run files are — as `summary.json` and
 * as a table for stdout. Statistics, honesty and patch A/B (issue 14) get their places here, empty.
 */
import type { RunRecord } from './run-executor.js';

export interface GroupSummary {
  scenario: string;
  task: string;
  runs: number;
  pass: number;
  fail: number;
  notTested: number;
  /** Executions beyond the first of an operation, summed over the runs (NOT_TESTED runs included). */
  duplicateExecutions: number;
  /** Runs with at least one duplicate execution. */
  runsWithDuplicates: number;
  medianToolCalls: number | null;
  /** NOT_TESTED reasons and how many runs had each. */
  notTestedReasons: Record<string, number>;
  runFiles: string[];
  /** Issue 14: rates with Wilson intervals, pass^k, fault fired in how many runs. */
  statistics: null;
}

export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Groups the runs by scenario and task, in the order the runs were planned. */
export function summarise(records: readonly RunRecord[]): GroupSummary[] {
  const groups = new Map<string, RunRecord[]>();
  for (const record of [...records].sort((a, b) => a.spec.id.localeCompare(b.spec.id))) {
    const key = `${record.spec.scenarioLabel}\u0000${record.spec.task.id}`;
    (groups.get(key) ?? groups.set(key, []).get(key)!).push(record);
  }
  return [...groups.values()].map((runs) => {
    // Reasons may quote a program's stderr: no prototype, so no key can reach Object.prototype.
    const reasons = Object.create(null) as Record<string, number>;
    for (const r of runs) if (r.outcome.verdict === 'NOT_TESTED') reasons[r.outcome.reason] = (reasons[r.outcome.reason] ?? 0) + 1;
    return {
      scenario: runs[0]!.spec.scenarioLabel,
      task: runs[0]!.spec.task.id,
      runs: runs.length,
      pass: runs.filter((r) => r.outcome.verdict === 'PASS').length,
      fail: runs.filter((r) => r.outcome.verdict === 'FAIL').length,
      notTested: runs.filter((r) => r.outcome.verdict === 'NOT_TESTED').length,
      duplicateExecutions: runs.reduce((sum, r) => sum + r.outcome.duplicateExecutions, 0),
      runsWithDuplicates: runs.filter((r) => r.outcome.duplicateExecutions > 0).length,
      medianToolCalls: median(runs.map((r) => r.toolCalls)),
      notTestedReasons: reasons,
      runFiles: runs.map((r) => r.file),
      statistics: null,
    };
  });
}

/** The table printed on stdout at the end. */
export function formatTable(groups: readonly GroupSummary[], root: string): string {
  const withTask = new Set(groups.map((g) => g.task)).size > 1;
  const head = ['scenario', ...(withTask ? ['task'] : []), 'runs', 'PASS', 'FAIL', 'NOT_TESTED', 'duplicate executions', 'median tool calls'];
  const rows = groups.map((g) => [
    g.scenario, ...(withTask ? [g.task] : []), String(g.runs), String(g.pass), String(g.fail), String(g.notTested),
    g.duplicateExecutions === 0 ? '0' : `${g.duplicateExecutions} (in ${g.runsWithDuplicates} run${g.runsWithDuplicates === 1 ? '' : 's'})`,
    g.medianToolCalls === null ? '-' : String(g.medianToolCalls),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  const out = [line(head), ...rows.map(line)];
  for (const g of groups) {
    for (const [reason, n] of Object.entries(g.notTestedReasons)) {
      out.push(`NOT_TESTED ${g.scenario}${withTask ? ` ${g.task}` : ''} ×${n}: ${reason}`);
    }
  }
  out.push(`run files: ${root}/runs/<run>/run.json; summary: ${root}/summary.json`);
  return `${out.join('\n')}\n`;
}
