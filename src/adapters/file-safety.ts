/**
 * What the adapters that create files the operator names (the report file, the `--report-dir` folder, the
 * journal) share when they refuse a name someone else may have planted: the test for a world-writable
 * sticky folder (`/tmp`, where the kernel's `protected_symlinks` rules apply) and one-line error texts.
 * Each adapter keeps its own rule of what it refuses.
 */
import type { Stats } from 'node:fs';

/** Set on a folder that is world-writable with the sticky bit (`/tmp`). */
const STICKY_WORLD_WRITABLE = 0o1002;

/** A folder where any user may create a name, and only its owner may remove it (`/tmp`). */
export function isStickyWorldWritable(folder: Stats): boolean {
  return (folder.mode & STICKY_WORLD_WRITABLE) === STICKY_WORLD_WRITABLE;
}

/** An error's message on one line. */
export function errorText(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ');
}

/** A Node.js system error's code (`ENOENT`, `ENOSPC`, …), read without trusting the error's prototype. */
export function errorCode(error: unknown): string | undefined {
  const code: unknown = error instanceof Error ? Object.getOwnPropertyDescriptor(error, 'code')?.value : undefined;
  return typeof code === 'string' ? code : undefined;
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
