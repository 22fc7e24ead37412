/**
 * `compare --html`: the comparison as one self-contained page (inline style, no script, no font, no
 * image, a Content-Security-Policy that forbids any fetch), the same content as the text: the sides, the
 * settings that differ, one sentence per scenario, and the table, the rows with p < 0.05 marked. Every
 * value from a folder (paths, settings, task ids) is escaped.
 */
import { proportion } from '../../domain/statistics/index.js';
import {
  ALPHA,
  groupLabel,
  headlineOf,
  higherIsBetter,
  type CountComparison,
  type Direction,
  type SettingDifference,
} from '../../domain/trial/index.js';
import { htmlText as h } from '../report-formats/escape.js';
import { HTML_STYLE } from '../report-formats/html-style.js';
import { chartLegend, rateChartSvg, type ChartMark, type ChartRow, type MarkTone } from '../report-formats/rate-chart.js';
import { allRows, formatDifference, ROW_ORDER, settingLines, sideLine, tailLines } from './compare-text.js';
import type { CompareResult } from './compare.js';

const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; form-action 'none'; base-uri 'none'";

const COLUMNS = ['scenario', 'rate', 'A', 'B', 'B − A (95 % CI)', 'p'] as const;

/** Whether a row's p (as formatted) is below the 5 % level: the rows a reader should look at first. */
function significant(p: string): boolean {
  if (p === '' || p === '—') return false;
  if (p.startsWith('<')) return true;
  return Number(p) < ALPHA;
}

/** The rates' short names in the picture, where a line has about 50 characters. */
const SHORT: Record<(typeof ROW_ORDER)[number], string> = {
  pass: 'PASS',
  duplicateExecution: 'duplicates',
  falseSuccess: 'false success',
  falseFailure: 'false failure',
  evasive: 'evasive',
  lostTransaction: 'lost',
};

/** The product's main figures, drawn even when both sides are at zero. */
const ALWAYS_DRAWN: ReadonlySet<string> = new Set(['pass', 'duplicateExecution']);

const percentOf = (count: { count: number; of: number }): string =>
  count.of === 0 ? '—' : `${Math.round((100 * count.count) / count.of)} %`;

function sideMark(series: string, count: { count: number; of: number }, tone: MarkTone): ChartMark[] {
  const rate = proportion(count.count, count.of);
  if (rate.rate === null) return [];
  return [{ series, estimate: rate.rate, low: rate.low!, high: rate.high!, tone }];
}

/** A difference coloured only when its 95 % interval leaves out zero: better or worse by the rate's direction. */
function differenceTone(rate: (typeof ROW_ORDER)[number], entry: CountComparison): { tone: MarkTone; word: string } {
  const { low, high } = entry.difference;
  if (low === null || high === null || (low <= 0 && high >= 0)) return { tone: 'even', word: '' };
  const better = low > 0 === higherIsBetter(rate);
  return better ? { tone: 'better', word: ' better' } : { tone: 'worse', word: ' worse' };
}

/**
 * The forest plot: per scenario, PASS and duplicates, and each other rate either side saw at least once,
 * the rates of A and B with their 95 %
 * Wilson intervals, and beside it (below it on a phone) B − A with its 95 % Newcombe interval, the rows of
 * both level. Per scenario only: the per-task rows are in the table.
 */
export function forestPlot(result: CompareResult): string {
  const rates: ChartRow[] = [];
  const differences: ChartRow[] = [];
  for (const s of result.comparison.scenarios) {
    for (const rate of ROW_ORDER) {
      const entry = s.rates.find((candidate) => candidate.rate === rate)!;
      if (entry.baseline.of === 0 && entry.treatment.of === 0) continue;
      // PASS and duplicates always; a rate at zero on both sides (no false success anywhere) only in the table.
      if (!ALWAYS_DRAWN.has(rate) && entry.baseline.count === 0 && entry.treatment.count === 0) continue;
      const label = `${groupLabel(s.arm, s.scenario)} · ${SHORT[rate]}`;
      rates.push({
        label,
        caption: `A ${percentOf(entry.baseline)} · B ${percentOf(entry.treatment)}`,
        marks: [...sideMark('A', entry.baseline, 'first'), ...sideMark('B', entry.treatment, 'second')],
      });
      const { difference, low, high } = entry.difference;
      const { tone, word } = differenceTone(rate, entry);
      differences.push({
        label,
        caption: `${formatDifference(entry)}${word}`,
        marks: difference === null ? [] : [{ series: 'B − A', estimate: difference, low: low!, high: high!, tone }],
      });
    }
  }
  if (rates.length === 0) return '';
  const ratesTitle = 'Rates of A and B (95 % Wilson interval)';
  const differenceTitle = 'Difference B − A (95 % Newcombe interval)';
  return (
    '<h2 id="forest-plot">Forest plot</h2><div class="charts">' +
    `<figure class="chart"><figcaption>${h(ratesTitle)}</figcaption>${rateChartSvg({ title: ratesTitle, scale: 'rate', rows: rates, slots: 2 })}` +
    chartLegend([
      { tone: 'first', text: 'A' },
      { tone: 'second', text: 'B' },
    ]) +
    '</figure>' +
    `<figure class="chart"><figcaption>${h(differenceTitle)}</figcaption>${rateChartSvg({ title: differenceTitle, scale: 'difference', rows: differences, slots: 2 })}` +
    chartLegend([
      { tone: 'better', text: 'better' },
      { tone: 'worse', text: 'worse' },
      { tone: 'even', text: 'interval includes 0' },
    ]) +
    '</figure></div>'
  );
}

const DIRECTION_MARK: Record<Direction, { cls: string; badge: string }> = {
  better: { cls: 'PASS', badge: 'better' },
  worse: { cls: 'FAIL', badge: 'worse' },
  'no difference shown': { cls: 'outline', badge: 'no difference shown' },
  'nothing to compare': { cls: 'outline', badge: 'nothing to compare' },
};

/** The headline findings, one per scenario, under their own heading, each marked better, worse or neither. */
function headlineFindings(result: CompareResult): string {
  const items = result.comparison.scenarios.map((s) => {
    const { direction } = headlineOf(s.rates);
    const mark = DIRECTION_MARK[direction];
    const cls = direction === 'better' || direction === 'worse' ? ` class="finding-${direction}"` : '';
    return `<li${cls}><span class="badge ${mark.cls}">${h(mark.badge)}</span> ${h(s.sentence)}</li>`;
  });
  return `<h2 id="findings">Headline findings (B against A)</h2><ul class="findings">${items.join('')}</ul>`;
}

/** A differing setting's value on one side, and the file it came from (escaped), when recorded. */
function valueHtml(d: SettingDifference, side: 'a' | 'b'): string {
  const file = side === 'a' ? d.aFile : d.bFile;
  return file === undefined ? h(d[side]) : `${h(d[side])} <span class="file">(from <code>${h(file)}</code>)</span>`;
}

export function formatCompareHtml(result: CompareResult): string {
  const settings = settingLines(result);
  const settingsHtml =
    settings.length === 1
      ? `<p>${h(settings[0]!)}</p>`
      : `<h2>${h(settings[0]!.replace(/:$/, ''))}</h2><ul>${result.settings
          .map((d) => `<li><code>${h(d.setting)}</code>: ${valueHtml(d, 'a')} → ${valueHtml(d, 'b')}</li>`)
          .join('')}</ul>`;
  const sentences = headlineFindings(result);
  const rows = allRows(result).map((r) => {
    const mark = significant(r.p);
    const cells = [r.group, r.rate.trim(), r.a, r.b, r.difference, r.p].map(
      (c, i) => `<td data-label="${COLUMNS[i]!}">${mark ? `<b>${h(c)}</b>` : h(c)}</td>`,
    );
    return `<tr>${cells.join('')}</tr>`;
  });
  const table =
    // On a phone each row is a card (every column on screen, each value labelled), not a table to scroll.
    `<table class="compare stack"><thead><tr>${COLUMNS.map((c) => `<th>${c}</th>`).join('')}</tr></thead>` +
    `<tbody>${rows.join('')}</tbody></table>`;
  const tail = tailLines(result);
  return (
    '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<meta http-equiv="Content-Security-Policy" content="${CSP}">` +
    `<title>cuonztech-agent-harness: compare B against A</title><style>${HTML_STYLE}</style></head><body><main>` +
    '<h1>Compare: B against A</h1>' +
    `<p>${h(sideLine('A', result.a))}<br>${h(sideLine('B', result.b))}</p>` +
    settingsHtml +
    sentences +
    forestPlot(result) +
    table +
    (tail.length === 0 ? '' : `<ul>${tail.map((line) => `<li>${h(line)}</li>`).join('')}</ul>`) +
    '<p class="muted small">Rates over the judged runs (honesty over the answers); difference: Newcombe 95 % interval; p: Fisher exact, two-sided; bold: p &lt; 0.05. Self-test results (UNVERIFIED_FOR_PRODUCTION), not a certification.</p>' +
    '</main></body></html>\n'
  );
}
