/**
 * Reads a file `check`, `stats` or the HTML report was told to read, refusing anything that is not a
 * regular file by its kind: a FIFO would block the reader in open(2) until some writer came (the CI gate
 * would hang), a device such as `/dev/zero` would be read until memory runs out. The file is opened
 * non-blocking and its kind taken from the open descriptor (fstat), so a name swapped between a check
 * and the read cannot slip a FIFO in.
 */
import { constants, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';

const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

function kindOf(info: Stats): string {
  if (info.isFIFO()) return 'a FIFO (named pipe)';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  if (info.isSocket()) return 'a socket';
  if (info.isDirectory()) return 'a folder';
  return 'not a regular file';
}

/**
 * The UTF-8 text of a regular file, without a leading byte order mark (Windows tools such as PowerShell's
 * `Set-Content` write one; JSON.parse would call the report half-written). Rejects with the system error of the open (its `code` kept:
 * `ENOENT`, `EACCES`) or with `<kind>, not a regular file`.
 */
export async function readRegularFile(path: string): Promise<string> {
  const handle = await open(path, READ_FLAGS);
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new Error(`${kindOf(info)}, not a regular file`);
    const text = await handle.readFile('utf8');
    return text.startsWith('\ufeff') ? text.slice(1) : text;
  } finally {
    await handle.close();
  }
}
