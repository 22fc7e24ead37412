/**
 * The trial output folder: one trial per folder. Two trials started at once with the same
 * `--out` (or the default `.cuonztech/trials/<time>/`, the same second) must not both take it: their
 * runs would mix and the last summary.json would describe only its own.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TrialFolder } from '../../../../src/adapters/files/trial-files/index.js';

const dir = mkdtempSync(join(tmpdir(), 'harness-trial-folder-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('TrialFolder', () => {
  it('of two trials opening the same new folder at once, one gets it; the other is told why', async () => {
    const out = join(dir, 'same-second');
    const opened = await Promise.allSettled([TrialFolder.open(out), TrialFolder.open(out), TrialFolder.open(out)]);
    expect(opened.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    for (const o of opened)
      if (o.status === 'rejected')
        expect(String(o.reason)).toMatch(
          new RegExp(
            `output folder ${out} is taken by another trial running now \\(its \\.trial file: pid ${process.pid} on .*\\); choose another --out`,
          ),
        );
  });

  it('a folder with an empty runs/ (and other files) can still be used, once; one with runs cannot', async () => {
    const reuse = join(dir, 'reuse');
    mkdirSync(join(reuse, 'runs'), { recursive: true });
    writeFileSync(join(reuse, 'notes.txt'), 'mine');
    const folder = await TrialFolder.open(reuse);
    expect(readdirSync(join(reuse, 'runs'))).toEqual([]);
    await expect(TrialFolder.open(reuse)).rejects.toThrow(/is taken by another trial/);
    await folder.openRun('F1-001');
    await expect(TrialFolder.open(reuse)).rejects.toThrow(/already holds the runs of a trial/);
  });

  it('a trial that ended gives its claim up: the folder holds only its own files, and one that ended before any run can be used again', async () => {
    const out = join(dir, 'ended');
    const first = await TrialFolder.open(out);
    await first.release();
    expect(readdirSync(out)).toEqual(['runs']);
    const second = await TrialFolder.open(out);
    await second.openRun('F1-001');
    await second.release();
    expect(readdirSync(out).sort()).toEqual(['runs']);
    await expect(TrialFolder.open(out)).rejects.toThrow(/already holds the runs of a trial/);
  });
});

describe('TrialFolder: the .trial claim of a trial that was killed', () => {
  /** A pid no process has: past the kernel's pid_max. */
  const DEAD_PID = 2 ** 22 + 12345;

  it('a claim whose process no longer runs on this host is taken over, saying so; the folder is claimed anew', async () => {
    const out = join(dir, 'killed');
    mkdirSync(join(out, 'runs'), { recursive: true });
    const dead = { pid: DEAD_PID, host: hostname(), startedAt: '2026-12-01T10:00:00.000Z' };
    writeFileSync(join(out, '.trial'), `${JSON.stringify(dead)}\n`);
    const folder = await TrialFolder.open(out);
    expect(folder.takenOver).toBe(
      `output folder ${out}: took over the .trial claim of a trial that is no longer running (pid ${DEAD_PID} on ${hostname()}, started 2026-12-01T10:00:00.000Z)`,
    );
    expect(JSON.parse(readFileSync(join(out, '.trial'), 'utf8'))).toMatchObject({ pid: process.pid, host: hostname() });
    expect(readdirSync(out).sort()).toEqual(['.trial', 'runs']);
    await expect(TrialFolder.open(out)).rejects.toThrow(
      `output folder ${out} is taken by another trial running now (its .trial file: pid ${process.pid} on ${hostname()}, started `,
    );
    await folder.release();
  });

  it('an older claim (the pid alone) of a dead process is taken over too; a live one, or one of another host, is not', async () => {
    const old = join(dir, 'old-claim');
    mkdirSync(old, { recursive: true });
    writeFileSync(join(old, '.trial'), `${DEAD_PID}\n`);
    expect((await TrialFolder.open(old)).takenOver).toMatch(/no longer running \(pid \d+ on /);
    const live = join(dir, 'live-claim');
    mkdirSync(live, { recursive: true });
    writeFileSync(join(live, '.trial'), `${process.pid}\n`);
    await expect(TrialFolder.open(live)).rejects.toThrow(/is taken by another trial running now \(its \.trial file: pid \d+/);
    const remote = join(dir, 'remote-claim');
    mkdirSync(remote, { recursive: true });
    writeFileSync(join(remote, '.trial'), JSON.stringify({ pid: DEAD_PID, host: `not-${hostname()}`, startedAt: '' }));
    await expect(TrialFolder.open(remote)).rejects.toThrow(/running now \(its \.trial file: pid \d+ on not-/);
    const foreign = join(dir, 'foreign-claim');
    mkdirSync(foreign, { recursive: true });
    writeFileSync(join(foreign, '.trial'), 'mine');
    await expect(TrialFolder.open(foreign)).rejects.toThrow(/does not name a trial's process: remove it if no trial runs/);
  });
});
