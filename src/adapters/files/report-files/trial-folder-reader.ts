/**
 * Reads a `trial` output folder back (`stats`, `check`): `summary.json` and every
 * `runs/<run>/run.json`, each checked with its file's schema (`src/adapters/schemas/`), the names of files
 * older than `schemaVersion` mapped to today's. What the values mean is
 * decided by the use cases (`src/app/stats`, `src/app/check`); nothing here judges. Never throws: a file
 * that cannot be used is a `problem` naming the file and what is wrong.
 */
import { errorCode, errorFirstLine } from '../../../domain/error-message.js';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { normaliseTrialRunFile } from '../../schemas/trial-run.schema.js';
import { normaliseTrialSummaryFile } from '../../schemas/trial-summary.schema.js';
import { jsonSyntaxProblem } from './json-problem.js';
import { InputTooLarge, readAllLimited, readRegularFile } from './regular-file.js';

/** A folder is a trial folder when it holds a `runs` folder or a `summary.json` (the trial writes both). */
export function looksLikeTrialFolder(entries: readonly string[]): boolean {
  return entries.includes('runs') || entries.includes('summary.json');
}

export interface TrialRunFileRead {
  path: string;
  /** The run file's value (`kind: "trial-run"`), or null with a problem (what is wrong with the file at `path`). */
  value: Record<string, unknown> | null;
  problem: string | null;
}

export interface TrialFolderRead {
  path: string;
  /** `summary.json` (`kind: "trial-summary"`), or null with `summaryProblem` (what is wrong with the file). */
  summary: Record<string, unknown> | null;
  summaryProblem: string | null;
  /** One per `runs/<run>/`, in run-id order. */
  runs: TrialRunFileRead[];
}

async function readKind(
  path: string,
  kind: string,
  what: string,
  /** The file's schema: checks it and maps the names of files older than `schemaVersion`. */
  normalise: (value: unknown) => Record<string, unknown>,
): Promise<{ value: Record<string, unknown> | null; problem: string | null }> {
  let text: string;
  try {
    text = await readRegularFile(path);
  } catch (error) {
    const code = errorCode(error);
    const problem =
      error instanceof InputTooLarge
        ? error.message
        : code === 'ENOENT'
          ? 'is missing (the trial did not finish)'
          : `cannot be read: ${errorFirstLine(error)}`;
    return { value: null, problem };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { value: null, problem: `is not complete JSON (half-written or not a ${what}): ${jsonSyntaxProblem(error, text)}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value) || (value as { kind?: unknown }).kind !== kind) {
    return { value: null, problem: `is not a ${what} of this harness (no "kind": "${kind}")` };
  }
  try {
    return { value: normalise(value), problem: null };
  } catch (error) {
    return { value: null, problem: `is not a valid ${what}: ${errorFirstLine(error)}` };
  }
}

/** Reads `summary.json` and the run files of a trial folder. */
export async function readTrialFolder(path: string): Promise<TrialFolderRead> {
  const summary = await readKind(join(path, 'summary.json'), 'trial-summary', 'trial summary', normaliseTrialSummaryFile);
  let ids: string[] = [];
  try {
    ids = (await readdir(join(path, 'runs'), { withFileTypes: true }))
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
  } catch {
    // no runs folder: no runs
  }
  const runs = await readAllLimited(ids, async (id): Promise<TrialRunFileRead> => {
    const file = join(path, 'runs', id, 'run.json');
    const read = await readKind(file, 'trial-run', 'trial run file', normaliseTrialRunFile);
    return { path: file, ...read };
  });
  return { path, summary: summary.value, summaryProblem: summary.problem, runs };
}
