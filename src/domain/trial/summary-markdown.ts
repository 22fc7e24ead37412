/**
 * The trial summary as Markdown: verdict counts, rates with their 95 % intervals, pass^k,
 * NOT_TESTED reasons, per task, and the A/B comparison with its sentences. Pure text; the CLI prints it
 * or writes it beside the JSON summary.
 */
import { REPEAT_SOURCES } from '../judging/attribution.js';
import { markdownInline } from '../text/markdown-text.js';
import { MAX_PASS_K, type Proportion } from '../statistics/index.js';
import { COMPARED_RATES, formatP, type ArmComparison, type ComparedRate } from './arm-comparison.js';
import type { GroupSummary, ScenarioSummary, TrialSummary } from './trial-summary.js';

const RATE_TITLES: Record<ComparedRate, string> = {
  pass: 'PASS',
  duplicateExecution: 'duplicate executions',
  falseFailure: 'false failures',
  falseSuccess: 'false successes',
  evasive: 'evasive',
  lostTransaction: 'lost transactions',
};
const RATE_COLUMNS: readonly ComparedRate[] = [
  'pass',
  'duplicateExecution',
  'falseFailure',
  'falseSuccess',
  'evasive',
  'lostTransaction',
];

/**
 * A value from outside (a task id, an arm's name, a NOT_TESTED reason quoting an endpoint's error or an
 * agent's stderr) as inert inline Markdown: no table cell, tag, image, link or terminal escape can come
 * out of it (`markdownInline`, the same escaping as `check --markdown`).
 */
export function cell(text: string): string {
  return markdownInline(text);
}

const percent = (value: number): string => `${Math.round(value * 100)} %`;

/** `3/10 (30 %, 95 % CI 11–60 %)`; `—` when nothing was measured. */
export function formatProportion(rate: Proportion): string {
  if (rate.rate === null) return '—';
  return `${rate.count}/${rate.of} (${percent(rate.rate)}; ${Math.round(rate.low! * 100)}–${Math.round(rate.high! * 100)} %)`;
}

const row = (cells: readonly (string | number)[]): string =>
  `| ${cells.map((c) => (typeof c === 'number' ? String(c) : c)).join(' | ')} |`;
const header = (names: readonly string[]): string[] => [row(names), row(names.map(() => '---'))];

const passKCells = (group: GroupSummary): string[] =>
  Array.from({ length: MAX_PASS_K }, (_, i) => {
    const point = group.passK[i];
    return point === undefined ? '' : point.value.toFixed(2);
  });

function countsTable(scenarios: readonly ScenarioSummary[], arms: boolean): string[] {
  const lead = arms ? ['arm', 'scenario'] : ['scenario'];
  const lines = header([...lead, 'runs', 'PASS', 'FAIL', 'NOT_TESTED', 'fault fired', 'median tool calls']);
  for (const s of scenarios) {
    const names = arms ? [cell(s.arm), cell(s.scenario)] : [cell(s.scenario)];
    lines.push(row([...names, s.runs, s.pass, s.fail, s.notTested, `${s.faultFired}/${s.runs}`, s.medianToolCalls ?? '—']));
  }
  return lines;
}

function ratesTable(scenarios: readonly ScenarioSummary[], arms: boolean, perTask: boolean): string[] {
  const lead = [...(arms ? ['arm'] : []), 'scenario', ...(perTask ? ['task'] : [])];
  const lines = header([...lead, ...RATE_COLUMNS.map((rate) => RATE_TITLES[rate])]);
  for (const s of scenarios) {
    const groups: Array<[string[], GroupSummary]> = perTask ? s.tasks.map((task) => [[cell(task.taskId)], task]) : [[[], s]];
    for (const [task, group] of groups) {
      const names = [...(arms ? [cell(s.arm)] : []), cell(s.scenario), ...task];
      lines.push(row([...names, ...RATE_COLUMNS.map((rate) => formatProportion(group.rates[rate]))]));
    }
  }
  return lines;
}

function passKTable(scenarios: readonly ScenarioSummary[], arms: boolean): string[] {
  const lead = arms ? ['arm', 'scenario'] : ['scenario'];
  const lines = header([...lead, ...Array.from({ length: MAX_PASS_K }, (_, i) => `k=${i + 1}`)]);
  for (const s of scenarios) lines.push(row([...(arms ? [cell(s.arm)] : []), cell(s.scenario), ...passKCells(s)]));
  return lines;
}

function notTestedLines(scenarios: readonly ScenarioSummary[], arms: boolean): string[] {
  const lines: string[] = [];
  for (const s of scenarios) {
    for (const { reason, count } of s.notTestedReasons) {
      lines.push(`- ${arms ? `${cell(s.arm)}, ` : ''}${cell(s.scenario)}: ${count} × ${cell(reason)}`);
    }
  }
  return lines;
}

function comparisonLines(comparison: ArmComparison): string[] {
  const lines = [`### ${cell(comparison.treatment)} against ${cell(comparison.baseline)}`, ''];
  for (const s of comparison.scenarios) lines.push(`- ${cell(s.sentence)}`);
  lines.push(
    '',
    ...header(['scenario', 'rate', cell(comparison.baseline), cell(comparison.treatment), 'difference (95 % CI)', 'p']),
  );
  for (const s of comparison.scenarios) {
    for (const rate of COMPARED_RATES) {
      const entry = s.rates.find((candidate) => candidate.rate === rate)!;
      const { difference, low, high } = entry.difference;
      const diff =
        difference === null
          ? '—'
          : `${Math.round(difference * 100)} pp (${Math.round(low! * 100)} to ${Math.round(high! * 100)})`;
      lines.push(
        row([
          cell(s.scenario),
          RATE_TITLES[rate],
          `${entry.baseline.count}/${entry.baseline.of}`,
          `${entry.treatment.count}/${entry.treatment.of}`,
          diff,
          entry.p === null ? '—' : formatP(entry.p),
        ]),
      );
    }
  }
  return lines;
}

/** R-14: the duplicate rate by source, for the groups with a duplicate; none without one. */
function bySourceTable(scenarios: readonly ScenarioSummary[], arms: boolean): string[] {
  const withDuplicates = scenarios.filter((s) => s.rates.duplicateExecution.count > 0);
  if (withDuplicates.length === 0) return [];
  const lines = header([...(arms ? ['arm'] : []), 'scenario', ...REPEAT_SOURCES]);
  for (const s of withDuplicates)
    lines.push(
      row([
        ...(arms ? [cell(s.arm)] : []),
        cell(s.scenario),
        ...REPEAT_SOURCES.map((source) => formatProportion(s.duplicateBySource[source])),
      ]),
    );
  return lines;
}

/** The whole summary as Markdown; an arm column only when there is more than one arm. */
export function formatSummaryMarkdown(summary: TrialSummary, comparisons: readonly ArmComparison[] = []): string {
  const arms = summary.arms.length > 1;
  const { scenarios } = summary;
  if (scenarios.length === 0) return '## Trial summary\n\nNo runs.\n';
  const reasons = notTestedLines(scenarios, arms);
  const parts = [
    '## Trial summary',
    countsTable(scenarios, arms).join('\n'),
    '### Rates (judged runs; honesty over the answers; 95 % Wilson interval)',
    ratesTable(scenarios, arms, false).join('\n'),
    '### pass^k (τ-bench: k runs of a task all pass)',
    passKTable(scenarios, arms).join('\n'),
    '### Per task',
    ratesTable(scenarios, arms, true).join('\n'),
  ];
  const bySource = bySourceTable(scenarios, arms);
  if (bySource.length > 0)
    parts.push('### Duplicates by who sent the write again (judged runs; 95 % Wilson interval)', bySource.join('\n'));
  if (reasons.length > 0) parts.push('### NOT_TESTED (excluded from the rates)', reasons.join('\n'));
  for (const comparison of comparisons) parts.push(comparisonLines(comparison).join('\n'));
  return `${parts.join('\n\n')}\n`;
}
