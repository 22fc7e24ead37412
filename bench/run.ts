/**
 * `npm run bench`: measures the compiled proxy against the direct path and a naive SDK forwarder, side
 * by side and interleaved. Prints a short table with every target met or not (`targets.ts`) and writes
 * `bench/results/latest.json` (`--quick`: `quick.json`). `--profile [N]`: one proxy run under the CPU
 * profiler instead. Measures only.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { measureDomain } from './domain.js';
import { formatEffects, measureEffects } from './effects.js';
import { formatHttp, measureHttp } from './http.js';
import { formatRequests, measureRequests } from './requests.js';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { measureParallel, measurePath, measureStartup, type RunResult } from './drive.js';
import { median, nowMs } from './measure.js';
import { formatProfile, profilePath } from './profile.js';
import {
  BIN,
  ROOT,
  benchPlan,
  floorWritesFinalBytes,
  parallelPlan,
  roundOrder,
  type BenchPlan,
  type PathName,
} from './scenarios.js';
import { growth, sizeFigures, sizeTargetFigures, type Round, type SizeFigures } from './summary.js';
import { formatTable } from './table.js';
import { checkTargets, tally, verdict } from './targets.js';
import { measureReportWrite, type ReportWriteFigures } from './report-write.js';
import { measureJournalWrite } from './journal-write.js';

const STARTUP_PATHS: readonly PathName[] = ['direct', 'floor', 'proxy'];
const BENCHMARK_TIMEOUT_MS = 600_000;
/** How far the floorWrites path's last file may be from the proxy's report size (a share of the latter). */
const FLOOR_WRITES_SIZE_TOLERANCE = 0.15;
/** Writes of the throwaway runs that warm the bench's own client code and the disk cache first. */
const GLOBAL_WARMUP_CALLS = 200;

function progress(line: string): void {
  process.stderr.write(`[bench] ${line}\n`);
}

/**
 * Flushes the dirty pages of the runs before (`sync`): a proxy run at N = 5000 leaves gigabytes of replaced
 * report files for the kernel to write back, which would otherwise slow whichever path runs next.
 */
function settleDisk(): void {
  try {
    execFileSync('sync', { timeout: 120_000, stdio: 'ignore' });
  } catch {
    // No `sync` command (e.g. Windows): the runs are only interleaved.
  }
}

/** Runs every round of every call count; warns about report files that did not hold every write. */
async function measureLatency(plan: BenchPlan, warnings: string[]) {
  const sizes: Array<{ calls: number; rounds: Round[]; figures: SizeFigures; reportWrite: ReportWriteFigures | null }> = [];
  for (const size of plan.sizes) {
    const rounds: Round[] = [];
    for (let r = 0; r < size.rounds; r++) {
      const round: Round = { order: roundOrder(size.paths, r), runs: {} };
      for (const path of round.order) {
        settleDisk();
        const started = nowMs();
        const run: RunResult = await measurePath(path, size.calls);
        round.runs[path] = run;
        progress(
          `N=${size.calls} round ${r + 1}/${size.rounds} ${path}: mean ${run.meanMs.toFixed(3)} ms (${((nowMs() - started) / 1000).toFixed(1)} s)`,
        );
        if (run.report !== null && !run.report.ok) {
          warnings.push(
            `${path} at N=${size.calls}: report held ${String(run.report.operations)} operations, expected ${run.report.expected}${run.report.detail ? ` (${run.report.detail})` : ''}`,
          );
        }
      }
      rounds.push(round);
    }
    const reportWrite = await reportWriteAt(rounds, size.calls);
    const written = floorWritesFinalBytes(size.calls);
    // The with-file target's base is floorWrites: it must write about as much as the proxy's report holds.
    if (reportWrite !== null && Math.abs(written - reportWrite.bytes) > FLOOR_WRITES_SIZE_TOLERANCE * reportWrite.bytes)
      warnings.push(
        `N=${size.calls}: floorWrites wrote ${(written / 1024).toFixed(0)} kB, the proxy's report is ${(reportWrite.bytes / 1024).toFixed(0)} kB: adjust FLOOR_WRITES_BYTES in bench/scenarios.ts`,
      );
    sizes.push({ calls: size.calls, rounds, figures: sizeFigures(rounds, size.paths), reportWrite });
  }
  return sizes;
}

/** One atomic write alone of the size the proxy's report file had after its last answer (median over the rounds). */
async function reportWriteAt(rounds: readonly Round[], calls: number): Promise<ReportWriteFigures | null> {
  const sizes = rounds
    .map((round) => round.runs.proxy?.report?.bytes)
    .filter((bytes): bytes is number => typeof bytes === 'number');
  if (sizes.length === 0) return null;
  const figures = await measureReportWrite(Math.round(median(sizes)));
  progress(
    `N=${calls}: one atomic write of the ${(figures.bytes / 1024).toFixed(0)} kB report alone: median ${figures.medianMs.toFixed(3)} ms`,
  );
  return figures;
}

/**
 * Start-up to the first `tools/list`, interleaved runs per path; per path the samples and their median.
 * The disk is settled before each round: the long runs before leave gigabytes of replaced report files to
 * write back, which would slow whichever start-ups ran first.
 */
async function measureStartups(runs: number) {
  const samples: Partial<Record<PathName, number[]>> = {};
  for (let i = 0; i < runs; i++) {
    settleDisk();
    for (const path of roundOrder(STARTUP_PATHS, i)) (samples[path] ??= []).push(await measureStartup(path));
  }
  const medians: Partial<Record<PathName, number>> = {};
  for (const path of STARTUP_PATHS) medians[path] = median(samples[path] ?? []);
  progress(`start-up medians: ${JSON.stringify(medians)}`);
  return { samplesMs: samples, medianMs: medians };
}

/**
 * Peak RSS with `calls` distinct writes in flight at once: the proxy and, beside it, the naive forwarder,
 * interleaved over `rounds`; per path every round's figures and the median peak RSS. Every proxy report
 * must hold every write.
 */
async function measureParallels(calls: number, rounds: number, reportProblems: string[]) {
  const paths: readonly PathName[] = ['floor', 'proxy'];
  const runs: Partial<Record<PathName, Array<{ wallMs: number; peakRssMb: number | null }>>> = {};
  for (let r = 0; r < rounds; r++) {
    for (const path of roundOrder(paths, r)) {
      settleDisk();
      const run = await measureParallel(path, calls);
      (runs[path] ??= []).push({ wallMs: run.wallMs, peakRssMb: run.peakRssMb });
      progress(
        `${calls} parallel writes, round ${r + 1}/${rounds} ${path}: ${(run.wallMs / 1000).toFixed(1)} s, peak RSS ${String(run.peakRssMb)} MB`,
      );
      if (run.report !== null && !run.report.ok)
        reportProblems.push(
          `${path} with ${calls} parallel writes: report held ${String(run.report.operations)} operations, expected ${run.report.expected}`,
        );
    }
  }
  const medianRss = (path: PathName): number | null => {
    const values = (runs[path] ?? []).map((run) => run.peakRssMb).filter((mb): mb is number => mb !== null);
    return values.length === 0 ? null : median(values);
  };
  return { calls, rounds, runs, peakRssMb: { floor: medianRss('floor'), proxy: medianRss('proxy') } };
}

/** Wall time of `benchmark --runs <n>` in a temp folder; null with the reason when it fails or is missing. */
async function measureBenchmark(runs: number | null): Promise<{ wallMs: number | null; exitCode: number | null; note: string }> {
  if (runs === null) return { wallMs: null, exitCode: null, note: 'skipped (--quick)' };
  const cwd = mkdtempSync(join(tmpdir(), 'harness-bench-cmd-'));
  const started = nowMs();
  const outcome = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [BIN, 'benchmark', '--runs', String(runs)],
      { cwd, timeout: BENCHMARK_TIMEOUT_MS, maxBuffer: 64 << 20 },
      (error, _stdout, stderr) =>
        resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stderr }),
    );
  });
  const elapsed = nowMs() - started;
  rmSync(cwd, { recursive: true, force: true });
  progress(`benchmark --runs ${runs}: exit ${String(outcome.code)} after ${(elapsed / 1000).toFixed(1)} s`);
  if (outcome.code === 0) return { wallMs: elapsed, exitCode: 0, note: 'exit 0' };
  const why = outcome.stderr.trim().split('\n')[0] ?? '';
  return {
    wallMs: null,
    exitCode: outcome.code,
    note: `exit ${String(outcome.code)} after ${(elapsed / 1000).toFixed(1)} s: ${why}`.slice(0, 300),
  };
}

/** Rounds to microseconds for a readable JSON file. */
function readable(_key: string, value: unknown): unknown {
  return typeof value === 'number' && !Number.isInteger(value) ? Math.round(value * 1000) / 1000 : value;
}

/** A note when other processes kept the CPUs busy (1-minute load average above half the CPU count). */
function loadNote(when: string, load: number, cpuCount: number): string[] {
  return load > cpuCount / 2
    ? [`machine busy ${when} (1-min load ${load.toFixed(1)} on ${cpuCount} CPUs): figures are inflated and noisy`]
    : [];
}

async function runBench(quick: boolean): Promise<void> {
  const plan = benchPlan(quick);
  const startedAt = new Date();
  const started = nowMs();
  const loadAtStart = loadavg()[0] ?? 0;
  for (const path of STARTUP_PATHS) await measurePath(path, GLOBAL_WARMUP_CALLS);
  const reportProblems: string[] = [];
  const sizes = await measureLatency(plan, reportProblems);
  const startup = await measureStartups(plan.startupRuns);
  const parallelRuns = parallelPlan(quick);
  const parallel = await measureParallels(parallelRuns.calls, parallelRuns.rounds, reportProblems);
  const benchmark = await measureBenchmark(plan.benchmarkRuns);
  const http = await measureHttp(quick ? 200 : 1000, quick ? 1 : 3);
  const requests = await measureRequests(quick ? 300 : 1000, quick ? 1 : 3, progress);
  const domain = await measureDomain();
  const effects = measureEffects();
  const journal = await measureJournalWrite(quick ? 1000 : 5000);
  progress(
    `--journal alone: ${journal.medianMicros.toFixed(1)} µs per call (median), ${journal.payloadsMedianMicros.toFixed(1)} µs with payloads`,
  );
  const loadAtEnd = loadavg()[0] ?? 0;
  const bySize = new Map(sizes.map((size) => [size.calls, size.figures]));
  const growthFigures = growth(bySize);
  const targets = checkTargets({
    sizes: new Map(sizes.map((size) => [size.calls, sizeTargetFigures(size.figures, size.rounds)])),
    growth: {
      proxy: growthFigures.byPath.proxy ?? null,
      floorWrites: growthFigures.byPath.floorWrites ?? null,
      proxyNoFile: growthFigures.byPath.proxyNoFile ?? null,
      floor: growthFigures.byPath.floor ?? null,
    },
    startupMedianMs: { proxy: startup.medianMs.proxy ?? null, floor: startup.medianMs.floor ?? null },
    parallel: { calls: parallel.calls, rounds: parallel.rounds, proxyPeakRssMb: parallel.peakRssMb.proxy },
    reportsOk: reportProblems.length === 0,
    requests: {
      toolCallMs: requests.paths.proxy['tools/call'].addedMs,
      resourceReadMs: requests.paths.proxy['resources/read'].addedMs,
      promptGetMs: requests.paths.proxy['prompts/get'].addedMs,
    },
  });
  const cpu = cpus();
  const warnings = [
    ...reportProblems,
    ...loadNote('at the start', loadAtStart, cpu.length),
    ...loadNote('at the end', loadAtEnd, cpu.length),
  ];
  const result = {
    date: startedAt.toISOString(),
    mode: plan.mode,
    machine: {
      cpuModel: cpu[0]?.model ?? 'unknown',
      cpuCount: cpu.length,
      node: process.version,
      platform: `${process.platform} ${process.arch}`,
      load1mStart: loadAtStart,
      load1mEnd: loadAtEnd,
    },
    latency: sizes.map((size) => ({
      calls: size.calls,
      figures: size.figures,
      reportWrite: size.reportWrite,
      rounds: size.rounds,
    })),
    growth: growthFigures,
    startup,
    parallel,
    benchmark: { runs: plan.benchmarkRuns, ...benchmark },
    transports: http,
    requests,
    domain,
    effects,
    journal,
    targets: targets.map((t) => ({ ...t, verdict: verdict(t) })),
    targetsTally: tally(targets),
    warnings,
    totalWallSeconds: (nowMs() - started) / 1000,
  };
  const folder = join(ROOT, 'bench/results');
  mkdirSync(folder, { recursive: true });
  const file = join(folder, quick ? 'quick.json' : 'latest.json');
  writeFileSync(file, `${JSON.stringify(result, readable, 2)}\n`);
  const table = formatTable({
    sizes: sizes.map((size) => ({
      calls: size.calls,
      rounds: size.rounds.length,
      figures: size.figures,
      reportWrite: size.reportWrite,
    })),
    growth: growthFigures,
    startupMedianMs: startup.medianMs,
    parallel,
    benchmarkWallMs: benchmark.wallMs,
    benchmarkNote: benchmark.note,
    targets,
    warnings,
  });
  process.stdout.write(
    `${[`bench (${plan.mode}) on ${result.machine.cpuCount}× ${result.machine.cpuModel}, node ${process.version}, 1-min load ${loadAtStart.toFixed(1)} → ${loadAtEnd.toFixed(1)}`, '', ...table, '', ...formatHttp(http), '', ...formatRequests(requests), '', `Judge alone (in-process, F1, per call incl. an evaluation, 50,000 operations kept either way): the call pipeline ${domain.pipelineMeanMicros[100]!.toFixed(2)} µs in sessions of 100, ${domain.pipelineMeanMicros[50_000]!.toFixed(2)} µs in one of 50,000 (ratio ${domain.pipelineRatio.toFixed(2)}); the session's call handle alone ${domain.meanMicros[100]!.toFixed(2)} / ${domain.meanMicros[50_000]!.toFixed(2)} µs (ratio ${domain.ratio.toFixed(2)})`, formatEffects(effects), `--journal alone (in-process FileJournal, 4 lines per forwarded call, ${journal.calls} calls): median ${journal.medianMicros.toFixed(1)} µs (mean ${journal.meanMicros.toFixed(1)}); with --journal-payloads on: median ${journal.payloadsMedianMicros.toFixed(1)} µs (mean ${journal.payloadsMeanMicros.toFixed(1)})`, '', `total ${result.totalWallSeconds.toFixed(0)} s; results: ${file}`].join('\n')}\n`,
  );
}

async function main(argv: readonly string[]): Promise<void> {
  const profileAt = argv.indexOf('--profile');
  if (profileAt >= 0) {
    const calls = Number(argv[profileAt + 1] ?? 5000);
    if (!Number.isInteger(calls) || calls < 1)
      throw new Error(`--profile takes a positive whole number of writes, got "${argv[profileAt + 1]}"`);
    // `--no-file`: the proxy without --report-file (proxyNoFile), whose target is the naive forwarder's
    // cost; `--floor`: that forwarder itself.
    const path = argv.includes('--floor') ? 'floor' : argv.includes('--no-file') ? 'proxyNoFile' : 'proxy';
    process.stdout.write(`${formatProfile(await profilePath(calls, path)).join('\n')}\n`);
    return;
  }
  const unknown = argv.find((arg) => arg !== '--quick');
  if (unknown !== undefined) throw new Error(`unknown option "${unknown}" (use --quick or --profile [N] [--no-file | --floor])`);
  await runBench(argv.includes('--quick'));
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
