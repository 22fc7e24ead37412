/**
 * a symbolic link another user planted anywhere along a path in a world-writable sticky folder
 * (`/tmp`) is refused by every writer (the kernel's `protected_symlinks` rule, applied by the harness,
 * since macOS and some Linux machines do not apply it). The links are given to another user with lchown,
 * so these tests run as root only.
 */
import {
  chmodSync,
  chownSync,
  lchownSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileJournal } from '../../../src/adapters/files/file-journal.js';
import { FileReportSink } from '../../../src/adapters/files/file-report-sink.js';
import { refusePlantedLinks } from '../../../src/adapters/files/file-safety.js';
import { ReportDirectory } from '../../../src/adapters/files/report-directory.js';
import { appendStepSummary, writeOutputFile } from '../../../src/adapters/files/report-files/output-files.js';
import { TrialFolder } from '../../../src/adapters/files/trial-files/trial-folder.js';

const OTHER_UID = 12345;
const asRoot = process.getuid?.() === 0;

let base: string;
let sticky: string;
let victim: string;

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'planted-links-'));
  sticky = join(base, 'sticky');
  mkdirSync(sticky);
  chmodSync(sticky, 0o1777);
  victim = join(base, 'victim');
  mkdirSync(victim);
});

afterEach(() => {
  rmSync(base, { recursive: true, force: true });
});

/** Another user's link `sticky/<name>` to the victim's folder. */
function plant(name = 'harness'): string {
  const link = join(sticky, name);
  symlinkSync(victim, link);
  lchownSync(link, OTHER_UID, OTHER_UID);
  return link;
}

const refusal = (link: string) =>
  `path passes through a symbolic link owned by another user (uid ${OTHER_UID}) in a world-writable folder, refused (it may have been planted): ${link} in `;

describe.skipIf(!asRoot)('R-9.4: a link planted by another user higher in the path', () => {
  it('R-9.4: --report-file sticky/harness/r.json is refused; nothing is written into the victim folder', async () => {
    const link = plant();
    await expect(FileReportSink.open(join(link, 'r.json'))).rejects.toThrow(`report file ${refusal(link)}`);
    expect(readdirSync(victim)).toEqual([]);
  });

  it('R-9.4: a deeper path through the planted link (sticky/harness/a/b.json) is refused too', async () => {
    const link = plant();
    mkdirSync(join(victim, 'a'));
    await expect(FileReportSink.open(join(link, 'a', 'b.json'))).rejects.toThrow(`report file ${refusal(link)}`);
    expect(readdirSync(join(victim, 'a'))).toEqual([]);
  });

  it('R-9.4: --journal through the planted link is refused; nothing is written into the victim folder', async () => {
    const link = plant();
    const options = { payloads: false, harnessVersion: 't', now: () => 0, notice: () => undefined };
    await expect(FileJournal.open(join(link, 'j.jsonl'), options)).rejects.toThrow(`journal file ${refusal(link)}`);
    expect(readdirSync(victim)).toEqual([]);
  });

  it('R-9.4: --report-dir through the planted link is refused before any folder is created in the victim folder', async () => {
    const link = plant();
    await expect(ReportDirectory.open(join(link, 'reports', 'today'))).rejects.toThrow(`report folder ${refusal(link)}`);
    expect(readdirSync(victim)).toEqual([]);
  });

  it('R-9.4: --report-dir that is itself the planted link is refused', async () => {
    const link = plant();
    await expect(ReportDirectory.open(link)).rejects.toThrow(`report folder ${refusal(link)}`);
    expect(readdirSync(victim)).toEqual([]);
  });

  it("R-9.4: check's --junit, --markdown and --html through the planted link are refused; nothing is created in the victim folder", async () => {
    const link = plant();
    for (const [what, file] of [
      ['JUnit XML', 'out/junit.xml'],
      ['Markdown summary', 'out/summary.md'],
      ['HTML report', 'report.html'],
    ] as const) {
      const path = join(link, file);
      await expect(writeOutputFile(what, path, 'x')).rejects.toThrow(`${what} not written to ${path}: ${what} ${refusal(link)}`);
    }
    expect(readdirSync(victim)).toEqual([]);
  });

  it("R-9.4: GITHUB_STEP_SUMMARY naming a file through the planted link is refused; the victim's file is not appended to", async () => {
    const link = plant();
    writeFileSync(join(victim, 'notes.md'), 'VICTIM\n');
    await expect(appendStepSummary(join(link, 'notes.md'), '# summary')).rejects.toThrow(`step summary ${refusal(link)}`);
    expect(readdirSync(victim)).toEqual(['notes.md']);
    expect(readFileSync(join(victim, 'notes.md'), 'utf8')).toBe('VICTIM\n');
  });

  it('R-9.4: trial --out sticky/out (the planted link itself) and a folder below it are refused; nothing is created', async () => {
    const link = plant('out');
    await expect(TrialFolder.open(link)).rejects.toThrow(`output folder ${refusal(link)}`);
    await expect(TrialFolder.open(join(link, 'trial-1'))).rejects.toThrow(`output folder ${refusal(link)}`);
    expect(readdirSync(victim)).toEqual([]);
  });

  it('R-9.4: a link reached through the target of an allowed link is checked too', async () => {
    const planted = plant();
    const own = join(base, 'mine');
    symlinkSync(sticky, own); // our own link, in a private folder: followed
    await expect(FileReportSink.open(join(own, 'harness', 'r.json'))).rejects.toThrow(`report file ${refusal(planted)}`);
    expect(readdirSync(victim)).toEqual([]);
  });

  it("R-9.4: links the rule allows are followed: the proxy user's own link in the sticky folder, and another user's link in a private folder", async () => {
    const own = join(sticky, 'own');
    symlinkSync(victim, own);
    await expect(refusePlantedLinks('report file', join(own, 'r.json'), 0)).resolves.toBeUndefined();
    const theirsPrivate = join(base, 'theirs');
    symlinkSync(victim, theirsPrivate);
    lchownSync(theirsPrivate, OTHER_UID, OTHER_UID);
    const sink = await FileReportSink.open(join(theirsPrivate, 'r.json'));
    await sink.publish('{}');
    sink.release();
    expect(readdirSync(victim)).toEqual(['r.json']);
  });

  it("R-9.4: another user's link is followed where that user owns the sticky folder (as the kernel does)", async () => {
    chownSync(sticky, OTHER_UID, OTHER_UID);
    const link = plant();
    await expect(refusePlantedLinks('report file', join(link, 'r.json'), 0)).resolves.toBeUndefined();
  });
});
