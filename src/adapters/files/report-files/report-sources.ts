/**
 * Reads what the user hands to `check`: report files, `--report-dir` folders, `benchmark-report.json`,
 * `probe --json` files, and whatever a later command writes. Which reader takes a path is decided by a
 * small ordered list ({@link FOLDER_READERS}, {@link FILE_READERS}): a new format (the trial folders,
 * say) is one more entry, placed before the catch-all. Nothing here judges; a file that cannot be used becomes an `unreadable`
 * item that says exactly what is wrong.
 */
import { errorFirstLine } from '../../../domain/error-message.js';
import { readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { LoadedGroup, LoadedItem } from '../../../ports/shapes/report-documents.js';
import { jsonSyntaxProblem } from './json-problem.js';
import { InputTooLarge, readAllLimited, readRegularFile } from './regular-file.js';
import {
  parseBenchmarkDocument,
  parseProbeResultsDocument,
  parseReportDocument,
  parseTrialRunDocument,
} from './report-schemas.js';
import { looksLikeTrialFolder, readTrialFolder } from './trial-folder-reader.js';

/** A reader of one JSON file, chosen by the file's parsed content. */
export interface FileReader {
  /** Named in messages (`proxy report`, …). */
  name: string;
  /** Whether this reader is meant for the value (a cheap look at its identifying fields). */
  claims(value: unknown): boolean;
  /** Validates the value; throws an Error naming the first wrong field. */
  load(value: unknown, path: string): LoadedItem;
}

/** A reader of a folder, chosen by the names of the entries in it. */
export interface FolderReader {
  name: string;
  claims(entries: readonly string[]): boolean;
  /** Reads the folder's items; `readJson` reads one file through {@link FILE_READERS}. */
  load(path: string, entries: readonly string[], readJson: (file: string) => Promise<LoadedItem>): Promise<LoadedItem[]>;
}

const field = (value: unknown, name: string): unknown =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && Object.hasOwn(value, name)
    ? (value as Record<string, unknown>)[name]
    : undefined;

/** File readers, tried in order. */
const FILE_READERS: readonly FileReader[] = [
  {
    name: 'benchmark report',
    claims: (value) => field(value, 'kind') === 'benchmark' && field(value, 'selfTest') !== undefined,
    load: (value, path) => ({ type: 'benchmark', path, document: parseBenchmarkDocument(value) }),
  },
  {
    name: 'probe results file',
    claims: (value) => field(value, 'kind') === 'probe-results',
    load: (value, path) => ({ type: 'probe-results', path, document: parseProbeResultsDocument(value) }),
  },
  {
    name: 'proxy report',
    claims: (value) => field(value, 'certification') !== undefined && field(value, 'status') !== undefined,
    load: (value, path) => ({ type: 'report', path, document: parseReportDocument(value) }),
  },
];

/** Folder readers, tried in order; the last one takes any folder. */
const FOLDER_READERS: readonly FolderReader[] = [
  {
    name: 'trial folder',
    claims: looksLikeTrialFolder,
    load: loadTrialFolder,
  },
  {
    name: 'report folder',
    claims: () => true,
    load: async (path, entries, readJson) => {
      // `*.json` only: the proxy's temp files (`<file>.<pid>.<random>.tmp`) are not reports.
      const files = entries.filter((name) => name.endsWith('.json')).sort();
      return readAllLimited(files, (name) => readJson(join(path, name)));
    },
  },
];

/**
 * A trial folder (`trial --out`): one item per `runs/<run>/run.json`. A missing or damaged summary.json
 * (the trial was killed) and a trial stopped by a signal are items of their own that fail the check:
 * the runs that are there are shown, but the trial is incomplete.
 */
async function loadTrialFolder(path: string): Promise<LoadedItem[]> {
  const read = await readTrialFolder(path);
  const summaryPath = join(path, 'summary.json');
  const items: LoadedItem[] = [];
  if (read.summary === null)
    items.push({ type: 'unreadable', path: summaryPath, problem: read.summaryProblem ?? 'cannot be read' });
  else if (typeof read.summary['interrupted'] === 'string') {
    items.push({
      type: 'unreadable',
      path: summaryPath,
      problem: `says the trial was interrupted (${read.summary['interrupted']}): not every planned run was made`,
    });
  }
  for (const run of read.runs) {
    if (run.value === null) {
      items.push({ type: 'unreadable', path: run.path, problem: run.problem ?? 'cannot be read' });
      continue;
    }
    try {
      items.push({ type: 'trial-run', path: run.path, run: parseTrialRunDocument(run.value) });
    } catch (error) {
      items.push({ type: 'unreadable', path: run.path, problem: `is not a valid trial run file: ${errorFirstLine(error)}` });
    }
  }
  if (read.runs.length === 0 && read.summary !== null)
    items.push({ type: 'unreadable', path, problem: 'is a trial folder without runs (nothing under runs/)' });
  return items;
}

/** Reads one JSON file into an item; never throws. */
export async function readJsonItem(path: string): Promise<LoadedItem> {
  let text: string;
  try {
    text = await readRegularFile(path);
  } catch (error) {
    return {
      type: 'unreadable',
      path,
      problem: error instanceof InputTooLarge ? error.message : `cannot be read: ${errorFirstLine(error)}`,
    };
  }
  if (text.trim() === '')
    return { type: 'unreadable', path, problem: 'is empty (the proxy may have been killed before its first report)' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return {
      type: 'unreadable',
      path,
      problem: `is not complete JSON (half-written or not a report): ${jsonSyntaxProblem(error, text)}`,
    };
  }
  const reader = FILE_READERS.find((r) => r.claims(value));
  if (reader === undefined) {
    return {
      type: 'unreadable',
      path,
      problem: 'is not a report of this harness (no "certification" and "status", and not a benchmark report or probe results)',
    };
  }
  try {
    return reader.load(value, path);
  } catch (error) {
    return { type: 'unreadable', path, problem: `is not a valid ${reader.name}: ${errorFirstLine(error)}` };
  }
}

/** Reads one path the user named (a file or a folder); never throws. */
export async function readSource(path: string): Promise<LoadedGroup> {
  let isFolder: boolean;
  try {
    isFolder = (await stat(path)).isDirectory();
  } catch (error) {
    return { path, reader: 'none', items: [{ type: 'unreadable', path, problem: `cannot be read: ${errorFirstLine(error)}` }] };
  }
  if (!isFolder) return { path, reader: 'file', items: [await readJsonItem(path)] };
  let entries: string[];
  try {
    entries = await readdir(path);
  } catch (error) {
    return { path, reader: 'none', items: [{ type: 'unreadable', path, problem: `cannot be listed: ${errorFirstLine(error)}` }] };
  }
  const reader = FOLDER_READERS.find((r) => r.claims(entries))!;
  const items = await reader.load(path, entries, readJsonItem);
  if (items.length === 0)
    items.push({ type: 'unreadable', path, problem: `holds no report (no *.json file in ${basename(path)})` });
  return { path, reader: reader.name, items };
}
