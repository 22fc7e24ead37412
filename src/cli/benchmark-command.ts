/**
 * `benchmark`: the harness's self-test. Validates the flags strictly, wires the virtual clock,
 * the seeded random source and the simulated backend into the benchmark use case, writes
 * `.cuonztech/benchmark-report.json` atomically and prints the result. Exit 0 iff the self-test passed.
 */
import { withValue } from './flag-spec.js';
import type { CAC } from 'cac';
import { defaultBenchmarkScenarios, scenarioIds } from '../domain/faults/index.js';
import { single } from './argv.js';
import type { CommandContext } from './io.js';
import { parseBenchmarkFlags } from './benchmark-flags.js';

export function defineBenchmarkCommand(cli: CAC, context: CommandContext): void {
  cli
    .command('benchmark', 'Self-test: careful vs naive agent, simulated backend')
    .option(
      withValue('scenarios'),
      `Comma-separated scenarios of ${scenarioIds().join(',')} (default ${defaultBenchmarkScenarios().join(',')})`,
    )
    .option(withValue('scenario'), 'One scenario, as --scenarios with one id (e.g. F6)')
    .option(withValue('runs'), 'Runs per agent and scenario, 1–1000 (default 1)')
    .option(withValue('jitter'), 'Upper bound of a random virtual delay before each call, 0–60000 ms (default 0)')
    .option(withValue('junit'), 'Also write JUnit XML: one testcase per reference agent and scenario (as `check` does)')
    .action(() => {
      // Stray positional arguments are refused for every command in main.ts.
      return import('./benchmark-run.js').then((m) =>
        m.runBenchmarkCommand(parseBenchmarkFlags(context.values), context.io, single(context.values, 'junit')),
      );
    });
}
