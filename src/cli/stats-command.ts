/**
 * `stats`: merges trial folders (whole or `--shard i/n`) and proxy report folders into one
 * summary. The work lives in `stats-run.ts`, loaded only when the command runs.
 */
import { declareFlags } from './help.js';
import type { CAC } from 'cac';
import { PROGRAM_NAME } from '../version.js';
import type { CommandContext } from './io.js';
import { parseStatsFlags } from './stats-flags.js';

export function defineStatsCommand(cli: CAC, context: CommandContext): void {
  const command = cli.command('stats [...folders]', 'Merge trial and --report-dir folders: rates, intervals');
  declareFlags(command, ['json', 'markdown']);
  command.example(`${PROGRAM_NAME} stats shard-1 shard-2 shard-3 --json stats.json`).action((paths: string[]) => {
    const extra = Array.isArray(cli.options['--']) ? (cli.options['--'] as string[]) : [];
    const flags = parseStatsFlags([...paths, ...extra], context.values, context.io.cwd);
    return import('./stats-run.js').then((m) => m.runStats(flags, context.io));
  });
}
