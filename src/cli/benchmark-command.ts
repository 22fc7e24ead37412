/**
 * `benchmark`: the harness's self-test. Validates the flags strictly, wires the virtual clock,
 * the seeded random source and the simulated backend into the benchmark use case, writes
 * `.cuonztech/benchmark-report.json` atomically and prints the result. Exit 0 iff the self-test passed.
 */
import { declareFlags } from './help.js';
import type { CAC } from 'cac';
import { single } from './argv.js';
import type { CommandContext } from './io.js';
import { parseBenchmarkFlags } from './benchmark-flags.js';

export function defineBenchmarkCommand(cli: CAC, context: CommandContext): void {
  const command = cli.command('benchmark', 'Self-test: careful vs naive agent, simulated backend');
  declareFlags(command, ['scenarios', 'scenario', 'runs', 'jitter', 'junit']);
  command.action(() => {
    // Stray positional arguments are refused for every command in main.ts.
    return import('./benchmark-run.js').then((m) =>
      m.runBenchmarkCommand(parseBenchmarkFlags(context.values), context.io, single(context.values, 'junit')),
    );
  });
}
