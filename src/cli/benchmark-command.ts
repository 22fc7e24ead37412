/**
 * `benchmark`: the harness's self-test. Validates the flags strictly, wires the virtual clock,
 * the seeded random source and the simulated backend into the benchmark use case, writes
 * `.cuonztech/benchmark-report.json` atomically and prints the result. Exit 0 iff the self-test passed.
 */
import type { CAC } from 'cac';
import type { BenchmarkOptions } from '../app/benchmark/benchmark-deps.js';
import { isScenarioId, scenarioIds, type ScenarioId } from '../domain/faults/index.js';
import { commaList, numberIn, single, type FlagValues } from './argv.js';
import { UsageError } from './errors.js';
import type { CommandContext } from './io.js';

/** Flags of `benchmark` that take a value. */
export const BENCHMARK_VALUE_FLAGS = ['scenarios', 'runs', 'jitter', 'junit'] as const;

/** Where the report is written, relative to the current folder. */
export const BENCHMARK_REPORT_FILE = '.cuonztech/benchmark-report.json';

/** The jitter's seed: fixed, so the benchmark gives the same output every time. */
export const BENCHMARK_SEED = 1;

/** Below this many runs the benchmark is too short for a progress indicator. */
export const PROGRESS_MIN_RUNS = 2000;

/** Registers `benchmark`. */
export function defineBenchmarkCommand(cli: CAC, context: CommandContext): void {
  cli
    .command('benchmark', 'Self-test: careful vs naive reference agent against a simulated backend')
    .option('--scenarios <list>', `Comma-separated scenarios (default ${scenarioIds().join(',')})`)
    .option('--runs <n>', 'Runs per agent and scenario, 1–1000 (default 1)')
    .option('--jitter <ms>', 'Upper bound of a random virtual delay before each call, 0–60000 ms (default 0)')
    .option('--junit <file>', 'Also write JUnit XML: one testcase per reference agent and scenario (as `check` does)')
    .action(() => {
      // Stray positional arguments are refused for every command in main.ts.
      return import('./benchmark-run.js').then((m) =>
        m.runBenchmarkCommand(parseBenchmarkFlags(context.values), context.io, single(context.values, 'junit')),
      );
    });
}

/** Validates the flags: one clear line (UsageError) for anything wrong. */
export function parseBenchmarkFlags(values: FlagValues): Omit<BenchmarkOptions, 'seed'> {
  const scenarios = single(values, 'scenarios');
  const runs = single(values, 'runs');
  const jitter = single(values, 'jitter');
  return {
    scenarios: scenarios === undefined ? scenarioIds() : scenarioList(scenarios),
    runs: runs === undefined ? 1 : numberIn(runs, 'runs', 1, 1000, true),
    jitterMs: jitter === undefined ? 0 : numberIn(jitter, 'jitter', 0, 60_000, true),
  };
}

/** `f3,F1` → `[F1, F3]`: known ids, case-insensitive, no duplicates, in the canonical order. */
function scenarioList(value: string): ScenarioId[] {
  const chosen = new Set<ScenarioId>();
  for (const item of commaList(value, 'scenarios')) {
    const id = item.toUpperCase();
    if (!isScenarioId(id)) throw new UsageError(`flag --scenarios accepts ${scenarioIds().join(', ')}, got "${item}"`);
    if (chosen.has(id)) throw new UsageError(`flag --scenarios names ${id} twice`);
    chosen.add(id);
  }
  return scenarioIds().filter((id) => chosen.has(id));
}
