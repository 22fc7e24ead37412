/**
 * Reads one folder named to `stats`, `compare` or `check`'s rate gates: a trial folder (summary.json,
 * runs/) or a folder of proxy report files (`--report-dir`). Never throws; what cannot be used says why
 * (the use case refuses the merge).
 */
import { errorFirstLine } from '../../../domain/error-message.js';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { LoadedItem } from '../../../ports/shapes/report-documents.js';
import { readAllLimited } from './regular-file.js';
import { readJsonItem } from './report-sources.js';
import { looksLikeTrialFolder, readTrialFolder, type TrialFolderRead } from './trial-folder-reader.js';

export type StatsFolderRead =
  | ({ kind: 'trial' } & TrialFolderRead)
  | { kind: 'proxy-session'; path: string; items: LoadedItem[] }
  /** `notFolder`: the path is a file, so the command that named it can say which folders it takes. */
  | { kind: 'unusable'; path: string; problem: string; notFolder?: true };

export async function readStatsFolder(path: string): Promise<StatsFolderRead> {
  let entries: string[];
  try {
    if (!(await stat(path)).isDirectory()) {
      return {
        kind: 'unusable',
        path,
        problem: 'is not a folder: give trial folders (trial --out) or folders of proxy reports (--report-dir)',
        notFolder: true,
      };
    }
    entries = await readdir(path);
  } catch (error) {
    return { kind: 'unusable', path, problem: `cannot be read: ${errorFirstLine(error)}` };
  }
  if (looksLikeTrialFolder(entries)) return { kind: 'trial', ...(await readTrialFolder(path)) };
  const files = entries.filter((name) => name.endsWith('.json')).sort();
  return { kind: 'proxy-session', path, items: await readAllLimited(files, (name) => readJsonItem(join(path, name))) };
}
