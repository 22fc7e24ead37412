/**
 * The performance targets and their verdicts: given the figures of one bench run, whether each target is
 * met. Every target compares figures of the same run (no figure of another run, no figure measured with
 * nothing else running), so a machine that is slower today makes both sides of a comparison slower.
 * Pure: no I/O, no clock; `npm run bench` prints the result and writes it into its JSON file.
 */

/** The call counts every latency target holds at. */
export const TARGET_SIZES: readonly number[] = [100, 1000, 5000, 20000];

/** Distinct writes in flight at once for the parallel memory target. */
export const PARALLEL_WRITES = 10_000;

/** The limits (2 cores). */
export const TARGETS = {
  /**
   * With the report file: added(proxy) ≤ this × added(floorWrites), the naive forwarder doing the same two
   * report writes per call in the same session, at every N of `TARGET_SIZES`. The same
   * limit as without the file (issue 42): 1.25 left the judgement and the two documents less room than the
   * no-file target already allows, and full runs met it in some runs and not in others (1.15–1.48).
   */
  withFileOverFloorWrites: 1.5,
  /** Without the report file: added(proxyNoFile) ≤ this × added(floor), the naive forwarder, at every N. */
  noFileOverFloor: 1.5,
  /**
   * growth(proxy) ÷ growth(floorWrites) and growth(proxyNoFile) ÷ growth(floor), growth being mean(5000) /
   * mean(100): like with like, because the report rewritten twice per call makes the
   * requirement floor itself grow with N.
   */
  growthOverBase: 1.5,
  /** Peak RSS of the proxy process at 20000 sequential writes, MB. */
  peakRssMbAt20000: 200,
  /** Peak RSS of the proxy process with `PARALLEL_WRITES` distinct writes in flight at once, MB. */
  peakRssMbParallel: 300,
  /** Median start-up of the proxy ≤ this × the naive forwarder's median, measured interleaved. */
  startupOverFloor: 1.05,
  /**
   * R-17 (issue 36): a `resources/read` and a `prompts/get` through the proxy each add at most this × what a
   * tool call adds, medians of the same run (`bench/requests.ts`).
   */
  requestOverToolCall: 1.5,
} as const;

/** What the targets read from one N's figures: added cost per call (ms, medians over the rounds) and RSS. */
export interface SizeTargetFigures {
  proxy: number | null;
  proxyNoFile: number | null;
  floor: number | null;
  floorWrites: number | null;
  /** Peak RSS of the proxy (with the report file) in MB. */
  proxyPeakRssMb: number | null;
  /**
   * The same ratios round by round (added(proxy) ÷ added(floorWrites), added(proxyNoFile) ÷ added(floor),
   * each of one round): shown beside the median so a verdict that one noisy round could flip is seen as such.
   */
  roundRatios?: { file: readonly number[]; noFile: readonly number[] };
}

/** Every figure of one run that a target is checked against; null or absent where the run did not measure it. */
export interface TargetFigures {
  sizes: ReadonlyMap<number, SizeTargetFigures>;
  /** growth = mean(5000) / mean(100) of the paths the growth targets compare. */
  growth: {
    proxy: number | null;
    floorWrites: number | null;
    proxyNoFile: number | null;
    floor: number | null;
  };
  /** Median start-up to the first `tools/list`, interleaved runs of the same run. */
  startupMedianMs: { proxy: number | null; floor: number | null };
  /** The parallel run: how many writes were in flight, and the proxy's peak RSS (median over `rounds`). */
  parallel: { calls: number; rounds: number; proxyPeakRssMb: number | null } | null;
  /** Every proxy run's report file held one operation per write. */
  reportsOk: boolean;
  /** the added time (ms, medians) of a tool call, a resource read and a prompt get through the proxy, side by side. */
  requests?: { toolCallMs: number | null; resourceReadMs: number | null; promptGetMs: number | null } | null;
}

/** One target checked: `met` is null when the run did not measure it (a reduced run, a missing figure). */
export interface TargetResult {
  id: string;
  /** The target in words, with its limit. */
  target: string;
  /** The measured figure in words (with the operands of a ratio), or why it is n/a. */
  measured: string;
  /** The compared value: a ratio, MB, or null. */
  value: number | null;
  /** The value's limit. */
  limit: number;
  met: boolean | null;
}

function finite(value: number | null | undefined): value is number {
  return value !== null && value !== undefined && Number.isFinite(value);
}

const NOT_MEASURED = 'n/a (not measured in this run)';

function ms(value: number): string {
  return `${value.toFixed(3)} ms`;
}

/** ` (rounds 1.05–1.40)`: the lowest and highest ratio of single rounds, where there were two or more. */
function roundSpread(ratios: readonly number[] | undefined): string {
  if (ratios === undefined || ratios.length < 2) return '';
  return ` (rounds ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`;
}

/** A result with the round-by-round spread appended to what was measured (not when n/a). */
function withSpread(result: TargetResult, ratios: readonly number[] | undefined): TargetResult {
  return result.met === null ? result : { ...result, measured: `${result.measured}${roundSpread(ratios)}` };
}

/** `value ≤ factor × base`, read literally; the ratio is shown only where the base is positive. */
function relative(
  id: string,
  target: string,
  value: number | null | undefined,
  factor: number,
  base: number | null | undefined,
  show: (v: number) => string = ms,
): TargetResult {
  if (!finite(value) || !finite(base)) return { id, target, measured: NOT_MEASURED, value: null, limit: factor, met: null };
  const ratio = base > 0 ? value / base : null;
  const measured =
    ratio === null
      ? `${show(value)} against ${show(base)} (base not positive)`
      : `${show(value)} = ${ratio.toFixed(2)} × ${show(base)}`;
  return { id, target, measured, value: ratio, limit: factor, met: value <= factor * base };
}

/** `value ≤ limit`. */
function absolute(
  id: string,
  target: string,
  value: number | null | undefined,
  limit: number,
  show: (v: number) => string,
): TargetResult {
  if (!finite(value)) return { id, target, measured: NOT_MEASURED, value: null, limit, met: null };
  return { id, target, measured: show(value), value, limit, met: value <= limit };
}

/** Every target checked against one run's figures, in a fixed order (every N of `TARGET_SIZES`, measured or not). */
export function checkTargets(figures: TargetFigures): TargetResult[] {
  /** One latency target at one N: its median ratio against the limit, with the spread of its single rounds. */
  const latency = (
    calls: number,
    id: string,
    target: string,
    [value, base, ratios]: [number | null | undefined, number | null | undefined, readonly number[] | undefined],
    factor: number,
  ): TargetResult => withSpread(relative(`${id}-${calls}`, `N=${calls}, ${target}`, value, factor, base), ratios);
  const withFile = TARGET_SIZES.map((calls) => {
    const size = figures.sizes.get(calls);
    const result = latency(
      calls,
      'file',
      `with report file: added(proxy) ≤ ${TARGETS.withFileOverFloorWrites} × added(floorWrites)`,
      [size?.proxy, size?.floorWrites, size?.roundRatios?.file],
      TARGETS.withFileOverFloorWrites,
    );
    // A proxy whose report missed writes skipped what floorWrites pays: its speed meets nothing.
    return result.met === true && !figures.reportsOk
      ? { ...result, measured: `${result.measured}; a report file was incomplete`, met: false }
      : result;
  });
  const noFile = TARGET_SIZES.map((calls) => {
    const size = figures.sizes.get(calls);
    return latency(
      calls,
      'nofile',
      `without report file: added(proxyNoFile) ≤ ${TARGETS.noFileOverFloor} × added(floor)`,
      [size?.proxyNoFile, size?.floor, size?.roundRatios?.noFile],
      TARGETS.noFileOverFloor,
    );
  });
  const parallel = figures.parallel;
  const mb = (note: string) => (v: number) => `${v.toFixed(0)} MB${note}`;
  let parallelRss = absolute(
    'rss-parallel',
    `peak RSS of the proxy, ${PARALLEL_WRITES} parallel writes ≤ ${TARGETS.peakRssMbParallel} MB`,
    parallel?.proxyPeakRssMb,
    TARGETS.peakRssMbParallel,
    mb(parallel === null ? '' : ` (median of ${parallel.rounds})`),
  );
  // Fewer writes in flight hold less memory: a figure at another count says nothing about this limit.
  if (parallel !== null && parallel.calls !== PARALLEL_WRITES && parallelRss.met !== null)
    parallelRss = { ...parallelRss, measured: `n/a (${parallelRss.measured} with ${parallel.calls} writes)`, met: null };
  return [
    ...withFile,
    ...noFile,
    relative(
      'growth-file',
      `growth mean(5000)/mean(100), with report file: proxy ≤ ${TARGETS.growthOverBase} × floorWrites`,
      figures.growth.proxy,
      TARGETS.growthOverBase,
      figures.growth.floorWrites,
      (v) => v.toFixed(2),
    ),
    relative(
      'growth-nofile',
      `growth mean(5000)/mean(100), without report file: proxyNoFile ≤ ${TARGETS.growthOverBase} × floor`,
      figures.growth.proxyNoFile,
      TARGETS.growthOverBase,
      figures.growth.floor,
      (v) => v.toFixed(2),
    ),
    absolute(
      'rss-20000',
      `peak RSS of the proxy, 20000 sequential writes ≤ ${TARGETS.peakRssMbAt20000} MB`,
      figures.sizes.get(20000)?.proxyPeakRssMb,
      TARGETS.peakRssMbAt20000,
      mb(''),
    ),
    parallelRss,
    relative(
      'startup',
      `start-up to first tools/list, medians: proxy ≤ ${TARGETS.startupOverFloor} × floor`,
      figures.startupMedianMs.proxy,
      TARGETS.startupOverFloor,
      figures.startupMedianMs.floor,
      (v) => `${v.toFixed(0)} ms`,
    ),
    relative(
      'request-read',
      `resources/read through the proxy, medians: added ≤ ${TARGETS.requestOverToolCall} × a tool call's added`,
      figures.requests?.resourceReadMs,
      TARGETS.requestOverToolCall,
      figures.requests?.toolCallMs,
    ),
    relative(
      'request-get',
      `prompts/get through the proxy, medians: added ≤ ${TARGETS.requestOverToolCall} × a tool call's added`,
      figures.requests?.promptGetMs,
      TARGETS.requestOverToolCall,
      figures.requests?.toolCallMs,
    ),
    {
      id: 'reports',
      target: "every proxy run's report file held one operation per write",
      measured: figures.reportsOk ? 'yes' : 'no',
      value: null,
      limit: 0,
      met: figures.reportsOk,
    },
  ];
}

/** "met", "not met" or "n/a". */
export function verdict(result: Pick<TargetResult, 'met'>): string {
  return result.met === null ? 'n/a' : result.met ? 'met' : 'not met';
}

/** How many targets were met, not met and not measured. */
export function tally(results: readonly TargetResult[]): { met: number; notMet: number; notMeasured: number } {
  return {
    met: results.filter((r) => r.met === true).length,
    notMet: results.filter((r) => r.met === false).length,
    notMeasured: results.filter((r) => r.met === null).length,
  };
}

/** What the late-write target reads from one `npm run bench:late` run. */
export interface LateWriteTargetFigures {
  /** F6 sessions side by side, each with one write waiting to land. */
  sessions: number;
  rounds: number;
  /** Peak RSS of the bench process while they waited and landed, MB (median over the rounds); null: not measured. */
  peakRssMb: number | null;
}

/**
 * F6's pending late writes cost a timer, not a loop (R-16.1): `PARALLEL_WRITES` parallel F6 sessions, each
 * with a write waiting to land, stay within the RSS limit of the 10 000-parallel case of `npm run bench`
 * (`TARGETS.peakRssMbParallel`). Fewer sessions hold less memory, so a run with another count is n/a.
 */
export function checkLateWrites(figures: LateWriteTargetFigures): TargetResult {
  const result = absolute(
    'rss-late-writes',
    `peak RSS, ${PARALLEL_WRITES} parallel F6 sessions with a write waiting to land ≤ ${TARGETS.peakRssMbParallel} MB (the ${PARALLEL_WRITES}-parallel case's limit)`,
    figures.peakRssMb,
    TARGETS.peakRssMbParallel,
    (v) => `${v.toFixed(0)} MB (median of ${figures.rounds})`,
  );
  if (figures.sessions === PARALLEL_WRITES || result.met === null) return result;
  return { ...result, measured: `n/a (${result.measured} with ${figures.sessions} sessions)`, met: null };
}

/** The one line `npm run bench:late` prints for its target: `target: … — measured …: met`. */
export function targetLine(result: TargetResult): string {
  return `target: ${result.target} — measured ${result.measured}: ${verdict(result)}`;
}
