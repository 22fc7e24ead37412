/**
 * `FileReportSink` on files only a process can make: a FIFO (`mkfifo`) and a real full disk (a tmpfs,
 * mounted as root). The rest of the sink, with the file system's faults injected: test/adapters/files/file-report-sink.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileReportSink } from '../../../../src/adapters/files/file-report-sink.js';
import { skipUnlessTmpfs } from '../../../support/tmpfs.js';

let folder: string;

beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'report-sink-'));
});

afterEach(() => {
  rmSync(folder, { recursive: true, force: true });
});

/** A report of `size` bytes (JSON) whose sequence number is `n`. */
function reportOfSize(n: number, size: number): string {
  const base = JSON.stringify({ sequence: n, padding: '' });
  return JSON.stringify({ sequence: n, padding: 'q'.repeat(Math.max(0, size - base.length)) });
}

describe('FileReportSink.open validates the target (R-9.4)', () => {
  it('R-9.4: a FIFO is refused without opening it (no hang)', async () => {
    const fifo = join(folder, 'pipe');
    execFileSync('mkfifo', [fifo]);
    await expect(FileReportSink.open(fifo)).rejects.toThrow(`${fifo} is a FIFO (named pipe)`);
  });
});

describe('FileReportSink on a full disk keeps the last complete report (R-9.3)', () => {
  it('R-9.3: a real full disk (a 64 KiB tmpfs; skipped unless root may mount one) → rejects, the last complete report stays byte for byte, no temp file left', async ({
    skip,
  }) => {
    skipUnlessTmpfs(skip);
    const mount = join(folder, 'tiny');
    mkdirSync(mount);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k,mode=0755', 'tmpfs', mount]);
    try {
      const target = join(mount, 'report.json');
      const sink = await FileReportSink.open(target);
      await sink.publish(reportOfSize(1, 20_000));
      // Fill what is left; the next report (30 kB) no longer fits beside the 20 kB one.
      try {
        writeFileSync(join(mount, 'filler'), Buffer.alloc(64 * 1024));
      } catch {
        // ENOSPC: the filler took every block it could.
      }
      const failure = await sink.publish(reportOfSize(2, 30_000)).then(
        () => undefined,
        (error: unknown) => error as Error,
      );
      sink.release();
      expect(failure?.message).toMatch(
        /^report file not writable: .*ENOSPC.*the disk is full; the last complete report is kept\)$/,
      );
      expect(readFileSync(target, 'utf8')).toBe(reportOfSize(1, 20_000));
      expect(readdirSync(mount).sort()).toEqual(['filler', 'report.json']);
    } finally {
      execFileSync('umount', [mount]);
    }
  });
});
