import type { CAC } from 'cac';
import type { CliIo } from './io.js';

/** Flags of `benchmark` that take a value. */
export const BENCHMARK_VALUE_FLAGS = ['scenarios', 'runs', 'jitter'] as const;

/** Registers `benchmark` (placeholder until the benchmark lands). */
export function defineBenchmarkCommand(cli: CAC, io: CliIo): void {
  cli.command('benchmark', 'Self-test: careful vs naive reference agent against a simulated backend').action(() => {
    io.stderr.write('benchmark: not implemented yet\n');
    return 1;
  });
}
