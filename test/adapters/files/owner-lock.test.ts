/**
 * Lock files beside a proxy's journal and report file (issue 41 §12): taken exclusively, refused while a
 * live process holds them, taken over from a process that no longer runs, never through a symbolic link,
 * removed at release (and only while still the releaser's own).
 */
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { lockPathOf, OwnerLockFiles, takeLock } from '../../../src/adapters/files/owner-lock.js';

const dir = mkdtempSync(join(tmpdir(), 'harness-owner-lock-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const locks = new OwnerLockFiles();
/** A pid no process has: past the kernel's pid_max. */
const DEAD_PID = 2 ** 22 + 12345;

function folder(name: string): string {
  const path = join(dir, name);
  mkdirSync(path);
  return path;
}

describe('OwnerLockFiles', () => {
  it('takes a free lock: <file>.lock holds this process, nothing else is left beside it; release removes it', async () => {
    const here = folder('free');
    const journal = join(here, 'journal.jsonl');
    const attempt = await locks.take(journal);
    expect(attempt.kind).toBe('taken');
    if (attempt.kind !== 'taken') return;
    expect(attempt.takenOver).toBeNull();
    expect(attempt.lock.path).toBe(`${journal}.lock`);
    expect(JSON.parse(readFileSync(`${journal}.lock`, 'utf8'))).toMatchObject({ pid: process.pid, host: hostname() });
    expect(readdirSync(here)).toEqual(['journal.jsonl.lock']);
    attempt.lock.release();
    expect(readdirSync(here)).toEqual([]);
    attempt.lock.release(); // idempotent
    expect((await locks.take(journal)).kind).toBe('taken');
  });

  it('a lock a live process holds is refused, naming it; of several takers at the same moment exactly one gets it', async () => {
    const file = join(folder('live'), 'report.json');
    const attempts = await Promise.all([1, 2, 3, 4].map(() => locks.take(file)));
    expect(attempts.filter((a) => a.kind === 'taken')).toHaveLength(1);
    for (const attempt of attempts.filter((a) => a.kind !== 'taken'))
      expect(attempt).toMatchObject({
        kind: 'held',
        lockPath: lockPathOf(file),
        owner: { pid: process.pid, host: hostname() },
        elsewhere: false,
      });
    // Another live process (the test runner's parent) holding it: refused too, the lock untouched.
    const other = join(folder('other-live'), 'journal.jsonl');
    const line = `${JSON.stringify({ pid: process.ppid, host: hostname(), startedAt: '2026-12-04T20:00:00.000Z' })}\n`;
    writeFileSync(`${other}.lock`, line);
    expect(await locks.take(other)).toEqual({
      kind: 'held',
      lockPath: `${other}.lock`,
      owner: { pid: process.ppid, host: hostname(), startedAt: '2026-12-04T20:00:00.000Z' },
      elsewhere: false,
    });
    expect(readFileSync(`${other}.lock`, 'utf8')).toBe(line);
  });

  it("a stale lock (its pid no longer runs: ESRCH) is taken over and names the dead owner; the old pid-only form too; another host's is not", async () => {
    const here = folder('stale');
    const file = join(here, 'journal.jsonl');
    const dead = { pid: DEAD_PID, host: hostname(), startedAt: '2026-12-01T10:00:00.000Z' };
    writeFileSync(`${file}.lock`, `${JSON.stringify(dead)}\n`);
    const attempt = await locks.take(file);
    expect(attempt).toMatchObject({ kind: 'taken', takenOver: dead });
    expect(JSON.parse(readFileSync(`${file}.lock`, 'utf8'))).toMatchObject({ pid: process.pid });
    expect(readdirSync(here)).toEqual(['journal.jsonl.lock']);
    const old = join(here, 'old.json');
    writeFileSync(`${old}.lock`, `${DEAD_PID}\n`);
    expect(await locks.take(old)).toMatchObject({ kind: 'taken', takenOver: { pid: DEAD_PID } });
    const remote = join(here, 'remote.json');
    writeFileSync(`${remote}.lock`, JSON.stringify({ ...dead, host: 'some-other-host' }));
    expect(await locks.take(remote)).toMatchObject({
      kind: 'held',
      owner: { pid: DEAD_PID, host: 'some-other-host' },
      elsewhere: true,
    });
  });

  it('a file at the lock path that names no process is held, never overwritten', async () => {
    const file = join(folder('foreign'), 'journal.jsonl');
    writeFileSync(`${file}.lock`, 'not a lock\n');
    expect(await locks.take(file)).toEqual({ kind: 'held', lockPath: `${file}.lock`, owner: null, elsewhere: false });
    expect(readFileSync(`${file}.lock`, 'utf8')).toBe('not a lock\n');
  });

  it('a symbolic link at the lock path is refused with one line and never followed (to a file, dangling, to a stale lock)', async () => {
    const here = folder('links');
    const victim = join(here, 'victim.txt');
    writeFileSync(victim, 'keep me');
    const stale = join(here, 'stale.lock');
    writeFileSync(stale, JSON.stringify({ pid: DEAD_PID, host: hostname(), startedAt: '' }));
    for (const [name, target] of [
      ['to-file', victim],
      ['dangling', join(here, 'nowhere')],
      ['to-stale', stale],
    ] as const) {
      const file = join(here, `${name}.jsonl`);
      symlinkSync(target, `${file}.lock`);
      await expect(locks.take(file)).rejects.toThrow(
        `lock file ${file}.lock is a symbolic link: refused (a link is never followed); remove it`,
      );
      expect(lstatSync(`${file}.lock`).isSymbolicLink()).toBe(true);
    }
    expect(readFileSync(victim, 'utf8')).toBe('keep me');
    expect(existsSync(join(here, 'nowhere'))).toBe(false);
    expect(readFileSync(stale, 'utf8')).toContain(String(DEAD_PID));
    const dirAtLock = join(here, 'folder.jsonl');
    mkdirSync(`${dirAtLock}.lock`);
    await expect(locks.take(dirAtLock)).rejects.toThrow(/lock file .*folder\.jsonl\.lock is a folder, not a lock: refused/);
  });

  it('release leaves a lock that is no longer its own (taken over meanwhile); a missing folder is unavailable, not thrown', async () => {
    const file = join(folder('taken-over'), 'report.json');
    const attempt = await takeLock(lockPathOf(file));
    if (attempt.kind !== 'taken') throw new Error('expected the lock');
    const successor = `${JSON.stringify({ pid: process.ppid, host: hostname(), startedAt: '' })}\n`;
    writeFileSync(`${file}.lock`, successor);
    attempt.lock.release();
    expect(readFileSync(`${file}.lock`, 'utf8')).toBe(successor);
    expect(await locks.take(join(dir, 'no-such-folder', 'journal.jsonl'))).toEqual({
      kind: 'unavailable',
      lockPath: join(dir, 'no-such-folder', 'journal.jsonl.lock'),
      reason: 'its folder does not exist',
    });
  });
});
