/**
 * `stats`: merges trial folders (whole or `--shard i/n`) and proxy report folders into one
 * summary. The work lives in `stats-run.ts`, loaded only when the command runs.
 */
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { CAC } from 'cac';
import { PROGRAM_NAME } from '../version.js';
import { single } from './argv.js';
import { UsageError } from './errors.js';
import type { CommandContext } from './io.js';

export const STATS_VALUE_FLAGS = ['json'] as const;

export interface StatsFlags {
  paths: string[];
  json: string | undefined;
  markdown: string | undefined;
}

export function defineStatsCommand(cli: CAC, context: CommandContext): void {
  cli
    .command(
      'stats [...folders]',
      'Merge trial folders (also --shard parts) and proxy --report-dir folders into one summary with rates and intervals',
    )
    .option('--json <file>', 'Write the merged summary as JSON')
    .option('--markdown <file>', 'Write the merged summary as Markdown (also appended to $GITHUB_STEP_SUMMARY when set)')
    .example(`${PROGRAM_NAME} stats shard-1 shard-2 shard-3 --json stats.json`)
    .action((paths: string[]) => {
      const extra = Array.isArray(cli.options['--']) ? (cli.options['--'] as string[]) : [];
      const flags = parseStatsFlags([...paths, ...extra], context.values, context.io.cwd);
      return import('./stats-run.js').then((m) => m.runStats(flags, context.io));
    });
}

function parseStatsFlags(paths: readonly string[], values: Readonly<Record<string, readonly string[]>>, cwd: string): StatsFlags {
  if (paths.length === 0)
    throw new UsageError('stats needs at least one folder: a trial folder (trial --out) or a proxy report folder (--report-dir)');
  for (const flag of Object.keys(values)) {
    if (!(STATS_VALUE_FLAGS as readonly string[]).includes(flag) && flag !== 'markdown')
      throw new UsageError(`flag --${flag} is not a stats flag; see stats --help`);
  }
  const json = single(values, 'json');
  const markdown = single(values, 'markdown');
  if (json !== undefined && json === markdown) throw new UsageError('--json and --markdown must name different files');
  // Written into a folder being merged, the output would replace the trial's own summary or be a foreign file there.
  for (const [flag, file] of [
    ['--json', json],
    ['--markdown', markdown],
  ] as const) {
    if (file === undefined) continue;
    const inside = paths.find((folder) => {
      const rel = relative(resolve(cwd, folder), resolve(cwd, file));
      return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
    });
    if (inside !== undefined)
      throw new UsageError(`${flag} ${file} is inside ${inside}, a folder being merged; write it elsewhere`);
  }
  return { paths: [...paths], json, markdown };
}
