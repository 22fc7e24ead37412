/**
 * `compare`'s flags: validated strictly, one clear line (UsageError) for anything wrong (a flag the command
 * does not declare is refused before, by `readArgv` and cac). Read by the command definition
 * (`compare-command.ts`) and the wiring (`compare-run.ts`), which do not import each other.
 */
import { resolve } from 'node:path';
import { single } from './argv.js';
import { UsageError } from './errors.js';

export interface CompareFlags {
  a: string[];
  b: string[];
  json: string | undefined;
  markdown: string | undefined;
  html: string | undefined;
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
