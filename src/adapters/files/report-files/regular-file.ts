/**
 * Reads a file `check`, `stats` or the HTML report was told to read, refusing anything that is not a
 * regular file by its kind: a FIFO would block the reader in open(2) until some writer came (the CI gate
 * would hang), a device such as `/dev/zero` would be read until memory runs out. The file is opened
 * non-blocking and its kind taken from the open descriptor (fstat), so a name swapped between a check
 * and the read cannot slip a FIFO in.
 */
import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { kindInWords } from '../file-safety.js';

const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

/**
 * The largest file `check` and `stats` read (docs/commands/check.md): 64 MiB, ten times a proxy report of a
 * 20 000-call session (about 6 MB, every write executed twice). Sixteen files are read at once, so a
 * bigger one (a sparse 400 MB file, say) would hold gigabytes in memory and abort the process; it is
 * refused by its size before a byte of it is read.
 */
export const MAX_INPUT_BYTES = 64 * 1024 * 1024;

/** A file over {@link MAX_INPUT_BYTES}; its message completes "<path> …". */
export class InputTooLarge extends Error {
  /** `orMore`: the file grew while it was read, and reading stopped at the limit. */
  constructor(bytes: number, orMore = false) {
    super(
      `is ${(bytes / 1024 / 1024).toFixed(1)} MiB${orMore ? ' or more' : ''}: over the ${MAX_INPUT_BYTES / 1024 / 1024} MiB limit of an input file`,
    );
  }
}

/** Reads at most {@link MAX_INPUT_BYTES} + 1 bytes: a file that grows while it is read is refused too. */
async function readBounded(handle: FileHandle, size: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const room = MAX_INPUT_BYTES + 1 - total;
    const buffer = Buffer.allocUnsafe(Math.min(room, Math.max(size + 1 - total, 65_536), 4 * 1024 * 1024));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
    if (bytesRead === 0) return Buffer.concat(chunks, total);
    total += bytesRead;
    if (total > MAX_INPUT_BYTES) throw new InputTooLarge(total, true);
    chunks.push(buffer.subarray(0, bytesRead));
  }
}

/**
 * The UTF-8 text of a regular file, without a leading byte order mark (Windows tools such as PowerShell's
 * `Set-Content` write one; JSON.parse would call the report half-written). Rejects with the system error of the open (its `code` kept:
 * `ENOENT`, `EACCES`), with `<kind>, not a regular file`, or with {@link InputTooLarge}.
 */
export async function readRegularFile(path: string): Promise<string> {
  const handle = await open(path, READ_FLAGS);
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new Error(`${kindInWords(info)}, not a regular file`);
    if (info.size > MAX_INPUT_BYTES) throw new InputTooLarge(info.size);
    const text = (await readBounded(handle, info.size)).toString('utf8');
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
