/**
 * Turns the raw runs into the bench's figures: per call count and path the medians over the interleaved
 * rounds of median, p99 and mean per call, the added cost over the direct path of the same round, the
 * ratios, and the growth from N = 100 to N = 5000. The targets are checked in `targets.ts`.
 */
import type { RunResult } from './drive.js';
import { median, ratio } from './measure.js';
import type { PathName } from './scenarios.js';
import type { SizeTargetFigures } from './targets.js';

/** One interleaved round at one call count: the order the paths ran in and their results. */
export interface Round {
  order: PathName[];
  runs: Partial<Record<PathName, RunResult>>;
}

/** The figures of one path at one call count (medians over the rounds). */
export interface PathFigures {
  medianMs: number;
  p99Ms: number;
  meanMs: number;
  /** mean(path) − mean(direct) of the same round; 0 for direct. */
  addedMs: number | null;
  /** mean(path) / mean(direct) of the same round. */
  ratioToDirect: number | null;
  /** median added(path) / median added(floor) (proxy paths only; null when the floor's added cost is ≤ 0). */
  addedOverFloor: number | null;
  peakRssMb: number | null;
}

/** Figures of every path at one call count. */
export type SizeFigures = Partial<Record<PathName, PathFigures>>;

function medianOf(rounds: readonly Round[], value: (round: Round) => number | null): number | null {
  const values = rounds.map(value).filter((v): v is number => v !== null && Number.isFinite(v));
  return values.length === 0 ? null : median(values);
}

function added(round: Round, path: PathName): number | null {
  const own = round.runs[path];
  const direct = round.runs.direct;
  return own === undefined || direct === undefined ? null : own.meanMs - direct.meanMs;
}

/** added(path) / added(floor), of the medians over the rounds; null when the floor adds nothing measurable. */
function addedRatio(own: number | null, floor: number | null): number | null {
  return floor === null || floor <= 0 ? null : ratio(own, floor);
}

/** The figures of every path measured at one call count. */
export function sizeFigures(rounds: readonly Round[], paths: readonly PathName[]): SizeFigures {
  const figures: SizeFigures = {};
  for (const path of paths) {
    const stat = (pick: (run: RunResult) => number | null) => medianOf(rounds, (r) => (r.runs[path] ? pick(r.runs[path]) : null));
    const isProxy = path !== 'direct' && path !== 'floor';
    figures[path] = {
      medianMs: stat((run) => run.medianMs) ?? Number.NaN,
      p99Ms: stat((run) => run.p99Ms) ?? Number.NaN,
      meanMs: stat((run) => run.meanMs) ?? Number.NaN,
      addedMs: medianOf(rounds, (r) => added(r, path)),
      ratioToDirect: medianOf(rounds, (r) => ratio(r.runs[path]?.meanMs ?? null, r.runs.direct?.meanMs ?? null)),
      addedOverFloor: isProxy
        ? addedRatio(
            medianOf(rounds, (r) => added(r, path)),
            medianOf(rounds, (r) => added(r, 'floor')),
          )
        : null,
      peakRssMb: stat((run) => run.peakRssMb),
    };
  }
  return figures;
}

/** mean(5000) / mean(100) per path, and the proxy's growth divided by the direct path's. */
export function growth(bySize: Map<number, SizeFigures>): {
  byPath: Partial<Record<PathName, number | null>>;
  proxyOverDirect: number | null;
} {
  const small = bySize.get(100);
  const large = bySize.get(5000);
  const byPath: Partial<Record<PathName, number | null>> = {};
  for (const path of Object.keys(large ?? {}) as PathName[])
    byPath[path] = ratio(large?.[path]?.meanMs ?? null, small?.[path]?.meanMs ?? null);
  return { byPath, proxyOverDirect: ratio(byPath.proxy ?? null, byPath.direct ?? null) };
}

/** added(path) ÷ added(base) of each round that measured both (a base adding nothing measurable is left out). */
export function roundRatios(rounds: readonly Round[], path: PathName, base: PathName): number[] {
  return rounds
    .map((round) => addedRatio(added(round, path), added(round, base)))
    .filter((value): value is number => value !== null && Number.isFinite(value));
}

/** What the targets read from one call count's figures (and its rounds, for the round-by-round spread). */
export function sizeTargetFigures(figures: SizeFigures | undefined, rounds: readonly Round[] = []): SizeTargetFigures {
  return {
    proxy: figures?.proxy?.addedMs ?? null,
    proxyNoFile: figures?.proxyNoFile?.addedMs ?? null,
    floor: figures?.floor?.addedMs ?? null,
    floorWrites: figures?.floorWrites?.addedMs ?? null,
    proxyPeakRssMb: figures?.proxy?.peakRssMb ?? null,
    roundRatios: { file: roundRatios(rounds, 'proxy', 'floorWrites'), noFile: roundRatios(rounds, 'proxyNoFile', 'floor') },
  };
}
