/**
 * Two proxies on the same files (issue 41 §12). The journal is the proxy's own record: a second proxy
 * would empty it while the first writes, and both would write sessions of the same names into it, so a
 * journal a live proxy holds is refused before anything starts. The report file keeps R-13's rule (the
 * last writer wins), but a proxy that finds another live proxy holding it says so on stderr: the first
 * one's FAIL may vanish under the second one's PASS. The locks come through the `FileLocks` port; what
 * they mean for a proxy is decided here.
 */
import { errorMessage } from '../../domain/error-message.js';
import type { FileLocks, HeldLock, LockOwner } from '../../ports/file-lock.port.js';

const owner = (who: LockOwner): string =>
  `pid ${who.pid}${who.host === '' ? '' : ` on ${who.host}`}${who.startedAt === '' ? '' : `, started ${who.startedAt}`}`;

/**
 * Takes the journal's lock, or rejects with the one line to stop on: held by a live proxy, or not
 * lockable here. A lock left by a proxy that no longer runs is taken over, with a notice.
 */
export async function lockJournal(locks: FileLocks, journal: string, notice: (line: string) => void): Promise<HeldLock> {
  const attempt = await locks.take(journal).catch((error: unknown) => {
    throw new Error(`journal ${journal} not usable: ${errorMessage(error)}`);
  });
  switch (attempt.kind) {
    case 'taken':
      if (attempt.takenOver !== null)
        notice(
          `journal ${journal}: took over the lock of a proxy that is no longer running (${owner(attempt.takenOver)}): ${attempt.lock.path}`,
        );
      return attempt.lock;
    case 'held':
      throw new Error(
        attempt.owner === null
          ? `journal ${journal} is locked by ${attempt.lockPath}, which names no proxy process: remove it if no proxy writes this journal, or give this proxy its own --journal`
          : attempt.elsewhere
            ? `journal ${journal} is in use by a proxy on another host (${owner(attempt.owner)}; its lock ${attempt.lockPath}): whether it still runs cannot be known here; remove the lock if it does not, or give this proxy its own --journal`
            : `journal ${journal} is in use by another proxy running now (${owner(attempt.owner)}; its lock ${attempt.lockPath}): give this proxy its own --journal`,
      );
    case 'unavailable':
      throw new Error(`journal ${journal} not usable: its lock file ${attempt.lockPath} cannot be created (${attempt.reason})`);
  }
}

/**
 * Takes the report file's lock when it is free (null otherwise). Held by a live proxy: one warning line
 * naming the file and that proxy, and the proxy goes on (the last writer wins, R-13). A lock that cannot
 * be made (a folder that refuses new files: the report is then written in place) is no reason to stop.
 */
export async function lockReportFile(locks: FileLocks, report: string, notice: (line: string) => void): Promise<HeldLock | null> {
  const attempt = await locks.take(report).catch((error: unknown) => {
    throw new Error(errorMessage(error));
  });
  switch (attempt.kind) {
    case 'taken':
      return attempt.lock;
    case 'held':
      notice(
        `WARNING: report file ${report} is also written by ${attempt.elsewhere ? 'a proxy on another host' : 'another proxy running now'} (${attempt.owner === null ? `its lock ${attempt.lockPath} names no process` : owner(attempt.owner)}): the last writer wins, so either proxy's report may replace the other's; give each proxy its own --report-file`,
      );
      return null;
    case 'unavailable':
      return null;
  }
}
