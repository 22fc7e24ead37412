/**
 * Writes a file the user asked for by name (`init`'s starter config) without ever following a symbolic
 * link: a new file is created exclusively (O_CREAT | O_EXCL fails on any existing name, a dangling link
 * included); an existing one is kept unless `replace`, and then only a regular file is replaced, through
 * an exclusive temp file renamed over it (rename replaces the name, never a link's target).
 */
import { errorCode } from '../../domain/error-message.js';
import { constants } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import { kindInWords, refusePlantedLinks } from './file-safety.js';
import { writeOutputFile } from './report-files/output-files.js';

const CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/** Writes `text` to `path`; `what` names the file in the one-line errors. Answers whether a file was replaced. */
export async function writeNewFile(what: string, path: string, text: string, replace: boolean): Promise<'created' | 'replaced'> {
  await refusePlantedLinks(what, path, process.getuid?.());
  const info = await lstat(path).catch((error: unknown) => {
    if (errorCode(error) === 'ENOENT') return null;
    throw new Error(`${what} ${path} cannot be examined (${errorCode(error) ?? String(error)})`);
  });
  if (info !== null) {
    if (info.isSymbolicLink()) throw new Error(`${what} ${path} is a symbolic link: refused (a link is never followed)`);
    if (!replace) throw new Error(`${what} ${path} exists: not overwritten (give --force to replace it)`);
    if (!info.isFile()) throw new Error(`${what} ${path} is ${kindInWords(info)}: not replaced`);
    await writeOutputFile(what, path, text);
    return 'replaced';
  }
  let handle;
  try {
    handle = await open(path, CREATE, 0o644);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'EEXIST') throw new Error(`${what} ${path} appeared while it was written: not overwritten`);
    if (code === 'ENOENT') throw new Error(`${what} not written to ${path}: its folder does not exist`);
    throw new Error(`${what} not written to ${path} (${code ?? String(error)})`);
  }
  try {
    await handle.writeFile(text, 'utf8');
  } finally {
    await handle.close();
  }
  return 'created';
}
