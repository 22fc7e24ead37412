/**
 * Turns the raw runs into the figures of issue 5: per call count and path the medians over the
 * interleaved rounds of median, p99 and mean per call, the added cost over the direct path of the same
 * round, the ratios, the growth from N = 100 to N = 5000, and pass/fail per target.
 */
import type { RunResult } from './drive.js';
import { median, ratio } from './measure.js';
import { TARGETS, type PathName } from './scenarios.js';

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

/** The measured figures a target is checked against. */
export interface Figures {
  bySize: Map<number, SizeFigures>;
  startupMedianMs: Partial<Record<PathName, number>>;
  reportsOk: boolean;
}

/** One target with its measured value; `pass` is null when the run did not measure it (e.g. `--quick`). */
export interface TargetResult {
  id: string;
  description: string;
  value: number | null;
  limit: number;
  pass: boolean | null;
}

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
      addedOverFloor: isProxy ? addedRatio(medianOf(rounds, (r) => added(r, path)), medianOf(rounds, (r) => added(r, 'floor'))) : null,
      peakRssMb: stat((run) => run.peakRssMb),
    };
  }
  return figures;
}

/** mean(5000) / mean(100) per path, and the proxy's growth divided by the direct path's. */
export function growth(bySize: Map<number, SizeFigures>): { byPath: Partial<Record<PathName, number | null>>; proxyOverDirect: number | null } {
  const small = bySize.get(100);
  const large = bySize.get(5000);
  const byPath: Partial<Record<PathName, number | null>> = {};
  for (const path of Object.keys(large ?? {}) as PathName[]) byPath[path] = ratio(large?.[path]?.meanMs ?? null, small?.[path]?.meanMs ?? null);
  return { byPath, proxyOverDirect: ratio(byPath.proxy ?? null, byPath.direct ?? null) };
}

function target(id: string, description: string, value: number | null | undefined, limit: number, extra = true): TargetResult {
  const measured = value === undefined || value === null || !Number.isFinite(value) ? null : value;
  return { id, description, value: measured, limit, pass: measured === null ? null : measured <= limit && extra };
}

/** Every target of issue 5 checked against the figures. */
export function checkTargets(figures: Figures, growthOverDirect: number | null): TargetResult[] {
  const at = (calls: number) => figures.bySize.get(calls)?.proxy;
  const startupProxy = figures.startupMedianMs.proxy;
  const startupFloor = figures.startupMedianMs.floor;
  return [
    target('added-5000', 'added ms/call at N=5000, report written before every answer (≤)', at(5000)?.addedMs, TARGETS.addedMsAt5000, figures.reportsOk),
    target('growth', 'growth mean(5000)/mean(100), proxy ÷ direct (≤)', growthOverDirect, TARGETS.growthOverDirect),
    target('added-20000', 'added ms/call at N=20000 (≤)', at(20000)?.addedMs, TARGETS.addedMsAt20000),
    target('floor-100', 'added(proxy) / added(floor) at N=100 (≤)', at(100)?.addedOverFloor, TARGETS.addedOverFloor),
    target('floor-5000', 'added(proxy) / added(floor) at N=5000 (≤)', at(5000)?.addedOverFloor, TARGETS.addedOverFloor),
    target('rss-20000', 'peak RSS MB of the proxy at N=20000 (≤)', at(20000)?.peakRssMb, TARGETS.peakRssMbAt20000),
    target('startup', 'start-up ms to first tools/list, proxy (≤ floor\'s)', startupFloor === undefined ? null : startupProxy, startupFloor ?? 0),
    { id: 'reports', description: 'every report file held one operation per write', value: null, limit: 0, pass: figures.reportsOk },
  ];
}
