/**
 * The trial output folder (issue 13): one trial per folder. Two trials started at once with the same
 * `--out` (or the default `.cuonztech/trials/<time>/`, the same second) must not both take it: their
 * runs would mix and the last summary.json would describe only its own.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TrialFolder } from '../../src/adapters/trial-files/index.js';

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
          new RegExp(`output folder ${out} is taken by another trial running now \\(its \\.trial file\\); choose another --out`),
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
