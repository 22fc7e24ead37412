/**
 * Reads a file `check`, `stats` or the HTML report was told to read, refusing anything that is not a
 * regular file by its kind: a FIFO would block the reader in open(2) until some writer came (the CI gate
 * would hang), a device such as `/dev/zero` would be read until memory runs out. The file is opened
 * non-blocking and its kind taken from the open descriptor (fstat), so a name swapped between a check
 * and the read cannot slip a FIFO in.
 */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { kindInWords } from '../file-safety.js';

const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

/**
 * The UTF-8 text of a regular file, without a leading byte order mark (Windows tools such as PowerShell's
 * `Set-Content` write one; JSON.parse would call the report half-written). Rejects with the system error of the open (its `code` kept:
 * `ENOENT`, `EACCES`) or with `<kind>, not a regular file`.
 */
export async function readRegularFile(path: string): Promise<string> {
  const handle = await open(path, READ_FLAGS);
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new Error(`${kindInWords(info)}, not a regular file`);
    const text = await handle.readFile('utf8');
    return text.startsWith('\ufeff') ? text.slice(1) : text;
  } finally {
    await handle.close();
  }
}

/** Files read at once from one folder: far below any open-file limit (macOS shells default to 256). */
export const READ_CONCURRENCY = 16;

/**
 * `Promise.all(items.map(read))` with at most {@link READ_CONCURRENCY} reads in flight, results in the
 * items' order: a folder of thousands of reports must not open thousands of files at once (EMFILE).
 */
export async function readAllLimited<T, R>(items: readonly T[], read: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await read(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, items.length) }, worker));
  return results;
}
