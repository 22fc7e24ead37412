/**
 * What a proxy does when another holds its files (issue 41 §12): a held journal is refused with one line
 * naming the other proxy, a stale one taken over with a notice; a held report file is a warning and the
 * proxy goes on (R-13: the last writer wins).
 */
import { describe, expect, it } from 'vitest';
import { lockJournal, lockReportFile } from '../../../src/app/proxy/proxy-file-locks.js';
import type { FileLocks, HeldLock, LockAttempt } from '../../../src/ports/file-lock.port.js';

const lock: HeldLock = { path: '/w/j.jsonl.lock', release: () => undefined };
const other = { pid: 4242, host: 'build-7', startedAt: '2026-12-04T20:00:00.000Z' };
const locksAnswering = (answer: LockAttempt | Error): FileLocks => ({
  take: () => (answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer)),
});

function noticed(): { lines: string[]; notice: (line: string) => void } {
  const lines: string[] = [];
  return { lines, notice: (line) => lines.push(line) };
}

describe('lockJournal', () => {
  it('free: the lock, nothing said; stale: taken over, one notice naming the dead proxy', async () => {
    const quiet = noticed();
    expect(await lockJournal(locksAnswering({ kind: 'taken', lock, takenOver: null }), '/w/j.jsonl', quiet.notice)).toBe(lock);
    expect(quiet.lines).toEqual([]);
    const told = noticed();
    await lockJournal(locksAnswering({ kind: 'taken', lock, takenOver: other }), '/w/j.jsonl', told.notice);
    expect(told.lines).toEqual([
      'journal /w/j.jsonl: took over the lock of a proxy that is no longer running (pid 4242 on build-7, started 2026-12-04T20:00:00.000Z): /w/j.jsonl.lock',
    ]);
  });

  it('held by a live proxy, by a file naming none, not lockable, a link at the lock: refused with one line', async () => {
    const { lines, notice } = noticed();
    await expect(
      lockJournal(
        locksAnswering({ kind: 'held', lockPath: '/w/j.jsonl.lock', owner: other, elsewhere: false }),
        '/w/j.jsonl',
        notice,
      ),
    ).rejects.toThrow(
      'journal /w/j.jsonl is in use by another proxy running now (pid 4242 on build-7, started 2026-12-04T20:00:00.000Z; its lock /w/j.jsonl.lock): give this proxy its own --journal',
    );
    await expect(
      lockJournal(
        locksAnswering({ kind: 'held', lockPath: '/w/j.jsonl.lock', owner: null, elsewhere: false }),
        '/w/j.jsonl',
        notice,
      ),
    ).rejects.toThrow('journal /w/j.jsonl is locked by /w/j.jsonl.lock, which names no proxy process: remove it if no proxy');
    await expect(
      lockJournal(
        locksAnswering({ kind: 'unavailable', lockPath: '/w/j.jsonl.lock', reason: 'its folder does not exist' }),
        '/w/j.jsonl',
        notice,
      ),
    ).rejects.toThrow(
      'journal /w/j.jsonl not usable: its lock file /w/j.jsonl.lock cannot be created (its folder does not exist)',
    );
    await expect(
      lockJournal(locksAnswering(new Error('lock file /w/j.jsonl.lock is a symbolic link')), '/w/j.jsonl', notice),
    ).rejects.toThrow('journal /w/j.jsonl not usable: lock file /w/j.jsonl.lock is a symbolic link');
    expect(lines).toEqual([]);
  });

  it('held by a proxy on another host (a shared folder): refused, saying its liveness cannot be known here and what to do', async () => {
    await expect(
      lockJournal(
        locksAnswering({ kind: 'held', lockPath: '/w/j.jsonl.lock', owner: other, elsewhere: true }),
        '/w/j.jsonl',
        () => {
          throw new Error('nothing to tell');
        },
      ),
    ).rejects.toThrow(
      'journal /w/j.jsonl is in use by a proxy on another host (pid 4242 on build-7, started 2026-12-04T20:00:00.000Z; its lock /w/j.jsonl.lock): whether it still runs cannot be known here; remove the lock if it does not, or give this proxy its own --journal',
    );
  });
});

describe('lockReportFile', () => {
  it('held by a live proxy: one WARNING line naming the file and its pid, and the proxy goes on without the lock', async () => {
    const { lines, notice } = noticed();
    expect(
      await lockReportFile(
        locksAnswering({ kind: 'held', lockPath: '/w/r.json.lock', owner: other, elsewhere: false }),
        '/w/r.json',
        notice,
      ),
    ).toBeNull();
    expect(lines).toEqual([
      "WARNING: report file /w/r.json is also written by another proxy running now (pid 4242 on build-7, started 2026-12-04T20:00:00.000Z): the last writer wins, so either proxy's report may replace the other's; give each proxy its own --report-file",
    ]);
  });

  it('held by a proxy on another host: the warning says so', async () => {
    const { lines, notice } = noticed();
    await lockReportFile(
      locksAnswering({ kind: 'held', lockPath: '/w/r.json.lock', owner: other, elsewhere: true }),
      '/w/r.json',
      notice,
    );
    expect(lines).toEqual([
      expect.stringMatching(
        /^WARNING: report file \/w\/r\.json is also written by a proxy on another host \(pid 4242 on build-7, /,
      ),
    ]);
  });

  it('free: the lock; a stale one taken over silently; not lockable (a folder refusing new files): no lock, nothing said; a link: refused', async () => {
    const { lines, notice } = noticed();
    expect(await lockReportFile(locksAnswering({ kind: 'taken', lock, takenOver: null }), '/w/r.json', notice)).toBe(lock);
    expect(await lockReportFile(locksAnswering({ kind: 'taken', lock, takenOver: other }), '/w/r.json', notice)).toBe(lock);
    expect(
      await lockReportFile(
        locksAnswering({ kind: 'unavailable', lockPath: '/w/r.json.lock', reason: 'EACCES' }),
        '/w/r.json',
        notice,
      ),
    ).toBeNull();
    expect(lines).toEqual([]);
    await expect(
      lockReportFile(locksAnswering(new Error('lock file /w/r.json.lock is a symbolic link')), '/w/r.json', notice),
    ).rejects.toThrow('lock file /w/r.json.lock is a symbolic link');
  });
});
