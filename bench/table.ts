/**
 * The short stdout table of a bench run: per call count one row per path, then growth, start-up,
 * peak RSS, the `benchmark` wall time and every target with its measured value and met / not met.
 */
import type { ReportWriteFigures } from './report-write.js';
import { floorWritesFinalBytes, type PathName } from './scenarios.js';
import type { SizeFigures } from './summary.js';
import { tally, verdict, type TargetResult } from './targets.js';

/** Everything the table shows. */
export interface TableInput {
  sizes: Array<{ calls: number; rounds: number; figures: SizeFigures; reportWrite: ReportWriteFigures | null }>;
  growth: { byPath: Partial<Record<PathName, number | null>>; proxyOverDirect: number | null };
  startupMedianMs: Partial<Record<PathName, number>>;
  parallel: { calls: number; rounds: number; peakRssMb: { floor: number | null; proxy: number | null } };
  benchmarkWallMs: number | null;
  benchmarkNote: string;
  targets: TargetResult[];
  warnings: string[];
}

function fixed(value: number | null | undefined, digits = 2): string {
  return value === null || value === undefined || !Number.isFinite(value) ? '—' : value.toFixed(digits);
}

function row(cells: readonly string[]): string {
  const widths = [12, 8, 8, 8, 8, 8, 12, 7];
  return cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join(' ');
}

/** The report file's size, one atomic write of it alone (a diagnostic), and the proxy against floorWrites. */
function reportWriteLine(calls: number, write: ReportWriteFigures, figures: SizeFigures): string {
  const proxy = figures.proxy?.addedMs ?? null;
  const withWrites = figures.floorWrites?.addedMs ?? null;
  const over = proxy === null || withWrites === null || withWrites <= 0 ? null : proxy / withWrites;
  return `report file ${(write.bytes / 1024).toFixed(0)} kB (floorWrites' last file ${(floorWritesFinalBytes(calls) / 1024).toFixed(0)} kB); one atomic write of it alone ${fixed(write.medianMs, 3)} ms (median); proxy added = ${fixed(over)} × floorWrites added (the naive forwarder doing the same two writes per call in the session)`;
}

function sizeLines(calls: number, rounds: number, figures: SizeFigures, reportWrite: ReportWriteFigures | null): string[] {
  const lines = [`N = ${calls} distinct writes (${rounds} round${rounds === 1 ? '' : 's'}; ms per call, medians of rounds)`];
  lines.push(row(['path', 'median', 'p99', 'mean', 'added', '×direct', 'added/floor', 'RSS MB']));
  for (const [path, f] of Object.entries(figures) as Array<[PathName, SizeFigures[PathName]]>) {
    if (f === undefined) continue;
    lines.push(
      row([
        path,
        fixed(f.medianMs, 3),
        fixed(f.p99Ms),
        fixed(f.meanMs, 3),
        fixed(f.addedMs, 3),
        fixed(f.ratioToDirect),
        fixed(f.addedOverFloor),
        fixed(f.peakRssMb, 0),
      ]),
    );
  }
  if (reportWrite !== null) lines.push(reportWriteLine(calls, reportWrite, figures));
  const journal = figures.proxyJournal?.meanMs;
  const plain = figures.proxy?.meanMs;
  if (journal !== undefined && plain !== undefined)
    lines.push(`--journal: proxyJournal − proxy = ${fixed(journal - plain, 3)} ms per call (means; same run, interleaved)`);
  return lines;
}

/** The targets as a table: target, measured value, met / not met / n/a. */
function targetLines(targets: readonly TargetResult[]): string[] {
  const width = (pick: (t: TargetResult) => string) => Math.max(...targets.map((t) => pick(t).length));
  const targetWidth = width((t) => t.target);
  const measuredWidth = width((t) => t.measured);
  const counts = tally(targets);
  return [
    `targets (figures of this run only): ${counts.met} met, ${counts.notMet} not met, ${counts.notMeasured} n/a`,
    ...targets.map((t) => `  ${t.target.padEnd(targetWidth)}  ${t.measured.padEnd(measuredWidth)}  ${verdict(t)}`),
  ];
}

/** The table as lines of text. */
export function formatTable(input: TableInput): string[] {
  const lines: string[] = [];
  for (const size of input.sizes) lines.push(...sizeLines(size.calls, size.rounds, size.figures, size.reportWrite), '');
  const growth = Object.entries(input.growth.byPath).map(([path, g]) => `${path} ${fixed(g)}`);
  if (growth.length > 0)
    lines.push(
      `growth mean(5000)/mean(100): ${growth.join(', ')}; proxy ÷ direct ${fixed(input.growth.proxyOverDirect)} (information: the targets compare proxy with floorWrites, proxyNoFile with floor)`,
    );
  const startup = Object.entries(input.startupMedianMs).map(([path, ms]) => `${path} ${fixed(ms, 0)} ms`);
  lines.push(`start-up to first tools/list (median): ${startup.join(', ')}`);
  const { calls, rounds, peakRssMb } = input.parallel;
  lines.push(
    `${calls} parallel writes, peak RSS (median of ${rounds}): proxy ${fixed(peakRssMb.proxy, 0)} MB, floor ${fixed(peakRssMb.floor, 0)} MB`,
  );
  lines.push(
    `benchmark --runs 1000 wall time: ${input.benchmarkWallMs === null ? `— (${input.benchmarkNote})` : `${fixed(input.benchmarkWallMs / 1000)} s`}`,
  );
  lines.push('', ...targetLines(input.targets));
  for (const warning of input.warnings) lines.push(`WARNING: ${warning}`);
  return lines;
}
