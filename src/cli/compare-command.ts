/**
 * `compare A B`, or several folders per side: `compare A1 A2 -- B1`. The work lives in
 * `compare-run.ts`, loaded only when the command runs.
 */
import { resolve } from 'node:path';
import type { CAC } from 'cac';
import { PROGRAM_NAME } from '../version.js';
import { single } from './argv.js';
import { UsageError } from './errors.js';
import type { CommandContext } from './io.js';

export const COMPARE_VALUE_FLAGS = ['json', 'markdown', 'html'] as const;

export interface CompareFlags {
  a: string[];
  b: string[];
  json: string | undefined;
  markdown: string | undefined;
  html: string | undefined;
}

export function defineCompareCommand(cli: CAC, context: CommandContext): void {
  cli
    .command(
      'compare [...folders]',
      'Compare two trials (or several folders per side: A1 A2 -- B1): each rate side by side with the difference, its 95 % interval and p',
    )
    .option('--json <file>', 'Write the comparison as JSON')
    .option('--markdown <file>', 'Write the comparison as Markdown')
    .option('--html <file>', 'Write the comparison as one self-contained HTML page')
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

/**
 * Without `--`: exactly two folders, A and B. With `--`: the folders before it are side A, every word after
 * it side B (flags go before `--`).
 */
export function parseCompareFlags(
  paths: readonly string[],
  afterDashes: readonly string[] | null,
  values: Readonly<Record<string, readonly string[]>>,
): CompareFlags {
  for (const flag of Object.keys(values)) {
    if (!(COMPARE_VALUE_FLAGS as readonly string[]).includes(flag))
      throw new UsageError(`flag --${flag} is not a compare flag; see compare --help`);
  }
  let a: string[];
  let b: string[];
  if (afterDashes === null) {
    if (paths.length !== 2)
      throw new UsageError(
        `compare takes two trial folders (compare A B), or several per side separated by -- (compare A1 A2 -- B1); got ${paths.length}`,
      );
    a = [paths[0]!];
    b = [paths[1]!];
  } else {
    a = [...paths];
    b = [...afterDashes];
    if (a.length === 0) throw new UsageError('compare: side A (before --) has no trial folder');
    if (b.length === 0) throw new UsageError('compare: side B (after --) has no trial folder');
  }
  const json = single(values, 'json');
  const markdown = single(values, 'markdown');
  const html = single(values, 'html');
  const files = [json, markdown, html].filter((file): file is string => file !== undefined);
  if (new Set(files.map((file) => resolve(file))).size !== files.length)
    throw new UsageError('--json, --markdown and --html must name different files');
  return { a, b, json, markdown, html };
}
