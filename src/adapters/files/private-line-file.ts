/**
 * A private file of lines, appended to (the journal, a recording): created or emptied with `O_NOFOLLOW`
 * and `O_NONBLOCK`, mode 600 (it holds the calls' arguments and results) — an existing file made 600 too,
 * since the creation mode does not apply to it. A symbolic link, a non-regular file, a path through a
 * link another user planted, a file of another user in a world-writable folder and a file that is one of
 * `distinctFrom` (by identity, links followed) are refused with one line naming what the file is for.
 */
import { errorCode } from '../../domain/error-message.js';
import { closeSync, constants, fchmodSync, fstatSync, openSync } from 'node:fs';
import { lstat, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { errorText, isStickyWorldWritable, refusePlantedLinks } from './file-safety.js';

const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;
const NON_BLOCK = constants.O_NONBLOCK ?? 0;
/** Create or empty, append only, never through a link, never blocking on a FIFO planted meanwhile. */
const OPEN_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_APPEND | NO_FOLLOW | NON_BLOCK;

export interface PrivateLineFileOptions {
  /** What the file is, for the messages: `journal` gives "journal file …", "journal folder …". */
  what: string;
  /** The harness's user id (`process.getuid()` when not given). */
  uid: number | undefined;
  /** Files this one must not be (the report file beside a journal). */
  distinctFrom?: readonly string[];
  /** Told when an existing file cannot be made private. */
  notice: (line: string) => void;
}

/** Opens (creates or empties) the file; answers its absolute path and descriptor, or rejects with a one-line Error. */
export async function openPrivateLineFile(path: string, options: PrivateLineFileOptions): Promise<{ path: string; fd: number }> {
  const { what, uid } = options;
  const absolute = resolve(path);
  await refusePlantedLinks(`${what} file`, absolute, uid);
  const folder = await stat(dirname(absolute)).catch(() => null);
  if (folder === null || !folder.isDirectory()) throw new Error(`${what} folder does not exist: ${dirname(absolute)}`);
  const info = await lstat(absolute).catch((error: unknown) => {
    if (errorCode(error) === 'ENOENT') return null;
    throw new Error(`${what} file cannot be used: ${path} (${errorText(error)})`);
  });
  if (info !== null) {
    if (info.isSymbolicLink()) throw new Error(`${what} file is a symbolic link, refused (it may have been planted): ${path}`);
    if (!info.isFile()) throw new Error(`${what} file must be a regular file: ${path}`);
    for (const other of options.distinctFrom ?? []) {
      const same = await stat(other).catch(() => null);
      if (same !== null && same.dev === info.dev && same.ino === info.ino)
        throw new Error(`${what} file is the same file as ${other} (by a link); give the ${what} its own file: ${path}`);
    }
    if (isStickyWorldWritable(folder) && uid !== undefined && info.uid !== uid)
      throw new Error(
        `${what} file belongs to another user (uid ${info.uid}) in a world-writable folder: ${path}; use a private folder`,
      );
  }
  let fd: number;
  try {
    fd = openSync(absolute, OPEN_FLAGS, 0o600);
  } catch (error) {
    const why = errorCode(error) === 'ELOOP' ? 'is a symbolic link, refused' : `cannot be opened (${errorText(error)})`;
    throw new Error(`${what} file ${why}: ${path}`);
  }
  const opened = fstatSync(fd);
  if (!opened.isFile()) {
    closeSync(fd);
    throw new Error(`${what} file must be a regular file: ${path}`);
  }
  if ((opened.mode & 0o777) !== 0o600) {
    try {
      fchmodSync(fd, 0o600);
    } catch (error) {
      options.notice(
        `the ${what} file keeps its mode ${(opened.mode & 0o777).toString(8)}, not 600 (${errorText(error)}): ${path}`,
      );
    }
  }
  return { path: absolute, fd };
}

/** Closes the file at the end; a close that fails has nothing left to lose (every line was one write). */
export function closePrivateLineFile(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // nothing left to do
  }
}
