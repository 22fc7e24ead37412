/**
 * `benchmark`'s flags: validated strictly, one clear line (UsageError) for anything wrong. Read by the command
 * definition (`benchmark-command.ts`) and the wiring (`benchmark-run.ts`), which do not import each other.
 */
import type { BenchmarkOptions } from '../app/benchmark/benchmark-deps.js';
import { defaultBenchmarkScenarios, isScenarioId, scenarioIds, type ScenarioId } from '../domain/faults/index.js';
import { commaList, single, type FlagValues } from './argv.js';
import { numberFlag } from './flag-spec.js';
import { UsageError } from './errors.js';

/** Where the report is written, relative to the current folder. */
export const BENCHMARK_REPORT_FILE = '.cuonztech/benchmark-report.json';

/** The jitter's seed: fixed, so the benchmark gives the same output every time. */
export const BENCHMARK_SEED = 1;

/** Below this many runs the benchmark is too short for a progress indicator. */
export const PROGRESS_MIN_RUNS = 2000;

/** Registers `benchmark`. */

/** Validates the flags: one clear line (UsageError) for anything wrong. */
export function parseBenchmarkFlags(values: FlagValues): Omit<BenchmarkOptions, 'seed'> {
  const scenarios = single(values, 'scenarios');
  // One idea, one pair of names in every command (issue 37 §3): `--scenario F6` is `--scenarios F6`.
  const scenario = single(values, 'scenario');
  if (scenario !== undefined && scenarios !== undefined) throw new UsageError('give --scenario or --scenarios, not both');
  if (scenario !== undefined && scenario.includes(',')) {
    throw new UsageError(`flag --scenario takes one scenario, got "${scenario}" (several: --scenarios)`);
  }
  const runs = single(values, 'runs');
  const jitter = single(values, 'jitter');
  return {
    scenarios:
      scenario !== undefined
        ? scenarioList(scenario, 'scenario')
        : scenarios === undefined
          ? defaultBenchmarkScenarios()
          : scenarioList(scenarios, 'scenarios'),
    runs: numberFlag(runs, 'runs', { command: 'benchmark' }),
    jitterMs: numberFlag(jitter, 'jitter'),
  };
}

/** `f3,F1` → `[F1, F3]`: known ids, case-insensitive, no duplicates, in the canonical order. */
function scenarioList(value: string, flag: 'scenario' | 'scenarios'): ScenarioId[] {
  const chosen = new Set<ScenarioId>();
  for (const item of commaList(value, flag)) {
    const id = item.toUpperCase();
    if (!isScenarioId(id)) throw new UsageError(`flag --${flag} accepts ${scenarioIds().join(', ')}, got "${item}"`);
    if (chosen.has(id)) throw new UsageError(`flag --scenarios names ${id} twice`);
    chosen.add(id);
  }
  return scenarioIds().filter((id) => chosen.has(id));
}
