/**
 * Turns the raw runs into the figures of issue 5: per call count and path the medians over the
 * interleaved rounds of median, p99 and mean per call, the added cost over the direct path of the same
 * round, the ratios, the growth from N = 100 to N = 5000, and pass/fail per target.
 */
import type { RunResult } from './drive.js';
import { median, ratio } from './measure.js';
import type { ReportWriteFigures } from './report-write.js';
import { REPORT_WRITES_PER_CALL, TARGETS, type PathName } from './scenarios.js';

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
  /** One atomic write of the report's size alone, per call count (null where not measured). */
  reportWriteBySize: Map<number, ReportWriteFigures | null>;
  startupMedianMs: Partial<Record<PathName, number>>;
  /** Peak RSS of the proxy with the parallel writes in flight, and how many there were. */
  parallel: { calls: number; peakRssMb: number | null } | null;
  reportsOk: boolean;
}

/**
 * The requirement floor of a call count (issue 11): the naive forwarder's added cost plus the report
 * writes the spec requires per call, each measured alone at the report's size: the
 * session's whole sequence of writes replayed alone, per call, when measured (a long session's writes
 * cost more than one write repeated: the kernel writes gigabytes of replaced files back); else two
 * writes of the final size.
 */
export function requirementFloorMs(
  figures: SizeFigures | undefined,
  write: ReportWriteFigures | null | undefined,
): number | null {
  const floor = figures?.floor?.addedMs;
  if (floor === undefined || floor === null || write === undefined || write === null) return null;
  return floor + (write.sequence?.msPerCall ?? REPORT_WRITES_PER_CALL * write.medianMs);
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

function target(id: string, description: string, value: number | null | undefined, limit: number, extra = true): TargetResult {
  const measured = value === undefined || value === null || !Number.isFinite(value) ? null : value;
  return { id, description, value: measured, limit, pass: measured === null ? null : measured <= limit && extra };
}

/** Every target of issue 11 checked against the figures. */
export function checkTargets(figures: Figures, growthOverDirect: number | null): TargetResult[] {
  const sizes = [...figures.bySize.keys()].sort((a, b) => a - b);
  const startupProxy = figures.startupMedianMs.proxy;
  const startupFloor = figures.startupMedianMs.floor;
  const overRequirement = sizes.map((calls) => {
    const own = figures.bySize.get(calls)?.proxy?.addedMs ?? null;
    const floor = requirementFloorMs(figures.bySize.get(calls), figures.reportWriteBySize.get(calls));
    return target(
      `req-floor-${calls}`,
      `added(proxy) / requirement floor at N=${calls} (≤)`,
      addedRatio(own, floor),
      TARGETS.addedOverRequirementFloor,
      figures.reportsOk,
    );
  });
  const noFile = sizes.map((calls) =>
    target(
      `nofile-${calls}`,
      `added(proxy without report file) / added(floor) at N=${calls} (≤)`,
      figures.bySize.get(calls)?.proxyNoFile?.addedOverFloor,
      TARGETS.noFileAddedOverFloor,
    ),
  );
  return [
    ...overRequirement,
    ...noFile,
    target('growth', 'growth mean(5000)/mean(100), proxy ÷ direct (≤)', growthOverDirect, TARGETS.growthOverDirect),
    target(
      'rss-20000',
      'peak RSS MB of the proxy at N=20000 sequential writes (≤)',
      figures.bySize.get(20000)?.proxy?.peakRssMb,
      TARGETS.peakRssMbAt20000,
    ),
    target(
      'rss-parallel',
      `peak RSS MB of the proxy with ${figures.parallel?.calls ?? '—'} parallel writes (≤)`,
      figures.parallel?.peakRssMb,
      TARGETS.peakRssMbParallel,
    ),
    target(
      'startup',
      "start-up ms to first tools/list, proxy (≤ floor's)",
      startupFloor === undefined ? null : startupProxy,
      startupFloor ?? 0,
    ),
    {
      id: 'reports',
      description: 'every report file held one operation per write',
      value: null,
      limit: 0,
      pass: figures.reportsOk,
    },
  ];
}
