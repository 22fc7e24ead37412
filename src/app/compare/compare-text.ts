/**
 * `compare`'s three outputs: the text on stdout, the `--markdown` page and the `--json` document. The
 * settings that differ come first, then one sentence per scenario, then the table: per arm and scenario
 * (and per task when there is more than one), each rate in A and in B and the difference B − A with its
 * 95 % Newcombe interval and Fisher's exact p (docs/statistics.md).
 */
import { REPEAT_SOURCES } from '../../domain/judging/attribution.js';
import { markdownInline } from '../../domain/text/markdown-text.js';
import { COMPARE_OUTPUT_SCHEMA_VERSION } from '../../domain/report/schema-versions.js';
import { escapeTerminalText } from '../../domain/text/terminal-text.js';
import {
  EFFECT_RATES,
  formatP,
  formatProportion,
  groupLabel,
  type EffectRate,
  type ComparedRate,
  type CountComparison,
  type GroupComparison,
  type SettingDifference,
} from '../../domain/trial/index.js';
import { alignedRows } from '../report-formats/text-table.js';
import type { StatsResult } from '../stats/stats.js';
import type { CompareResult } from './compare.js';

export const RATE_TITLES: Record<ComparedRate, string> = {
  pass: 'PASS',
  duplicateExecution: 'duplicate executions',
  falseFailure: 'false failures',
  falseSuccess: 'false successes',
  evasive: 'evasive answers',
  lostTransaction: 'lost transactions',
};
/** The table's order: the verdict, the product's main figure, then honesty and lost writes. */
export const ROW_ORDER: readonly ComparedRate[] = [
  'pass',
  'duplicateExecution',
  'falseSuccess',
  'falseFailure',
  'evasive',
  'lostTransaction',
];

const sign = (value: number): string => (value > 0 ? '+' : value < 0 ? '−' : '±');
const pp = (value: number): string => `${sign(value)}${Math.abs(Math.round(value * 100))}`;

/** `−35 pp [−56, −14]`; `—` when a side has no runs for the rate. */
export function formatDifference(entry: CountComparison): string {
  const { difference, low, high } = entry.difference;
  if (difference === null) return '—';
  return `${pp(difference)} pp [${pp(low!)}, ${pp(high!)}]`;
}

const share = (count: { count: number; of: number }): string =>
  count.of === 0 ? '—' : `${count.count}/${count.of} (${Math.round((count.count / count.of) * 100)} %)`;

export const EFFECT_RATE_TITLES: Record<EffectRate, string> = {
  duplicateEffect: 'duplicate effects',
  lostEffect: 'lost effects',
  exactlyOnce: 'exactly once (effects)',
  unknown: 'effects unknown',
};

export interface Row {
  group: string;
  rate: string;
  a: string;
  b: string;
  difference: string;
  p: string;
}

/** The rows of one group: the compared rates, the duplicate sources seen on either side, pass^k. */
function groupRows(group: string, comparison: GroupComparison): Row[] {
  const rows: Row[] = [];
  for (const rate of ROW_ORDER) {
    const entry = comparison.rates.find((candidate) => candidate.rate === rate)!;
    rows.push({
      group,
      rate: RATE_TITLES[rate],
      a: share(entry.baseline),
      b: share(entry.treatment),
      difference: formatDifference(entry),
      p: entry.p === null ? '—' : formatP(entry.p),
    });
  }
  for (const source of REPEAT_SOURCES) {
    const entry = comparison.duplicateBySource[source];
    if (entry.baseline.count === 0 && entry.treatment.count === 0) continue;
    rows.push({
      group,
      rate: `  duplicates by ${source}`,
      a: share(entry.baseline),
      b: share(entry.treatment),
      difference: formatDifference(entry),
      p: entry.p === null ? '—' : formatP(entry.p),
    });
  }
  // each side over its runs with an effects view only (a side without one shows —, never pooled).
  if (comparison.effects !== null) {
    const [va, vb] = comparison.effects.viewed;
    rows.push({ group, rate: 'runs with an effects view', a: String(va), b: String(vb), difference: '', p: '' });
    for (const rate of EFFECT_RATES) {
      const entry = comparison.effects.rates[rate];
      rows.push({
        group,
        rate: `  ${EFFECT_RATE_TITLES[rate]}`,
        a: formatProportion(entry.a),
        b: formatProportion(entry.b),
        difference: formatDifference(entry),
        p: entry.p === null ? '—' : formatP(entry.p),
      });
    }
  }
  if (comparison.passK !== null) {
    const { k, a, b } = comparison.passK;
    rows.push({
      group,
      rate: `pass^${k}`,
      a: a.toFixed(2),
      b: b.toFixed(2),
      difference: `${sign(b - a)}${Math.abs(b - a).toFixed(2)}`,
      p: '',
    });
  }
  return rows;
}

/** Every row of the table: per arm and scenario, then per task when the group has more than one. */
export function allRows(result: CompareResult): Row[] {
  const rows: Row[] = [];
  for (const s of result.comparison.scenarios) {
    const label = groupLabel(s.arm, s.scenario);
    rows.push(...groupRows(label, s));
    if (s.tasks.length > 1) for (const task of s.tasks) rows.push(...groupRows(`${label}, task ${task.taskId}`, task));
  }
  return rows;
}

export const sideLine = (name: string, side: StatsResult): string =>
  `${name} = ${side.sources.map((source) => source.path).join(', ')} (${side.runs} run${side.runs === 1 ? '' : 's'}, harness ${side.sources[0]!.harnessVersion})`;

/** A differing setting's value on one side, with the file it came from when recorded: `sha256:… (from a.txt)`. */
export const settingValue = (d: SettingDifference, side: 'a' | 'b'): string => {
  const file = side === 'a' ? d.aFile : d.bFile;
  return file === undefined ? d[side] : `${d[side]} (from ${file})`;
};

export function settingLines(result: CompareResult): string[] {
  if (result.a.settings === null || result.b.settings === null)
    return ['settings: not recorded by every folder (an older trial); only the figures are compared'];
  if (result.settings.length === 0) return ['settings: none differs between A and B'];
  return [
    'settings that differ (A → B):',
    ...result.settings.map((d) => `  ${d.setting}: ${settingValue(d, 'a')} → ${settingValue(d, 'b')}`),
  ];
}

export function tailLines(result: CompareResult): string[] {
  const lines: string[] = [];
  const { onlyA, onlyB } = result.comparison;
  if (onlyA.length > 0) lines.push(`only in A (not compared): ${onlyA.join(', ')}`);
  if (onlyB.length > 0) lines.push(`only in B (not compared): ${onlyB.join(', ')}`);
  for (const warning of [...result.a.warnings.map((w) => `A: ${w}`), ...result.b.warnings.map((w) => `B: ${w}`)])
    lines.push(`WARNING: ${warning}`);
  return lines;
}

/** Folder names, settings and run files are outside text: each line escaped for the terminal. */
const one = (line: string): string => escapeTerminalText(line);

export function formatCompareText(result: CompareResult): string {
  const out = [sideLine('A', result.a), sideLine('B', result.b), ...settingLines(result), ''];
  for (const s of result.comparison.scenarios) out.push(s.sentence);
  out.push('');
  const rows = allRows(result).map((r) => [r.group, r.rate, r.a, r.b, r.difference, r.p]);
  out.push(...alignedRows(['scenario', 'rate', 'A', 'B', 'B − A (95 % CI)', 'p'], rows));
  out.push(...tailLines(result));
  if (result.comparison.scenarios.some((s) => s.effects !== null))
    out.push('effect rates: each side over its runs with an effects view only, with the 95 % Wilson interval');
  out.push(
    'rates over the judged runs (honesty over the answers); difference: Newcombe 95 % interval; p: Fisher exact, two-sided',
  );
  return `${out.map(one).join('\n')}\n`;
}

const mdRow = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;

export function formatCompareMarkdown(result: CompareResult): string {
  const md = markdownInline;
  const parts = ['## Compare: B against A', `- ${md(sideLine('A', result.a))}\n- ${md(sideLine('B', result.b))}`];
  const settings = settingLines(result);
  parts.push(
    settings.length === 1
      ? md(settings[0]!)
      : [
          `### ${md(settings[0]!.replace(/:$/, ''))}`,
          '',
          ...result.settings.map((d) => `- ${md(d.setting)}: ${md(settingValue(d, 'a'))} → ${md(settingValue(d, 'b'))}`),
        ].join('\n'),
  );
  parts.push(result.comparison.scenarios.map((s) => `- ${md(s.sentence)}`).join('\n'));
  const head = ['scenario', 'rate', 'A', 'B', 'B − A (95 % CI)', 'p'];
  const table = [mdRow(head), mdRow(head.map(() => '---'))];
  for (const r of allRows(result)) table.push(mdRow([md(r.group), md(r.rate.trim()), r.a, r.b, r.difference, r.p]));
  parts.push(table.join('\n'));
  const tail = tailLines(result);
  if (tail.length > 0) parts.push(tail.map((line) => `- ${md(line)}`).join('\n'));
  return `${parts.join('\n\n')}\n`;
}

/** The `--json` document: both sides' sources and summaries, the differing settings, the comparison. */
export function compareDocument(result: CompareResult, harnessVersion: string): Record<string, unknown> {
  const side = (s: StatsResult) => ({
    runs: s.runs,
    sources: s.sources,
    warnings: s.warnings,
    settings: s.settings,
    statistics: s.summary,
  });
  return {
    schemaVersion: COMPARE_OUTPUT_SCHEMA_VERSION,
    kind: 'compare',
    harnessVersion,
    certification: 'UNVERIFIED_FOR_PRODUCTION',
    a: side(result.a),
    b: side(result.b),
    settingsThatDiffer: result.settings,
    comparison: result.comparison,
  };
}
