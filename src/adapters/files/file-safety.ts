/**
 * What the adapters that create files the operator names (the report file, the `--report-dir` folder, the
 * journal, check's outputs, the step summary, a trial's folder) share when they refuse a name someone else
 * may have planted: the test for a world-writable sticky folder (`/tmp`, where the kernel's
 * `protected_symlinks` rules apply), the walk of every component of a path by that rule
 * ({@link refusePlantedLinks}), and one-line error texts. Each adapter keeps its own rule of what it
 * refuses at the last component.
 */
import { errorMessage } from '../../domain/error-message.js';
import type { Stats } from 'node:fs';
import { lstat, readlink, stat } from 'node:fs/promises';
import { isAbsolute, parse, resolve } from 'node:path';

/** Set on a folder that is world-writable with the sticky bit (`/tmp`). */
const STICKY_WORLD_WRITABLE = 0o1002;

/** A folder where any user may create a name, and only its owner may remove it (`/tmp`). */
export function isStickyWorldWritable(folder: Stats): boolean {
  return (folder.mode & STICKY_WORLD_WRITABLE) === STICKY_WORLD_WRITABLE;
}

/** More links than this on one path: the kernel's own limit (ELOOP); the walk stops there. */
const MAX_LINKS = 40;

/**
 * refuses a path that passes through a symbolic link another user may have planted, with one
 * line naming the path: the kernel's `protected_symlinks` rule applied by the harness itself (macOS and
 * some Linux machines do not apply it), to every component, not only the last. A link is refused when it
 * lies in a world-writable sticky folder (`/tmp`) and belongs neither to that folder's owner nor to the
 * proxy's user (`uid`). Links that pass are followed, and the components of their targets are walked by
 * the same rule. The walk stops at the first component that does not exist (nothing can be redirected
 * beyond it yet). `what` names the file in the message ("report file", "journal file", …). Without a
 * user id (Windows) there is nothing to check.
 */
export async function refusePlantedLinks(what: string, path: string, uid: number | undefined): Promise<void> {
  if (uid === undefined) return;
  const absolute = resolve(path);
  let pending = components(absolute);
  let walked = parse(absolute).root;
  for (let links = 0; pending.length > 0;) {
    const name = pending.shift()!;
    const next = resolve(walked, name);
    const info = await lstat(next).catch(() => null);
    if (info === null) return;
    if (!info.isSymbolicLink()) {
      walked = next;
      continue;
    }
    const folder = await stat(walked).catch(() => null);
    if (folder !== null && isStickyWorldWritable(folder) && info.uid !== folder.uid && info.uid !== uid) {
      throw new Error(
        `${what} path passes through a symbolic link owned by another user (uid ${info.uid}) in a world-writable folder, ` +
          `refused (it may have been planted): ${next} in ${path}; use a private folder`,
      );
    }
    if (++links > MAX_LINKS) return;
    const target = await readlink(next).catch(() => null);
    if (target === null) return;
    const [base, rest] = isAbsolute(target) ? [parse(target).root, target] : [walked, target];
    walked = base;
    pending = [...components(rest), ...pending];
  }
}

/** The names of a path's components, without its root and without empty ones. */
function components(path: string): string[] {
  return path
    .slice(isAbsolute(path) ? parse(path).root.length : 0)
    .split(/[\\/]/)
    .filter((part) => part !== '' && part !== '.');
}

/** An error's message on one line. */
export function errorText(error: unknown): string {
  return errorMessage(error).replace(/\s+/g, ' ');
}

/** What a path that is not a regular file is, in words: "a FIFO (named pipe)", "a folder", … */
export function kindInWords(info: Stats): string {
  if (info.isDirectory()) return 'a folder';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  if (info.isFIFO()) return 'a FIFO (named pipe)';
  if (info.isSocket()) return 'a socket';
  return 'not a regular file';
}
