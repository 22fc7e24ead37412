/**
 * What `replay RUN…` is given (docs/commands/replay.md): trial run folders (`runs/<run>/` holding `run.json`
 * and `cassette.jsonl`), or folders holding such folders at any depth (a regression suite). Each run is read
 * and checked before anything runs: its run file (with the `replaySettings` replay needs) and its recording
 * (`readCassette`: format version, torn lines, tool list, redaction). Anything wrong is one line naming the
 * folder. Symbolic links are not followed while searching a suite.
 */
import { lstat, readdir } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { errorMessage } from '../../../domain/error-message.js';
import { readCassette, type Cassette } from '../../cassette/cassette-reader.js';
import { firstIssue } from '../../schemas/common.js';
import { normaliseTrialRunFile, replaySettingsSchema } from '../../schemas/trial-run.schema.js';
import { readRegularFile } from './regular-file.js';
import type { z } from 'zod';

export const RUN_FILE = 'run.json';
export const RECORDING_FILE = 'cassette.jsonl';

/** A recorded run, read and checked. */
export interface RecordedRunFiles {
  /** The run folder, absolute. */
  dir: string;
  /** Its path as shown: relative to the working folder when inside it (forward slashes). */
  name: string;
  /** The run file, every field kept. */
  runFile: Record<string, unknown>;
  settings: z.output<typeof replaySettingsSchema>;
  cassette: Cassette;
}

const exists = (path: string) =>
  lstat(path).then(
    (info) => info,
    () => null,
  );

/** Every run folder the arguments name, in argument order, each suite's sorted by path; throws one line. */
export async function findRunFolders(paths: readonly string[], cwd: string): Promise<string[]> {
  const found: string[] = [];
  for (const path of paths) {
    const dir = resolve(cwd, path);
    const info = await exists(dir);
    if (info === null) throw new Error(`replay: ${path} does not exist`);
    if (!info.isDirectory()) throw new Error(`replay: ${path} is not a folder (give a run folder, or a folder of run folders)`);
    const runs: string[] = [];
    await collect(dir, runs);
    if (runs.length === 0) throw new Error(`replay: ${path} holds no recorded run (no ${RUN_FILE} in it or below it)`);
    for (const run of runs.sort()) if (!found.includes(run)) found.push(run);
  }
  return found;
}

async function collect(dir: string, into: string[]): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true });
  if (entries.some((e) => e.name === RUN_FILE && e.isFile())) {
    into.push(dir);
    return;
  }
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)))
    if (entry.isDirectory()) await collect(join(dir, entry.name), into);
}

/** Why one recorded run cannot be replayed: `run <name>: <why>`, with both parts kept. */
export class RecordedRunError extends Error {
  constructor(
    readonly run: string,
    readonly why: string,
  ) {
    super(`run ${run}: ${why}`);
  }
}

/** How a run folder is named in lines and in the JUnit file: its path relative to `cwd` (absolute outside it). */
export function runNameOf(dir: string, cwd: string): string {
  const rel = relative(cwd, dir);
  return (rel === '' || rel.startsWith('..') ? dir : rel).split(sep).join('/');
}

/** Reads one run folder; throws a {@link RecordedRunError} of one line starting `run <name>:`. */
export async function readRecordedRun(dir: string, cwd: string, allowRedacted: boolean): Promise<RecordedRunFiles> {
  const name = runNameOf(dir, cwd);
  const fail = (why: string): never => {
    throw new RecordedRunError(name, why);
  };
  let runFile: Record<string, unknown> = {};
  try {
    runFile = normaliseTrialRunFile(JSON.parse(await readRegularFile(join(dir, RUN_FILE))) as unknown);
  } catch (error) {
    fail(`${RUN_FILE} is not a trial run file: ${errorMessage(error).split('\n')[0]}`);
  }
  const parsed = replaySettingsSchema.safeParse(runFile['replaySettings']);
  if (runFile['replaySettings'] === undefined)
    fail(`${RUN_FILE} has no replaySettings (it was written by a harness before replay existed): record the run again`);
  if (!parsed.success) fail(`${RUN_FILE} replaySettings.${firstIssue(parsed.error)}`);
  if ((await exists(join(dir, RECORDING_FILE))) === null) fail(`no ${RECORDING_FILE} beside ${RUN_FILE}`);
  let cassette: Cassette | undefined;
  try {
    cassette = await readCassette(join(dir, RECORDING_FILE), { allowRedacted });
  } catch (error) {
    fail(errorMessage(error));
  }
  return { dir, name, runFile, settings: parsed.data!, cassette: cassette! };
}
