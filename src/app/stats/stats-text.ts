/**
 * The `stats` table on stdout and its JSON document. One row per arm and scenario: counts, how often the
 * fault fired, the rates with their 95 % Wilson intervals (see docs/statistics.md) and pass^k at the
 * largest k; then the NOT_TESTED reasons, the A/B sentences, the warnings and where the runs came from.
 */
import { REPEAT_SOURCES } from '../../domain/judging/attribution.js';
import { STATS_OUTPUT_SCHEMA_VERSION } from '../../domain/report/schema-versions.js';
import { escapeTerminalText } from '../../domain/text/terminal-text.js';
import { formatProportion, type ScenarioSummary } from '../../domain/trial/index.js';
import { alignedRows } from '../report-formats/text-table.js';
import type { StatsResult } from './stats.js';

function row(s: ScenarioSummary, arms: boolean): string[] {
  const last = s.passK[s.passK.length - 1];
  return [
    ...(arms ? [s.arm] : []),
    s.scenario,
    String(s.runs),
    String(s.pass),
    String(s.fail),
    String(s.notTested),
    String(s.faultFired),
    formatProportion(s.rates.pass),
    formatProportion(s.rates.duplicateExecution),
    formatProportion(s.rates.lostTransaction),
    formatProportion(s.rates.falseFailure),
    formatProportion(s.rates.falseSuccess),
    last === undefined ? '—' : `${last.value.toFixed(2)} (k=${last.k})`,
  ];
}

/** Run files are outside text: every control or invisible character escaped (newlines too), one line. */
const one = (line: string): string => escapeTerminalText(line);

export function formatStatsTable(result: StatsResult): string {
  const arms = result.summary.arms.length > 1;
  const head = [
    ...(arms ? ['arm'] : []),
    'scenario',
    'runs',
    'PASS',
    'FAIL',
    'NOT_TESTED',
    'fault fired',
    'PASS rate',
    'duplicate executions',
    'lost transactions',
    'false failures',
    'false successes',
    'pass^k',
  ];
  const rows = result.summary.scenarios.map((s) => row(s, arms).map(one));
  const out = alignedRows(head, rows);
  // R-14: the duplicate rate by who sent the write again, for the groups with a duplicate.
  for (const s of result.summary.scenarios) {
    if (s.rates.duplicateExecution.count === 0) continue;
    const bySource = REPEAT_SOURCES.map((source) => `${source} ${formatProportion(s.duplicateBySource[source])}`);
    out.push(one(`duplicates by source ${arms ? `${s.arm} ` : ''}${s.scenario}: ${bySource.join(', ')}`));
  }
  // R-15: the effect rates, over the runs with an effects view only.
  for (const s of result.summary.scenarios) {
    const e = s.effects;
    if (e.viewed === 0) continue;
    out.push(
      one(
        `effects ${arms ? `${s.arm} ` : ''}${s.scenario} (${e.viewed} of ${s.runs} runs with an effects view): ` +
          `duplicate effect ${formatProportion(e.duplicateEffect)}, lost effect ${formatProportion(e.lostEffect)}, ` +
          `exactly once ${formatProportion(e.exactlyOnce)}, unknown ${formatProportion(e.unknown)}`,
      ),
    );
  }
  for (const s of result.summary.scenarios) {
    for (const { reason, count } of s.notTestedReasons)
      out.push(one(`NOT_TESTED ${arms ? `${s.arm} ` : ''}${s.scenario} ×${count}: ${reason}`));
  }
  for (const comparison of result.comparisons) for (const s of comparison.scenarios) out.push(one(s.sentence));
  for (const warning of result.warnings) out.push(one(`WARNING: ${warning}`));
  out.push(
    `rates: count/of (rate; 95 % Wilson interval) over the judged runs; ${result.runs} run${result.runs === 1 ? '' : 's'} from ${result.sources.length} folder${result.sources.length === 1 ? '' : 's'}:`,
  );
  for (const source of result.sources) {
    out.push(
      one(
        `  ${source.path} (${source.kind === 'trial' ? 'trial' : 'proxy sessions'}${source.shard === null ? '' : `, shard ${source.shard.index}/${source.shard.count}`}, ${source.runs} run${source.runs === 1 ? '' : 's'}, harness ${source.harnessVersion})`,
      ),
    );
  }
  return `${out.join('\n')}\n`;
}

/** The `--json` document: the sources, the warnings, and `summariseRuns`'s value as it is. */
export function statsDocument(result: StatsResult, harnessVersion: string): Record<string, unknown> {
  return {
    schemaVersion: STATS_OUTPUT_SCHEMA_VERSION,
    kind: 'stats-summary',
    harnessVersion,
    certification: 'UNVERIFIED_FOR_PRODUCTION',
    runs: result.runs,
    sources: result.sources,
    warnings: result.warnings,
    statistics: result.summary,
    comparisons: result.comparisons,
  };
}
