/**
 * The short stdout table of a bench run: per call count one row per path, then growth, start-up,
 * peak RSS, the `benchmark` wall time and the targets with PASS/FAIL.
 */
import type { ReportWriteFigures } from './report-write.js';
import type { PathName } from './scenarios.js';
import { requirementFloorMs, type SizeFigures, type TargetResult } from './summary.js';
import { REPORT_WRITES_PER_CALL } from './scenarios.js';

/** Everything the table shows. */
export interface TableInput {
  sizes: Array<{ calls: number; rounds: number; figures: SizeFigures; reportWrite: ReportWriteFigures | null }>;
  growth: { byPath: Partial<Record<PathName, number | null>>; proxyOverDirect: number | null };
  startupMedianMs: Partial<Record<PathName, number>>;
  benchmarkWallMs: number | null;
  benchmarkNote: string;
  targets: TargetResult[];
  warnings: string[];
}

function fixed(value: number | null | undefined, digits = 2): string {
  return value === null || value === undefined || !Number.isFinite(value) ? '—' : value.toFixed(digits);
}

function row(cells: readonly string[]): string {
  const widths = [9, 8, 8, 8, 8, 8, 12, 7];
  return cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join(' ');
}

/** The report file's share: one atomic write of its final size alone, and the proxy's added cost without it. */
function reportWriteLine(write: ReportWriteFigures, figures: SizeFigures): string {
  const proxy = figures.proxy?.addedMs ?? null;
  const requirement = requirementFloorMs(figures, write);
  const over = proxy === null || requirement === null || requirement <= 0 ? null : proxy / requirement;
  const writes =
    write.sequence === undefined
      ? `${REPORT_WRITES_PER_CALL} writes`
      : `the session's ${write.sequence.writes} writes replayed alone (${fixed(write.sequence.msPerCall, 3)} ms per call)`;
  const withWrites = figures.floorWrites?.addedMs ?? null;
  const overWrites = proxy === null || withWrites === null || withWrites <= 0 ? null : proxy / withWrites;
  const same =
    withWrites === null
      ? ''
      : `; the floor doing the same two writes per call in the same setting (floorWrites) added ${fixed(withWrites, 3)} ms: proxy = ${fixed(overWrites)} × that`;
  return `report file ${(write.bytes / 1024).toFixed(0)} kB; one atomic write of it alone ${fixed(write.medianMs, 3)} ms (median); requirement floor = floor added + ${writes} = ${fixed(requirement, 3)} ms; proxy added = ${fixed(over)} × requirement floor${same}`;
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
  if (reportWrite !== null) lines.push(reportWriteLine(reportWrite, figures));
  const journal = figures.proxyJournal?.meanMs;
  const plain = figures.proxy?.meanMs;
  if (journal !== undefined && plain !== undefined)
    lines.push(`--journal: proxyJournal − proxy = ${fixed(journal - plain, 3)} ms per call (means; same run, interleaved)`);
  return lines;
}

function targetLine(t: TargetResult): string {
  const verdict = t.pass === null ? 'n/a ' : t.pass ? 'PASS' : 'FAIL';
  const shown = t.id === 'reports' ? '' : ` ${fixed(t.value)} vs ${fixed(t.limit)}`;
  return `  ${verdict}  ${t.description}${shown}`;
}

/** The table as lines of text. */
export function formatTable(input: TableInput): string[] {
  const lines: string[] = [];
  for (const size of input.sizes) lines.push(...sizeLines(size.calls, size.rounds, size.figures, size.reportWrite), '');
  const growth = Object.entries(input.growth.byPath).map(([path, g]) => `${path} ${fixed(g)}`);
  if (growth.length > 0)
    lines.push(`growth mean(5000)/mean(100): ${growth.join(', ')}; proxy ÷ direct ${fixed(input.growth.proxyOverDirect)}`);
  const startup = Object.entries(input.startupMedianMs).map(([path, ms]) => `${path} ${fixed(ms, 0)} ms`);
  lines.push(`start-up to first tools/list (median): ${startup.join(', ')}`);
  lines.push(
    `benchmark --runs 1000 wall time: ${input.benchmarkWallMs === null ? `— (${input.benchmarkNote})` : `${fixed(input.benchmarkWallMs / 1000)} s`}`,
  );
  lines.push('', 'targets:', ...input.targets.map(targetLine));
  for (const warning of input.warnings) lines.push(`WARNING: ${warning}`);
  return lines;
}
