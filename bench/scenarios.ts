/**
 * The measured configurations: which processes a path spawns (direct, naive floor, proxy with and without
 * a scenario), and which call counts are measured in how many interleaved rounds.
 */
import { join, resolve } from 'node:path';
import { PARALLEL_WRITES } from './targets.js';

/** The repository root (this file runs as `dist/bench/scenarios.js`). */
export const ROOT = resolve(import.meta.dirname, '../..');
/** The compiled harness CLI. */
export const BIN = join(ROOT, 'dist/cli/bin.js');
/** The compiled naive forwarder (the floor). */
export const FORWARDER = join(ROOT, 'dist/bench/naive-forwarder.js');
/** The fast raw upstream; without `FIXTURE_LEDGER` it writes no ledger. */
export const UPSTREAM = join(ROOT, 'e2e/fixtures/counting-server.mjs');
/** The write tool called (a write by name on the counting server). */
export const WRITE_TOOL = 'create_order';
/** Calls before each measured run that are not counted. */
export const WARMUP_CALLS = 20;

/**
 * The size of the file the `floorWrites` path writes after `calls` calls: about the proxy's report (an
 * empty report's head plus one operation of about 180 bytes per write). The table compares it with the
 * proxy's real report, so a report that grows does not make the floorWrites base too cheap unseen.
 */
export const FLOOR_WRITES_BYTES = { base: 1500, perCall: 180 } as const;

/** Bytes of the last file the `floorWrites` path wrote in a run of `calls` measured writes (warm-up included). */
export function floorWritesFinalBytes(calls: number): number {
  return FLOOR_WRITES_BYTES.base + FLOOR_WRITES_BYTES.perCall * (WARMUP_CALLS + calls);
}

/**
 * A measured path from the client to the upstream. `proxyNoFile` is the proxy without `--report-file`:
 * it forwards and records every event but never builds or writes a report, so proxy − proxyNoFile is what
 * the report file costs in place (evaluation and document per answer, the atomic write, their side effects).
 */
export type PathName = 'direct' | 'floor' | 'floorWrites' | 'proxy' | 'proxyNoFile' | 'proxyF4' | 'proxyF1' | 'proxyJournal';

/** Every path, in the base order that the rounds rotate. */
export const ALL_PATHS: readonly PathName[] = [
  'direct',
  'floor',
  'floorWrites',
  'proxy',
  'proxyNoFile',
  'proxyF4',
  'proxyF1',
  'proxyJournal',
];

/** What a path spawns: the process the client talks to, and the report file it writes (proxy only). */
export interface PathSpec {
  name: PathName;
  command: string;
  args: string[];
  /** The proxy's `--report-file`; null for paths without a report. */
  reportFile: string | null;
  /** Extra environment for the spawned process. */
  env?: Record<string, string>;
}

/**
 * Builds the spawn spec of a path; `dir` is a fresh temp folder for the report file, `nodeFlags` go to
 * the spawned node process only (e.g. `--cpu-prof`, which NODE_OPTIONS does not allow); `proxyBin` is the
 * compiled CLI the proxy paths run (another build's, for `bench/compare.ts`).
 */
export function pathSpec(name: PathName, dir: string, nodeFlags: readonly string[] = [], proxyBin: string = BIN): PathSpec {
  const node = process.execPath;
  if (name === 'direct') return { name, command: node, args: [...nodeFlags, UPSTREAM], reportFile: null };
  if (name === 'floor') return { name, command: node, args: [...nodeFlags, FORWARDER, node, UPSTREAM], reportFile: null };
  // The floor plus the two report-sized atomic writes per call (the file is not a report: not checked).
  if (name === 'floorWrites')
    return {
      name,
      command: node,
      args: [...nodeFlags, FORWARDER, node, UPSTREAM],
      reportFile: null,
      env: {
        NAIVE_REPORT_FILE: join(dir, 'naive.json'),
        NAIVE_REPORT_BASE_BYTES: String(FLOOR_WRITES_BYTES.base),
        NAIVE_REPORT_BYTES_PER_CALL: String(FLOOR_WRITES_BYTES.perCall),
      },
    };
  const reportFile = name === 'proxyNoFile' ? null : join(dir, 'r.json');
  const scenario = name === 'proxyF4' ? ['--scenario', 'F4'] : name === 'proxyF1' ? ['--scenario', 'F1'] : [];
  const report = reportFile === null ? [] : ['--report-file', reportFile];
  // `proxyJournal`: the `proxy` path plus `--journal` (five appended lines per call).
  const journal = name === 'proxyJournal' ? ['--journal', join(dir, 'j.jsonl')] : [];
  const args = [
    ...nodeFlags,
    proxyBin,
    'proxy',
    '--upstream-command',
    node,
    '--upstream-arg',
    UPSTREAM,
    '--audit-tools',
    'off',
    ...report,
    ...scenario,
    ...journal,
  ];
  return { name, command: node, args, reportFile };
}

/** One measured call count: how many interleaved rounds and which paths. */
export interface SizePlan {
  calls: number;
  rounds: number;
  paths: readonly PathName[];
}

/** The whole run. */
export interface BenchPlan {
  mode: 'full' | 'quick';
  sizes: SizePlan[];
  /** Interleaved start-up runs per path (direct, floor, proxy). */
  startupRuns: number;
  /** `benchmark --runs <n>`; null to skip. */
  benchmarkRuns: number | null;
}

/** The full plan, or the quick check (`--quick`: N = 100 and 1000, one round). */
export function benchPlan(quick: boolean): BenchPlan {
  if (quick) {
    return {
      mode: 'quick',
      sizes: [100, 1000].map((calls) => ({ calls, rounds: 1, paths: ALL_PATHS })),
      startupRuns: 3,
      benchmarkRuns: null,
    };
  }
  return {
    mode: 'full',
    sizes: [
      // A run at N = 100 or 1000 lasts a second or two, and its figures move with whatever else the machine
      // did in those seconds (the ratios moved ±0.2 between full runs at 3 rounds): more rounds, a steadier median.
      { calls: 100, rounds: 9, paths: ALL_PATHS },
      { calls: 1000, rounds: 5, paths: ALL_PATHS },
      { calls: 5000, rounds: 3, paths: ALL_PATHS },
      { calls: 20000, rounds: 1, paths: ['direct', 'floor', 'floorWrites', 'proxy', 'proxyNoFile', 'proxyJournal'] },
    ],
    startupRuns: 10,
    benchmarkRuns: 1000,
  };
}

/** The paths of one round, the base order rotated by the round's index (interleaving). */
export function roundOrder(paths: readonly PathName[], round: number): PathName[] {
  const shift = round % paths.length;
  return [...paths.slice(shift), ...paths.slice(0, shift)];
}

/** Distinct writes sent all at once for the parallel memory target, and interleaved rounds of proxy and floor. */
export function parallelPlan(quick: boolean): { calls: number; rounds: number } {
  return { calls: PARALLEL_WRITES, rounds: quick ? 1 : 3 };
}
