/**
 * `benchmark`, run: wires the virtual clock, the seeded random source and the simulated backend into the
 * benchmark use case, writes the report and prints the result (loaded only when the command runs).
 */
import { errorMessage } from '../domain/error-message.js';
import { resolve } from 'node:path';
import { FileReportSink } from '../adapters/files/file-report-sink.js';
import { createFolderOf, refuseOutputsOverInputs, writeOutputFile } from '../adapters/files/report-files/output-files.js';
import { ManualClock } from '../adapters/time/manual-clock.js';
import { SeededRandom } from '../adapters/time/seeded-random.js';
import { SimulatedBackend } from '../adapters/simulated-backend/simulated-backend.js';
import { benchmarkDocument, formatBenchmarkText } from '../app/benchmark/benchmark-output.js';
import { runBenchmark } from '../app/benchmark/benchmark.js';
import { referenceAgentsFor } from '../app/benchmark/reference-agents.js';
import { CERTIFICATION } from '../domain/report/report.js';
import type { BenchmarkDeps, BenchmarkOptions } from '../app/benchmark/benchmark-deps.js';
import { HARNESS_VERSION, PROGRAM_NAME } from '../version.js';
import { BENCHMARK_REPORT_FILE, BENCHMARK_SEED, PROGRESS_MIN_RUNS } from './benchmark-flags.js';
import { EXIT_FAILURE, EXIT_OK, FatalError } from './errors.js';
import type { CliIo } from './io.js';

/** Reports progress on stderr, only when it is a terminal and the run is long; never on stdout. */
function progressReporter(io: CliIo, total: number): { onProgress?: BenchmarkDeps['onProgress']; clear(): void } {
  const isTerminal = (io.stderr as { isTTY?: boolean }).isTTY === true;
  if (!isTerminal || total < PROGRESS_MIN_RUNS) return { clear: () => undefined };
  const step = Math.max(1, Math.floor(total / 100));
  return {
    onProgress: (done, all) => {
      if (done % step === 0 || done === all)
        io.stderr.write(`\r[${PROGRAM_NAME}] benchmark: ${done}/${all} runs (${Math.floor((100 * done) / all)}%)`);
    },
    clear: () => io.stderr.write('\r\x1b[K'),
  };
}

/** Writes the report atomically, creating its folder; a failure is one fatal line. */
async function writeReport(path: string, json: string): Promise<void> {
  try {
    await createFolderOf('benchmark report', path);
    const sink = await FileReportSink.open(path);
    await sink.publish(json);
  } catch (error) {
    throw new FatalError(`benchmark report not written: ${errorMessage(error)}`);
  }
}

/**
 * `--junit`: the report as `check` would project it (PASS = the verdict expected for the reference agent).
 * Its modules (the report schemas load zod) are loaded only when asked for: a plain run stays lean.
 */
async function writeJunit(file: string, reportPath: string, json: string): Promise<void> {
  const [{ parseBenchmarkDocument }, { benchmarkCases }, { buildJunit }] = await Promise.all([
    import('../adapters/files/report-files/report-schemas.js'),
    import('../app/check/check.js'),
    import('../app/report-formats/junit.js'),
  ]);
  const cases = benchmarkCases(reportPath, parseBenchmarkDocument(JSON.parse(json)), {
    failOn: new Set(['FAIL', 'NOT_TESTED']),
    minScore: null,
  });
  try {
    // Checked once the report exists, so a link or a hard link to it is recognised too.
    await refuseOutputsOverInputs([{ flag: '--junit', path: file }], [reportPath], 'the benchmark report');
    await writeOutputFile(
      'JUnit XML',
      file,
      buildJunit([{ name: reportPath, reader: 'benchmark', cases }], `${PROGRAM_NAME} benchmark`),
    );
  } catch (error) {
    throw new FatalError(errorMessage(error));
  }
}

export async function runBenchmarkCommand(flags: Omit<BenchmarkOptions, 'seed'>, io: CliIo, junitFile?: string): Promise<number> {
  const options: BenchmarkOptions = { ...flags, seed: BENCHMARK_SEED };
  const progress = progressReporter(io, referenceAgentsFor(options.scenarios).length * options.scenarios.length * options.runs);
  const deps: BenchmarkDeps = {
    newClock: () => new ManualClock(),
    newRandom: (seed) => SeededRandom.fromSeed(seed),
    newBackend: () => new SimulatedBackend(),
    ...(progress.onProgress === undefined ? {} : { onProgress: progress.onProgress }),
  };
  const result = await runBenchmark(options, deps).finally(() => progress.clear());
  const path = resolve(io.cwd, BENCHMARK_REPORT_FILE);
  const json = `${JSON.stringify(benchmarkDocument(result, HARNESS_VERSION), null, 2)}\n`;
  await writeReport(path, json);
  if (junitFile !== undefined) await writeJunit(resolve(io.cwd, junitFile), path, json); // an absolute path stays absolute
  io.stdout.write(formatBenchmarkText(result));
  io.stdout.write(`Report written to ${path} (certification: ${CERTIFICATION}).\n`);
  return result.selfTest.passed ? EXIT_OK : EXIT_FAILURE;
}
