/**
 * A rate chart as inline SVG (no script, no font, no external file): one row per label, each with up to
 * a few marks — a point estimate and its 95 % interval drawn as a dot on a whisker — on a rate axis
 * (0–100 %) or a difference axis (−100 to +100 pp, zero marked). `compare --html` draws its forest plot
 * with it (the rates of A and B, and B − A), `check --html` over a trial the PASS and duplicate rates per
 * scenario.
 *
 * Readable at any width without scaling the text: the SVG is as wide as its box (`width="100%"`), every x
 * coordinate is a percentage of that width and every y and every font size is in pixels, so at 390 px
 * the whiskers get narrower and the text stays 12 px. A row's text is one line above its whiskers, cut to
 * {@link LINE_CHARS} characters (its `<title>` has it whole) so it fits a phone's width. The string is
 * well-formed XML: every label is escaped, what XML forbids removed.
 */
import { htmlText, xmlAttr, xmlText } from './escape.js';

/** How a mark is drawn: the colour, and a filled dot or a ring. */
export type MarkTone = 'first' | 'second' | 'third' | 'better' | 'worse' | 'even';

export interface ChartMark {
  /** What the mark is (`A`, `B`, `PASS`): its tooltip, and the legend's entry for its tone. */
  series: string;
  estimate: number;
  low: number;
  high: number;
  tone: MarkTone;
}

export interface ChartRow {
  /** The row's name (`F1 · PASS`), bold. */
  label: string;
  /** The figures after it (`A 4/10 = 40 % · B 9/10 = 90 %`). */
  caption: string;
  marks: readonly ChartMark[];
}

export interface RateChart {
  /** The picture's accessible name (`<title>`), also shown by the page above it. */
  title: string;
  scale: 'rate' | 'difference';
  rows: readonly ChartRow[];
  /** Mark slots per row (default: the most marks of a row), so two charts side by side keep their rows level. */
  slots?: number;
}

/** A row's text is cut here: about 370 px of 12 px text, a 390 px phone's width less the page's margins. */
export const LINE_CHARS = 52;

const TEXT_PX = 12;
const LABEL_LINE = 16;
const MARK_LINE = 14;
const ROW_GAP = 8;
const AXIS_PX = 26;
/** The plot runs from 2 % to 98 % of the width, so a whisker's cap at 0 or 1 stays visible. */
const PLOT_FROM = 2;
const PLOT_SPAN = 96;

const COLOURS: Record<MarkTone, string> = {
  first: '#6e7781',
  second: '#0969da',
  third: '#8250df',
  better: '#1a7f37',
  worse: '#cf222e',
  even: '#59636e',
};

const DOMAIN = { rate: [0, 1], difference: [-1, 1] } as const;
const TICKS = { rate: [0, 0.25, 0.5, 0.75, 1], difference: [-1, -0.5, 0, 0.5, 1] } as const;

const clamp = (value: number, low: number, high: number): number => Math.min(high, Math.max(low, value));

/** The x of a value as a percentage of the chart's width, within the plot; a value out of the axis is drawn at its end. */
export function xPercent(value: number, scale: RateChart['scale']): number {
  const [min, max] = DOMAIN[scale];
  const at = clamp(Number.isFinite(value) ? value : min, min, max);
  return Number((PLOT_FROM + (PLOT_SPAN * (at - min)) / (max - min)).toFixed(2));
}

const pct = (value: number, scale: RateChart['scale']): string => `${xPercent(value, scale)}%`;

function tickText(value: number, scale: RateChart['scale']): string {
  const n = Math.round(value * 100);
  if (scale === 'rate') return `${n} %`;
  return `${n > 0 ? '+' : n < 0 ? '−' : ''}${Math.abs(n)} pp`;
}

/** The line as shown: label and caption, cut to {@link LINE_CHARS} characters with an ellipsis. */
export function rowLine(row: ChartRow): { label: string; caption: string; cut: boolean } {
  const label = [...row.label];
  const caption = [...row.caption];
  const total = label.length + 1 + caption.length;
  if (total <= LINE_CHARS) return { label: row.label, caption: row.caption, cut: false };
  // The figures matter more than a long group name: cut the label first, down to a dozen characters.
  // A label's last part after ` · ` (the rate of `F1 (arm …) · PASS`) is kept; the group name before it is cut.
  const labelRoom = Math.max(12, LINE_CHARS - 1 - caption.length);
  const split = row.label.lastIndexOf(' · ');
  const tail = split < 0 ? [] : [...row.label.slice(split)];
  const head = split < 0 ? label : [...row.label.slice(0, split)];
  const headRoom = Math.max(4, labelRoom - tail.length);
  const shownLabel = label.length <= labelRoom ? row.label : `${head.slice(0, headRoom - 1).join('')}…${tail.join('')}`;
  const captionRoom = LINE_CHARS - 1 - [...shownLabel].length;
  const shownCaption = caption.length > captionRoom ? `${caption.slice(0, Math.max(0, captionRoom - 1)).join('')}…` : row.caption;
  return { label: shownLabel, caption: shownCaption, cut: true };
}

function markSvg(mark: ChartMark, y: number, scale: RateChart['scale']): string {
  const colour = COLOURS[mark.tone];
  // An interval that does not hold its estimate (or is not a number) is drawn to the estimate.
  const low = Number.isFinite(mark.low) ? Math.min(mark.low, mark.estimate) : mark.estimate;
  const high = Number.isFinite(mark.high) ? Math.max(mark.high, mark.estimate) : mark.estimate;
  const [x, x1, x2] = [pct(mark.estimate, scale), pct(low, scale), pct(high, scale)];
  const ring = mark.tone === 'first';
  const tip = `${mark.series}: ${tickText(mark.estimate, scale)} (95 % interval ${tickText(low, scale)} to ${tickText(high, scale)})`;
  return (
    `<g class="mark" data-series="${xmlAttr(mark.series)}"><title>${xmlText(tip)}</title>` +
    `<line class="whisker" x1="${x1}" x2="${x2}" y1="${y}" y2="${y}" stroke="${colour}" stroke-width="2"/>` +
    `<line class="cap" x1="${x1}" x2="${x1}" y1="${y - 4}" y2="${y + 4}" stroke="${colour}" stroke-width="2"/>` +
    `<line class="cap" x1="${x2}" x2="${x2}" y1="${y - 4}" y2="${y + 4}" stroke="${colour}" stroke-width="2"/>` +
    `<circle class="point" cx="${x}" cy="${y}" r="4.5" fill="${ring ? '#fff' : colour}" stroke="${colour}" stroke-width="2"/></g>`
  );
}

/** The SVG of a chart: its rows, then the axis with its ticks (and the zero line of a difference). */
export function rateChartSvg(chart: RateChart): string {
  const slots = Math.max(1, chart.slots ?? 0, ...chart.rows.map((row) => row.marks.length));
  const rowHeight = LABEL_LINE + slots * MARK_LINE + ROW_GAP;
  const plotBottom = chart.rows.length * rowHeight + 4;
  const height = plotBottom + AXIS_PX;
  const parts: string[] = [];
  for (const value of TICKS[chart.scale]) {
    const x = pct(value, chart.scale);
    const zero = chart.scale === 'difference' && value === 0;
    parts.push(
      `<line class="${zero ? 'zero' : 'grid'}" x1="${x}" x2="${x}" y1="0" y2="${plotBottom}" stroke="${zero ? '#1f2328' : '#d1d9e0'}" stroke-width="1"${zero ? '' : ' stroke-dasharray="3 3"'}/>`,
    );
  }
  chart.rows.forEach((row, index) => {
    const top = index * rowHeight;
    const line = rowLine(row);
    const whole = `${row.label} ${row.caption}`;
    parts.push(
      `<g class="row"><title>${xmlText(whole)}</title>` +
        `<text x="0" y="${top + TEXT_PX}" font-size="${TEXT_PX}" fill="#1f2328"><tspan font-weight="600">${xmlText(line.label)}</tspan> ${xmlText(line.caption)}</text>` +
        row.marks.map((mark, slot) => markSvg(mark, top + LABEL_LINE + slot * MARK_LINE + MARK_LINE / 2, chart.scale)).join('') +
        '</g>',
    );
  });
  parts.push(
    `<line class="axis" x1="${PLOT_FROM}%" x2="${PLOT_FROM + PLOT_SPAN}%" y1="${plotBottom}" y2="${plotBottom}" stroke="#59636e" stroke-width="1"/>`,
  );
  const ticks = TICKS[chart.scale];
  ticks.forEach((value, i) => {
    const anchor = i === 0 ? 'start' : i === ticks.length - 1 ? 'end' : 'middle';
    const x = i === 0 ? '0' : i === ticks.length - 1 ? '100%' : pct(value, chart.scale);
    parts.push(
      `<text class="tick" x="${x}" y="${plotBottom + 17}" font-size="11" fill="#59636e" text-anchor="${anchor}">${xmlText(tickText(value, chart.scale))}</text>`,
    );
  });
  return (
    `<svg class="rate-chart" role="img" width="100%" height="${height}" font-family="system-ui, sans-serif">` +
    `<title>${xmlText(chart.title)}</title>${parts.join('')}</svg>`
  );
}

/** The legend under a chart: each tone used, with the series it stands for. */
export function chartLegend(entries: readonly { tone: MarkTone; text: string }[]): string {
  const item = (entry: { tone: MarkTone; text: string }) => {
    const colour = COLOURS[entry.tone];
    const ring = entry.tone === 'first';
    return (
      `<span class="legend-item"><svg width="14" height="14" aria-hidden="true"><circle cx="7" cy="7" r="4.5" fill="${ring ? '#fff' : colour}" stroke="${colour}" stroke-width="2"/></svg> ` +
      `${htmlText(entry.text)}</span>`
    );
  };
  return `<p class="legend small">${entries.map(item).join(' ')}</p>`;
}
