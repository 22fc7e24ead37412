import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileReportSink } from '../../src/adapters/file-report-sink.js';

let folder: string;

beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'report-sink-'));
});

afterEach(() => {
  rmSync(folder, { recursive: true, force: true });
});

function report(n: number): string {
  return JSON.stringify({ verdict: 'NOT_TESTED', sequence: n, padding: 'p'.repeat(2000) });
}

function tempFiles(): string[] {
  return readdirSync(folder).filter((name) => name.endsWith('.tmp'));
}

describe('FileReportSink.open validates the target (R-9.4)', () => {
  it('R-9.4: /dev/null is refused with a one-line message', async () => {
    await expect(FileReportSink.open('/dev/null')).rejects.toThrow(
      /^report file must be a regular file: \/dev\/null is a character device$/,
    );
  });

  it('R-9.4: a folder is refused', async () => {
    await expect(FileReportSink.open(folder)).rejects.toThrow(`report file must be a regular file: ${folder} is a folder`);
  });

  it('R-9.4: a FIFO is refused without opening it (no hang)', async () => {
    const fifo = join(folder, 'pipe');
    execFileSync('mkfifo', [fifo]);
    await expect(FileReportSink.open(fifo)).rejects.toThrow(`${fifo} is a FIFO (named pipe)`);
  });

  it('R-9.4: a symbolic link to a device is refused', async () => {
    const link = join(folder, 'null-link');
    symlinkSync('/dev/null', link);
    await expect(FileReportSink.open(link)).rejects.toThrow('is a character device');
  });

  it('R-9.4: a file that does not exist yet in an existing folder is accepted', async () => {
    const sink = await FileReportSink.open(join(folder, 'report.json'));
    expect(sink.targetPath).toBe(join(folder, 'report.json'));
  });

  it('R-9.4: a missing parent folder is named clearly', async () => {
    const missing = join(folder, 'no-such-folder');
    await expect(FileReportSink.open(join(missing, 'report.json'))).rejects.toThrow(
      `report file folder does not exist: ${missing}`,
    );
  });

  it('R-9.4: a parent that is a file is named clearly', async () => {
    const file = join(folder, 'plain');
    writeFileSync(file, '');
    await expect(FileReportSink.open(join(file, 'report.json'))).rejects.toThrow(`report file folder is not a folder: ${file}`);
  });

  it('R-9.4: a /proc file is judged by its type without reading it; publishing there fails cleanly', async () => {
    const sink = await FileReportSink.open('/proc/self/status');
    await expect(sink.publish('{}')).rejects.toThrow(/^report file not writable: \/proc\/self\/status [^\n]*$/);
  });
});

describe('FileReportSink.publish writes atomically (R-9.3)', () => {
  it('R-9.3: writes the complete JSON and leaves no .tmp file', async () => {
    const target = join(folder, 'report.json');
    const sink = await FileReportSink.open(target);
    await sink.publish(report(1));
    await sink.publish(report(2));
    expect(JSON.parse(readFileSync(target, 'utf8'))).toMatchObject({ sequence: 2 });
    expect(tempFiles()).toEqual([]);
  });

  it('R-9.4: through a symbolic link the target file is written and the link stays a link', async () => {
    const real = join(folder, 'real.json');
    const link = join(folder, 'link.json');
    writeFileSync(real, '{}');
    symlinkSync(real, link);
    const sink = await FileReportSink.open(link);
    await sink.publish(report(3));
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(JSON.parse(readFileSync(real, 'utf8'))).toMatchObject({ sequence: 3 });
    expect(tempFiles()).toEqual([]);
  });

  it('R-9.3: a symbolic link planted at the temp name is never followed; a fresh name is used', async () => {
    const target = join(folder, 'report.json');
    const victim = join(folder, 'victim.txt');
    writeFileSync(victim, 'untouched');
    const names = ['planted', 'fresh'];
    const sink = await FileReportSink.open(target, { randomHex: () => names.shift() ?? 'later' });
    const planted = `${target}.${process.pid}.planted.tmp`;
    symlinkSync(victim, planted);
    await sink.publish(report(4));
    expect(readFileSync(victim, 'utf8')).toBe('untouched');
    expect(lstatSync(planted).isSymbolicLink()).toBe(true);
    expect(JSON.parse(readFileSync(target, 'utf8'))).toMatchObject({ sequence: 4 });
    expect(tempFiles()).toEqual([`report.json.${process.pid}.planted.tmp`]);
  });

  it('R-9.3: when every temp name is taken the target is written directly, the victim untouched', async () => {
    const target = join(folder, 'report.json');
    const victim = join(folder, 'victim.txt');
    writeFileSync(victim, 'untouched');
    const sink = await FileReportSink.open(target, { randomHex: () => 'same' });
    symlinkSync(victim, `${target}.${process.pid}.same.tmp`);
    await sink.publish(report(5));
    expect(readFileSync(victim, 'utf8')).toBe('untouched');
    expect(JSON.parse(readFileSync(target, 'utf8'))).toMatchObject({ sequence: 5 });
  });

  it('R-9.3: a target replaced by a folder mid-session makes publish reject with one line', async () => {
    const target = join(folder, 'report.json');
    const sink = await FileReportSink.open(target);
    await sink.publish(report(6));
    rmSync(target);
    mkdirSync(target);
    const failure = await sink.publish(report(7)).then(() => undefined, (error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(/^report file not writable: /);
    expect((failure as Error).message).not.toContain('\n');
    expect(tempFiles()).toEqual([]);
  });

  it('R-9.3: a folder removed mid-session makes publish and publishSync fail cleanly', async () => {
    const sub = join(folder, 'sub');
    mkdirSync(sub);
    const sink = await FileReportSink.open(join(sub, 'report.json'));
    rmSync(sub, { recursive: true });
    await expect(sink.publish(report(8))).rejects.toThrow(/^report file not writable: .*ENOENT/);
    expect(() => sink.publishSync(report(8))).toThrow(/^report file not writable: /);
  });

  it('R-9.2: 100 concurrent publishes all resolve and the file ends with the last one', async () => {
    const target = join(folder, 'report.json');
    const sink = await FileReportSink.open(target);
    await Promise.all(Array.from({ length: 100 }, (_, n) => sink.publish(report(n))));
    expect(JSON.parse(readFileSync(target, 'utf8'))).toMatchObject({ sequence: 99 });
    expect(tempFiles()).toEqual([]);
  });

  it('R-9.2: publishSync at exit wins over asynchronous publishes still queued', async () => {
    const target = join(folder, 'report.json');
    const sink = await FileReportSink.open(target);
    const pending = [sink.publish(report(1)), sink.publish(report(2))];
    sink.publishSync(report(3));
    await Promise.all(pending);
    expect(JSON.parse(readFileSync(target, 'utf8'))).toMatchObject({ sequence: 3 });
    expect(tempFiles()).toEqual([]);
  });
});
