/**
 * Lock files (issue 41 §12): a file a proxy writes (its journal, its report file) is marked as held by
 * that proxy while it runs, so a second proxy given the same file can tell. The adapter is
 * `src/adapters/files/owner-lock.ts` (a `<file>.lock` beside the file, created exclusively, never through a
 * link); what a proxy does when the file is held is decided in `src/app/proxy/proxy-file-locks.ts`.
 */

/** The process that made a lock. */
export interface LockOwner {
  pid: number;
  /** The host it ran on: a pid is only meaningful there. */
  host: string;
  /** When it took the lock (ISO 8601); '' when the lock does not say. */
  startedAt: string;
}

/** A lock this process holds. */
export interface HeldLock {
  /** The lock file. */
  readonly path: string;
  /** Removes the lock file, if it is still this process's; synchronous, so it can run at any exit. Idempotent. */
  release(): void;
}

/** What one attempt to take a lock gave; the same shape of answer whatever happened. */
export type LockAttempt =
  /** Taken; `takenOver` names the process whose lock was taken over because it no longer runs. */
  | { kind: 'taken'; lock: HeldLock; takenOver: LockOwner | null }
  /**
   * Another process holds it and runs now; `owner` null: the lock file names no process (not one of ours).
   * `elsewhere`: the owner is on another host, so whether it still runs cannot be known here.
   */
  | { kind: 'held'; lockPath: string; owner: LockOwner | null; elsewhere: boolean }
  /** The lock file cannot be made here (the folder refuses new files, is missing, the disk is full). */
  | { kind: 'unavailable'; lockPath: string; reason: string };

export interface FileLocks {
  /**
   * Tries to take the lock of `file` (its lock file beside it). Rejects with a one-line Error only when
   * something is planted at the lock path: a symbolic link (never followed) or a non-regular file.
   */
  take(file: string): Promise<LockAttempt>;
}
