/**
 * `compare A B`, or several folders per side: `compare A1 A2 -- B1`. The work lives in
 * `compare-run.ts`, loaded only when the command runs.
 */
import { declareFlags } from './help.js';
import type { CAC } from 'cac';
import { PROGRAM_NAME } from '../version.js';
import type { CommandContext } from './io.js';
import { parseCompareFlags } from './compare-flags.js';

export function defineCompareCommand(cli: CAC, context: CommandContext): void {
  const command = cli.command('compare [...folders]', 'Compare two trials: rates, differences, 95 % intervals');
  declareFlags(command, ['json', 'markdown', 'html']);
  command
    .example(`${PROGRAM_NAME} compare trial-v1 trial-v2`)
    .example(`${PROGRAM_NAME} compare --markdown compare.md shard-a1 shard-a2 -- shard-b1 shard-b2`)
    .action((paths: string[]) => {
      // cac gives an empty `--` list without `--`; whether the separator was typed is in the raw argv.
      const dashes = cli.rawArgs.includes('--');
      const afterDashes =
        dashes && Array.isArray(cli.options['--']) ? (cli.options['--'] as unknown[]).map(String) : dashes ? [] : null;
      const flags = parseCompareFlags(paths, afterDashes, context.values);
      return import('./compare-run.js').then((m) => m.runCompare(flags, context.io));
    });
}
