/**
 * Writes what `check` and `benchmark` produce (JUnit, Markdown, HTML) atomically, with the report file's
 * own sink (exclusive temp file, rename; devices and folders refused), creating the folder first; and
 * appends to `$GITHUB_STEP_SUMMARY`. Failures are one-line Errors.
 */
import { errorMessage } from '../../../domain/error-message.js';
import { appendFile, mkdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { FileReportSink } from '../file-report-sink.js';
import { refusePlantedLinks } from '../file-safety.js';

const reason = (error: unknown): string => errorMessage(error).split('\n')[0] ?? 'unknown error';

/**
 * Creates the folder of the file `path` names, after refusing a path through another user's planted link
 * (a folder created through it would be created where they chose); rejects with a one-line Error.
 */
export async function createFolderOf(what: string, path: string): Promise<void> {
  await refusePlantedLinks(what, path, process.getuid?.());
  await mkdir(dirname(path), { recursive: true });
}

/** Writes `text` to `path` atomically; rejects with `<what> not written to <path>: <why>`. */
export async function writeOutputFile(what: string, path: string, text: string): Promise<void> {
  try {
    await createFolderOf(what, path);
    const sink = await FileReportSink.open(path);
    try {
      await sink.publish(text);
    } finally {
      sink.release(); // one write: nothing to keep open for a next rename
    }
  } catch (error) {
    throw new Error(`${what} not written to ${path}: ${reason(error)}`);
  }
}

/** Appends `text` to the step summary file GitHub Actions names in `GITHUB_STEP_SUMMARY`. */
export async function appendStepSummary(path: string, text: string): Promise<void> {
  try {
    await refusePlantedLinks('step summary', path, process.getuid?.());
    await appendFile(path, text.endsWith('\n') ? text : `${text}\n`);
  } catch (error) {
    throw new Error(`step summary not appended to ${path} (GITHUB_STEP_SUMMARY): ${reason(error)}`);
  }
}

/** The identity of the file a path names (links followed), or null when there is none to read. */
async function identity(path: string): Promise<string | null> {
  try {
    const info = await stat(path);
    return info.isFile() ? `${info.dev}:${info.ino}` : null;
  } catch {
    return null;
  }
}

/**
 * Rejects with `<flag> names <named> (<input>): …` when an output names, by any spelling, a
 * link or a hard link, one of the files that are read: writing it would replace the report being judged
 * (or the journal) with JUnit, Markdown or HTML.
 */
export async function refuseOutputsOverInputs(
  outputs: readonly { flag: string; path: string }[],
  inputs: readonly string[],
  named = 'a file check reads',
): Promise<void> {
  const read = new Map<string, string>();
  for (const input of inputs) {
    const id = await identity(input);
    if (id !== null && !read.has(id)) read.set(id, input);
  }
  for (const { flag, path } of outputs) {
    const id = await identity(path);
    const input = id === null ? undefined : read.get(id);
    if (input !== undefined)
      throw new Error(`${flag} names ${named} (${input}): it would be replaced; write the output to another file`);
  }
}
