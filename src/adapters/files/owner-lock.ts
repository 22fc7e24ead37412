/**
 * Lock files (the `FileLocks` port, issue 41 §12): `<file>.lock` beside the file it guards, holding the
 * owner's pid, host and start as one JSON line. Taken exclusively: the line is written whole to a temp
 * file created `O_CREAT | O_EXCL | O_NOFOLLOW`, then hard-linked to the lock's name (a link never
 * replaces an existing name, so of two processes taking it at the same moment one gets it, and a reader
 * never sees it half-written); where hard links are refused, the lock itself is created `O_EXCL |
 * O_NOFOLLOW`. Nothing at the lock path is ever followed: a symbolic link or a non-regular file there is
 * refused. A lock whose process no longer runs on this host (`kill(pid, 0)` answers ESRCH: it was
 * SIGKILLed, crashed, or the machine rebooted) is stale and taken over; it is moved aside atomically
 * first, so of two processes taking over at once only one gets it. Released by removing it, only while it
 * is still this process's own.
 */
import { errorCode, errorMessage } from '../../domain/error-message.js';
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readFileSync, unlinkSync } from 'node:fs';
import { link, lstat, open, readFile, rename, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import type { FileLocks, HeldLock, LockAttempt, LockOwner } from '../../ports/file-lock.port.js';
import { kindInWords } from './file-safety.js';

const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;
/** Create exclusively, never through a link (O_EXCL alone already fails on any existing name, a dangling link included). */
const CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW;
const READ = constants.O_RDONLY | NO_FOLLOW | (constants.O_NONBLOCK ?? 0);
/** More than this many rounds (the lock removed or replaced under us each time): answered as held. */
const ROUNDS = 3;
/** A lock file is one short line; anything longer is not one of ours. */
const MAX_LOCK_BYTES = 4096;

/** The lock file of `file`: beside it, its name and `.lock`. */
export const lockPathOf = (file: string): string => `${resolve(file)}.lock`;

/** This process as a lock's owner. */
export const ownOwner = (): LockOwner => ({ pid: process.pid, host: hostname(), startedAt: new Date().toISOString() });

/** The owner a lock (or a trial's claim) names; null for text that is not one (an older harness wrote the pid alone). */
export function parseOwner(text: string): LockOwner | null {
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) return { pid: Number(trimmed), host: hostname(), startedAt: '' };
  try {
    const value = JSON.parse(trimmed) as Partial<LockOwner>;
    if (Number.isInteger(value.pid) && typeof value.host === 'string')
      return { pid: value.pid!, host: value.host, startedAt: typeof value.startedAt === 'string' ? value.startedAt : '' };
  } catch {
    // not a lock of this harness
  }
  return null;
}

/** Whether the owner still runs: only knowable on its own host (EPERM: it runs, as another user). */
export function ownerAlive(owner: LockOwner): boolean {
  if (owner.host !== hostname() || owner.pid <= 0) return true;
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) !== 'ESRCH';
  }
}

/** `pid 4242 on build-7, started 2026-12-04T20:00:00.000Z`. */
export const describeOwner = (owner: LockOwner): string =>
  `pid ${owner.pid} on ${owner.host}${owner.startedAt === '' ? '' : `, started ${owner.startedAt}`}`;

/** The `FileLocks` port over the file system. */
export class OwnerLockFiles implements FileLocks {
  take(file: string): Promise<LockAttempt> {
    return takeLock(lockPathOf(file));
  }
}

/** Takes the lock file `lockPath` for this process (see the module's comment). */
export async function takeLock(lockPath: string, owner: LockOwner = ownOwner()): Promise<LockAttempt> {
  const text = `${JSON.stringify(owner)}\n`;
  let last: LockOwner | null = null;
  for (let round = 0; round < ROUNDS; round++) {
    try {
      await create(lockPath, text);
      return { kind: 'taken', lock: heldLock(lockPath, text), takenOver: null };
    } catch (error) {
      if (errorCode(error) !== 'EEXIST') return unavailable(lockPath, error);
    }
    const found = await readLock(lockPath);
    if (found === null) continue; // released meanwhile: try again
    last = parseOwner(found);
    if (last === null || ownerAlive(last)) return held(lockPath, last);
    // Stale. Moved aside atomically: of two processes taking over at once, only one gets the dead lock;
    // one that moved a live lock instead (made in between) puts it back.
    const aside = `${lockPath}.${process.pid}.${randomBytes(6).toString('hex')}.stale`;
    try {
      await rename(lockPath, aside);
    } catch (error) {
      if (errorCode(error) === 'ENOENT') continue;
      return unavailable(lockPath, error);
    }
    const moved = await readFile(aside, 'utf8').catch(() => '');
    if (moved !== found) {
      await link(aside, lockPath).catch(() => undefined);
      await unlink(aside).catch(() => undefined);
      last = parseOwner(moved);
      continue;
    }
    await unlink(aside).catch(() => undefined);
    try {
      await create(lockPath, text);
      return { kind: 'taken', lock: heldLock(lockPath, text), takenOver: last };
    } catch (error) {
      if (errorCode(error) !== 'EEXIST') return unavailable(lockPath, error);
    }
  }
  return held(lockPath, last);
}

const held = (lockPath: string, owner: LockOwner | null): LockAttempt => ({
  kind: 'held',
  lockPath,
  owner,
  elsewhere: owner !== null && owner.host !== hostname(),
});

/** Creates the lock whole (see the module's comment); EEXIST when it is there. */
async function create(lockPath: string, text: string): Promise<void> {
  const whole = `${lockPath}.${process.pid}.${randomBytes(6).toString('hex')}.new`;
  await writeExclusive(whole, text);
  try {
    await link(whole, lockPath);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'EEXIST' || code === 'ENOENT' || code === 'ENOSPC' || code === 'EDQUOT') throw error;
    // A file system without hard links (EPERM, ENOTSUP, EXDEV on some mounts): O_EXCL itself.
    await writeExclusive(lockPath, text);
  } finally {
    await unlink(whole).catch(() => undefined);
  }
}

async function writeExclusive(path: string, text: string): Promise<void> {
  const handle = await open(path, CREATE, 0o644);
  try {
    await handle.writeFile(text, 'utf8');
  } finally {
    await handle.close();
  }
}

/**
 * The lock file's text; null when it is gone. Rejects with a one-line Error when what is there is not a
 * regular file (a link planted at the lock path is never followed).
 */
async function readLock(lockPath: string): Promise<string | null> {
  const info = await lstat(lockPath).catch((error: unknown) => {
    if (errorCode(error) === 'ENOENT') return null;
    throw new Error(`lock file ${lockPath} cannot be examined (${errorCode(error) ?? errorMessage(error)})`);
  });
  if (info === null) return null;
  if (info.isSymbolicLink())
    throw new Error(`lock file ${lockPath} is a symbolic link: refused (a link is never followed); remove it`);
  if (!info.isFile()) throw new Error(`lock file ${lockPath} is ${kindInWords(info)}, not a lock: refused; remove it`);
  try {
    const fd = openSync(lockPath, READ);
    try {
      const opened = fstatSync(fd);
      if (!opened.isFile()) throw new Error(`lock file ${lockPath} is not a regular file: refused; remove it`);
      // Longer than a lock's one line: not one of ours (and never read whole).
      return opened.size > MAX_LOCK_BYTES ? '' : readFileSync(fd, 'utf8');
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT') return null;
    if (code === 'ELOOP')
      throw new Error(`lock file ${lockPath} is a symbolic link: refused (a link is never followed); remove it`);
    if (code === undefined) throw error;
    throw new Error(`lock file ${lockPath} cannot be read (${code})`);
  }
}

function unavailable(lockPath: string, error: unknown): LockAttempt {
  const code = errorCode(error);
  const reason =
    code === 'ENOENT'
      ? 'its folder does not exist'
      : code === 'ENOSPC' || code === 'EDQUOT'
        ? `the disk is full (${code})`
        : (code ?? errorMessage(error));
  return { kind: 'unavailable', lockPath, reason };
}

/** The lock this process took: removed at release while it still holds this process's own line. */
function heldLock(lockPath: string, text: string): HeldLock {
  let held = true;
  return {
    path: lockPath,
    release() {
      if (!held) return;
      held = false;
      try {
        // Read without following a link: a lock taken over meanwhile (we were thought dead) is left to its owner.
        const fd = openSync(lockPath, READ);
        let ours: boolean;
        try {
          ours = readFileSync(fd, 'utf8') === text;
        } finally {
          closeSync(fd);
        }
        if (ours) unlinkSync(lockPath);
      } catch {
        // gone already, or unreadable: nothing of ours to remove
      }
    },
  };
}
