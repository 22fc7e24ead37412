/**
 * `benchmark`: the harness's self-test. Validates the flags strictly, wires the virtual clock,
 * the seeded random source and the simulated backend into the benchmark use case, writes
 * `.cuonztech/benchmark-report.json` atomically and prints the result. Exit 0 iff the self-test passed.
 */
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { CAC } from 'cac';
import { FileReportSink } from '../adapters/file-report-sink.js';
import { ManualClock } from '../adapters/manual-clock.js';
import { SeededRandom } from '../adapters/seeded-random.js';
import { SimulatedBackend } from '../adapters/simulated-backend.js';
import type { BenchmarkDeps, BenchmarkOptions } from '../app/benchmark/benchmark-deps.js';
import { benchmarkDocument, formatBenchmarkText } from '../app/benchmark/benchmark-output.js';
import { runBenchmark } from '../app/benchmark/benchmark.js';
import { REFERENCE_AGENTS } from '../app/benchmark/reference-agents.js';
import { CERTIFICATION } from '../domain/report.js';
import { SCENARIO_IDS, isScenarioId, type ScenarioId } from '../domain/faults/index.js';
import { HARNESS_VERSION, PROGRAM_NAME } from '../version.js';
import { commaList, numberIn, single, type FlagValues } from './argv.js';
import { EXIT_FAILURE, EXIT_OK, FatalError, UsageError } from './errors.js';
import type { CliIo, CommandContext } from './io.js';

/** Flags of `benchmark` that take a value. */
export const BENCHMARK_VALUE_FLAGS = ['scenarios', 'runs', 'jitter'] as const;

/** Where the report is written, relative to the current folder. */
export const BENCHMARK_REPORT_FILE = '.cuonztech/benchmark-report.json';

/** The jitter's seed: fixed, so the benchmark gives the same output every time. */
export const BENCHMARK_SEED = 1;

/** Below this many runs the benchmark is too short for a progress indicator. */
const PROGRESS_MIN_RUNS = 2000;

/** Registers `benchmark`. */
export function defineBenchmarkCommand(cli: CAC, context: CommandContext): void {
  cli
    .command('benchmark', 'Self-test: careful vs naive reference agent against a simulated backend')
    .option('--scenarios <list>', `Comma-separated scenarios (default ${SCENARIO_IDS.join(',')})`)
    .option('--runs <n>', 'Runs per agent and scenario, 1–1000 (default 1)')
    .option('--jitter <ms>', 'Upper bound of a random virtual delay before each call, 0–60000 ms (default 0)')
    .action((options: Record<string, unknown>) => {
      const extra = [...cli.args, ...(Array.isArray(options['--']) ? (options['--'] as unknown[]) : [])];
      if (extra.length > 0) throw new UsageError(`benchmark takes no arguments, got "${String(extra[0])}"`);
      return runBenchmarkCommand(parseBenchmarkFlags(context.values), context.io);
    });
}

/** Validates the flags: one clear line (UsageError) for anything wrong. */
export function parseBenchmarkFlags(values: FlagValues): Omit<BenchmarkOptions, 'seed'> {
  const scenarios = single(values, 'scenarios');
  const runs = single(values, 'runs');
  const jitter = single(values, 'jitter');
  return {
    scenarios: scenarios === undefined ? [...SCENARIO_IDS] : scenarioList(scenarios),
    runs: runs === undefined ? 1 : numberIn(runs, 'runs', 1, 1000, true),
    jitterMs: jitter === undefined ? 0 : numberIn(jitter, 'jitter', 0, 60_000, true),
  };
}

/** `f3,F1` → `[F1, F3]`: known ids, case-insensitive, no duplicates, in the canonical order. */
function scenarioList(value: string): ScenarioId[] {
  const chosen = new Set<ScenarioId>();
  for (const item of commaList(value, 'scenarios')) {
    const id = item.toUpperCase();
    if (!isScenarioId(id)) throw new UsageError(`flag --scenarios accepts ${SCENARIO_IDS.join(', ')}, got "${item}"`);
    if (chosen.has(id)) throw new UsageError(`flag --scenarios names ${id} twice`);
    chosen.add(id);
  }
  return SCENARIO_IDS.filter((id) => chosen.has(id));
}

/** Reports progress on stderr, only when it is a terminal and the run is long; never on stdout. */
function progressReporter(io: CliIo, total: number): { onProgress?: BenchmarkDeps['onProgress']; clear(): void } {
  const isTerminal = (io.stderr as { isTTY?: boolean }).isTTY === true;
  if (!isTerminal || total < PROGRESS_MIN_RUNS) return { clear: () => undefined };
  const step = Math.max(1, Math.floor(total / 100));
  return {
    onProgress: (done, all) => {
      if (done % step === 0 || done === all) io.stderr.write(`\r[${PROGRAM_NAME}] benchmark: ${done}/${all} runs (${Math.floor((100 * done) / all)}%)`);
    },
    clear: () => io.stderr.write('\r\x1b[K'),
  };
}

/** Writes the report atomically, creating its folder; a failure is one fatal line. */
async function writeReport(path: string, json: string): Promise<void> {
  try {
    await mkdir(dirname(path), { recursive: true });
    const sink = await FileReportSink.open(path);
    await sink.publish(json);
  } catch (error) {
    throw new FatalError(`benchmark report not written: ${error instanceof Error ? error.message : String(error)}`);
  }
}

async function runBenchmarkCommand(flags: Omit<BenchmarkOptions, 'seed'>, io: CliIo): Promise<number> {
  const options: BenchmarkOptions = { ...flags, seed: BENCHMARK_SEED };
  const progress = progressReporter(io, REFERENCE_AGENTS.length * options.scenarios.length * options.runs);
  const deps: BenchmarkDeps = {
    newClock: () => new ManualClock(),
    newRandom: (seed) => SeededRandom.fromSeed(seed),
    newBackend: () => new SimulatedBackend(),
    ...(progress.onProgress === undefined ? {} : { onProgress: progress.onProgress }),
  };
  const result = await runBenchmark(options, deps).finally(() => progress.clear());
  const path = join(io.cwd, BENCHMARK_REPORT_FILE);
  await writeReport(path, `${JSON.stringify(benchmarkDocument(result, HARNESS_VERSION), null, 2)}\n`);
  io.stdout.write(formatBenchmarkText(result));
  io.stdout.write(`Report written to ${path} (certification: ${CERTIFICATION}).\n`);
  return result.selfTest.passed ? EXIT_OK : EXIT_FAILURE;
}
