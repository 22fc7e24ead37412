import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ReportDirectory } from '../../../src/adapters/files/report-directory.js';

let folder: string;

beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'report-dir-'));
});

afterEach(() => {
  rmSync(folder, { recursive: true, force: true });
});

function sticky(): string {
  const shared = join(folder, 'shared');
  mkdirSync(shared);
  chmodSync(shared, 0o1777);
  return shared;
}

describe('ReportDirectory refuses planted folders and files (R-9.4)', () => {
  it('R-9.4: a new folder is created and each session writes its own file', async () => {
    const dir = await ReportDirectory.open(join(folder, 'reports'));
    await dir.sinkFor('abc-123', 1).publish('{"n":1}');
    expect(JSON.parse(readFileSync(join(folder, 'reports', 'session-0001-abc-123.json'), 'utf8'))).toEqual({ n: 1 });
  });

  it('R-9.4: a file where the folder should be is refused as not a folder, and left as it was', async () => {
    const file = join(folder, 'reports');
    writeFileSync(file, 'mine');
    await expect(ReportDirectory.open(file)).rejects.toThrow(`report folder is not a folder: ${file}`);
    expect(readFileSync(file, 'utf8')).toBe('mine');
  });

  it('R-9.4: a symbolic link in a world-writable sticky folder is refused as the report folder', async () => {
    const real = join(folder, 'real');
    mkdirSync(real);
    const link = join(sticky(), 'reports');
    symlinkSync(real, link);
    await expect(ReportDirectory.open(link)).rejects.toThrow(
      `report folder is a symbolic link in a world-writable folder, refused (it may have been planted): ${link}; use a private folder`,
    );
  });

  it("R-9.4: a folder link owned by another user is refused; another user's folder in a sticky folder too (uid seam)", async () => {
    const real = join(folder, 'real');
    mkdirSync(real);
    const link = join(folder, 'reports');
    symlinkSync(real, link);
    const other = lstatSync(link).uid + 1;
    await expect(ReportDirectory.open(link, { uid: other })).rejects.toThrow(
      /^report folder is a symbolic link owned by another user \(uid \d+\), refused: /,
    );
    const planted = join(sticky(), 'reports');
    mkdirSync(planted);
    await expect(ReportDirectory.open(planted, { uid: other })).rejects.toThrow(
      /^report folder belongs to another user \(uid \d+\) in a world-writable folder: .*; use a private folder$/,
    );
  });

  it('R-9.4: a link planted at a session file by another user is refused when that session first publishes; the victim is untouched', async () => {
    const dir = await ReportDirectory.open(join(folder, 'reports'), { uid: 4242 });
    const victim = join(folder, 'victim');
    writeFileSync(victim, 'VICTIM');
    symlinkSync(victim, dir.pathFor('abcdef12', 1));
    await expect(dir.sinkFor('abcdef12', 1).publish('{}')).rejects.toThrow(/symbolic link owned by another user/);
    expect(readFileSync(victim, 'utf8')).toBe('VICTIM');
  });
});
