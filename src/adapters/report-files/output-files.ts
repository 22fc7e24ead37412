/**
 * Writes what `check` and `benchmark` produce (JUnit, Markdown, HTML) atomically, with the report file's
 * own sink (exclusive temp file, rename; devices and folders refused), creating the folder first; and
 * appends to `$GITHUB_STEP_SUMMARY`. Failures are one-line Errors.
 */
import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { FileReportSink } from '../file-report-sink.js';

const reason = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? 'unknown error';

/** Writes `text` to `path` atomically; rejects with `<what> not written to <path>: <why>`. */
export async function writeOutputFile(what: string, path: string, text: string): Promise<void> {
  try {
    await mkdir(dirname(path), { recursive: true });
    const sink = await FileReportSink.open(path);
    await sink.publish(text);
  } catch (error) {
    throw new Error(`${what} not written to ${path}: ${reason(error)}`);
  }
}

/** Appends `text` to the step summary file GitHub Actions names in `GITHUB_STEP_SUMMARY`. */
export async function appendStepSummary(path: string, text: string): Promise<void> {
  try {
    await appendFile(path, text.endsWith('\n') ? text : `${text}\n`);
  } catch (error) {
    throw new Error(`step summary not appended to ${path} (GITHUB_STEP_SUMMARY): ${reason(error)}`);
  }
}
