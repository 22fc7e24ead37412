/**
 * `stats`'s flags: validated strictly, one clear line (UsageError) for anything wrong (a flag the command
 * does not declare is refused before, by `readArgv` and cac). Read by the command definition
 * (`stats-command.ts`) and the wiring (`stats-run.ts`), which do not import each other.
 */
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { single } from './argv.js';
import { UsageError } from './errors.js';

export interface StatsFlags {
  paths: string[];
  json: string | undefined;
  markdown: string | undefined;
}

export function parseStatsFlags(
  paths: readonly string[],
  values: Readonly<Record<string, readonly string[]>>,
  cwd: string,
): StatsFlags {
  if (paths.length === 0)
    throw new UsageError('stats needs at least one folder: a trial folder (trial --out) or a proxy report folder (--report-dir)');
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
