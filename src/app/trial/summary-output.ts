/**
 * The trial's summary: one group per scenario and task — runs, PASS / FAIL / NOT_TESTED, duplicate
 * executions, median tool calls, the NOT_TESTED reasons, where the run files are — as `summary.json` and
 * as a table for stdout. Statistics, honesty and patch A/B get their places here, empty.
 */
import { REPEAT_SOURCES } from '../../domain/judging/attribution.js';
import { modelFaultKindLabel, modelFaultOnLabel, type ModelFault } from '../../domain/faults/model-fault.js';
import { formatProportion, median, type ArmComparison, type TaskSummary, type TrialSummary } from '../../domain/trial/index.js';
import { alignedRows } from '../report-formats/text-table.js';
import type { RunRecord } from './run-executor.js';

export interface GroupSummary {
  /** The arm of an A/B: `baseline` or `patched`. */
  arm: string;
  scenario: string;
  task: string;
  runs: number;
  pass: number;
  fail: number;
  notTested: number;
  /** Executions beyond the first of an operation, summed over the runs (NOT_TESTED runs included). */
  extraExecutions: number;
  /** Runs with at least one duplicate execution. */
  runsWithDuplicates: number;
  medianToolCalls: number | null;
  /** NOT_TESTED reasons and how many runs had each. */
  notTestedReasons: Record<string, number>;
  runFiles: string[];
  /** This group's rates with Wilson intervals, pass^k, fault fired (filled from `summariseRuns`). */
  statistics: TaskSummary | null;
  /** `--model-fault`: in how many of the group's runs it fired (absent without the flag). */
  modelFaultFired?: number;
}

export { median };

/** Groups the runs by scenario and task, in the order the runs were planned. */
export function summarise(records: readonly RunRecord[]): GroupSummary[] {
  const groups = new Map<string, RunRecord[]>();
  for (const record of [...records].sort((a, b) => a.spec.id.localeCompare(b.spec.id))) {
    const key = `${record.spec.arm}\u0000${record.spec.scenarioLabel}\u0000${record.spec.task.id}`;
    (groups.get(key) ?? groups.set(key, []).get(key)!).push(record);
  }
  return [...groups.values()].map((runs) => {
    // Reasons may quote a program's stderr: no prototype, so no key can reach Object.prototype.
    const reasons = Object.create(null) as Record<string, number>;
    for (const r of runs)
      if (r.outcome.verdict === 'NOT_TESTED') reasons[r.outcome.reason] = (reasons[r.outcome.reason] ?? 0) + 1;
    return {
      arm: runs[0]!.spec.arm,
      scenario: runs[0]!.spec.scenarioLabel,
      task: runs[0]!.spec.task.id,
      runs: runs.length,
      pass: runs.filter((r) => r.outcome.verdict === 'PASS').length,
      fail: runs.filter((r) => r.outcome.verdict === 'FAIL').length,
      notTested: runs.filter((r) => r.outcome.verdict === 'NOT_TESTED').length,
      extraExecutions: runs.reduce((sum, r) => sum + r.outcome.extraExecutions, 0),
      runsWithDuplicates: runs.filter((r) => r.outcome.extraExecutions > 0).length,
      medianToolCalls: median(runs.map((r) => r.toolCalls)),
      notTestedReasons: reasons,
      runFiles: runs.map((r) => r.file),
      statistics: null,
      ...(runs.some((r) => r.modelFaultFired !== null)
        ? { modelFaultFired: runs.filter((r) => r.modelFaultFired === true).length }
        : {}),
    };
  });
}

/** Each group with its statistics: the task's entry of its arm and scenario in the trial summary. */
export function withStatistics(groups: readonly GroupSummary[], statistics: TrialSummary): GroupSummary[] {
  return groups.map((group) => {
    const scenario = statistics.scenarios.find((s) => s.arm === group.arm && s.scenario === group.scenario);
    return { ...group, statistics: scenario?.tasks.find((t) => t.taskId === group.task) ?? null };
  });
}

/**
 * the figures for stdout, after the table: per arm and scenario the rates with their 95 % Wilson
 * intervals, the honesty classes, lost transactions, pass^k, how often the fault fired, and the A/B
 * sentence. NOT_TESTED runs are excluded from the rates (their reasons are listed under the table).
 */
export function formatStatistics(statistics: TrialSummary, comparison: ArmComparison | null, patchNote: string | null): string[] {
  const arms = statistics.arms.length > 1;
  const out = ['statistics (judged runs; 95 % Wilson interval):'];
  for (const s of statistics.scenarios) {
    const name = `${arms ? `${s.arm} ` : ''}${s.scenario}`;
    const r = s.rates;
    out.push(
      `  ${name}: PASS ${formatProportion(r.pass)}; duplicate executions ${formatProportion(r.duplicateExecution)}; lost transactions ${formatProportion(r.lostTransaction)}${r.abandonedWrite.count > 0 ? `; abandoned writes (reported, not lost) ${formatProportion(r.abandonedWrite)}` : ''}; fault fired in ${s.faultFired}/${s.runs} run(s)${s.notTested > 0 ? `; NOT_TESTED ${s.notTested} (excluded)` : ''}`,
    );
    // R-14: who sent the duplicated writes again, when there were any.
    if (r.duplicateExecution.count > 0)
      out.push(
        `    duplicates by source: ${REPEAT_SOURCES.map((source) => `${source} ${formatProportion(s.duplicateBySource[source])}`).join('; ')}`,
      );
    if (s.honesty.measured > 0) {
      out.push(
        `    honesty (${s.honesty.measured} answer(s)): honest ${formatProportion(r.honest)}; false failures ${formatProportion(r.falseFailure)}; false successes ${formatProportion(r.falseSuccess)}; evasive ${formatProportion(r.evasive)}; unparsed ${formatProportion(r.unparsed)}`,
      );
    } else out.push('    honesty: NOT_MEASURED');
    if (s.passK.length > 0) out.push(`    pass^k: ${s.passK.map((p) => `k=${p.k} ${p.value.toFixed(2)}`).join('  ')}`);
  }
  if (patchNote !== null) out.push(`A/B: ${patchNote}`);
  for (const scenario of comparison?.scenarios ?? []) out.push(`A/B: ${scenario.sentence}`);
  return out;
}

/**
 * The line naming `--model-fault` as given, above the table: `model fault: 500 on after-write (…)`. With it
 * the table has a `model fault fired` column (in how many of each group's runs the fault hit a request).
 */
export function modelFaultLine(fault: ModelFault): string {
  const on =
    fault.on.kind === 'after-write'
      ? "the first model request carrying the write's result"
      : `model request ${modelFaultOnLabel(fault.on)}`;
  return `model fault: ${modelFaultKindLabel(fault.fault)} on ${on} (--model-fault ${modelFaultKindLabel(fault.fault)} --model-fault-on ${modelFaultOnLabel(fault.on)}); the harness answers it, the model never gets it`;
}

/**
 * The table printed on stdout at the end; the statistics lines go before the files line. `lead`: lines
 * above the table (the model fault's).
 */
export function formatTable(
  groups: readonly GroupSummary[],
  root: string,
  statistics: readonly string[] = [],
  lead: readonly string[] = [],
): string {
  const withTask = new Set(groups.map((g) => g.task)).size > 1;
  const withArm = new Set(groups.map((g) => g.arm)).size > 1;
  const withModelFault = groups.some((g) => g.modelFaultFired !== undefined);
  const head = [
    ...(withArm ? ['arm'] : []),
    'scenario',
    ...(withTask ? ['task'] : []),
    'runs',
    'PASS',
    'FAIL',
    'NOT_TESTED',
    'duplicate executions',
    'median tool calls',
    ...(withModelFault ? ['model fault fired'] : []),
  ];
  const rows = groups.map((g) => [
    ...(withArm ? [g.arm] : []),
    g.scenario,
    ...(withTask ? [g.task] : []),
    String(g.runs),
    String(g.pass),
    String(g.fail),
    String(g.notTested),
    g.extraExecutions === 0
      ? '0'
      : `${g.extraExecutions} (in ${g.runsWithDuplicates} run${g.runsWithDuplicates === 1 ? '' : 's'})`,
    g.medianToolCalls === null ? '-' : String(g.medianToolCalls),
    ...(withModelFault ? [`${g.modelFaultFired ?? 0}/${g.runs}`] : []),
  ]);
  const out = [...lead, ...alignedRows(head, rows)];
  for (const g of groups) {
    for (const [reason, n] of Object.entries(g.notTestedReasons)) {
      out.push(`NOT_TESTED ${withArm ? `${g.arm} ` : ''}${g.scenario}${withTask ? ` ${g.task}` : ''} ×${n}: ${reason}`);
    }
  }
  out.push(...statistics);
  out.push(`run files: ${root}/runs/<run>/run.json; summary: ${root}/summary.json, ${root}/summary.md`);
  return `${out.join('\n')}\n`;
}
