import {
  chmodSync,
  fstatSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
  writeSync,
  writevSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileReportSink, type FileReportSinkOptions } from '../../../src/adapters/files/file-report-sink.js';

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

  it('R-9.3: a document in parts (text with any UTF-8, bytes, empty parts) is written as its exact concatenation, publish after publish', async () => {
    const target = join(folder, 'report.json');
    const sink = await FileReportSink.open(target);
    const bytes = new TextEncoder().encode('"bytes \u00e9"');
    for (const [n, text] of ['é', '😀 \ud800 lone', 'ß'.repeat(20_000), 'x'.repeat(400_000), '€'].entries()) {
      const parts = [
        `{"n":${n},"text":`,
        JSON.stringify(text),
        ',"b":',
        bytes,
        '',
        `,"end":${JSON.stringify(text.slice(0, 3))}}`,
      ];
      await sink.publish(parts);
      const expected = Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : p)));
      // As latin1 text (one character per byte): exact, and fast where toEqual walks a Buffer byte by byte.
      expect(readFileSync(target).toString('latin1')).toBe(expected.toString('latin1'));
    }
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
    const failure = await sink.publish(report(7)).then(
      () => undefined,
      (error: unknown) => error,
    );
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

/** An Error with a system error code, as `node:fs` throws them. */
function systemError(code: string, syscall: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: simulated, ${syscall}`), { code, syscall });
}

/** A report of `size` bytes (JSON) whose sequence number is `n`. */
function reportOfSize(n: number, size: number): string {
  const base = JSON.stringify({ sequence: n, padding: '' });
  return JSON.stringify({ sequence: n, padding: 'q'.repeat(Math.max(0, size - base.length)) });
}

describe('FileReportSink on a full disk keeps the last complete report (R-9.3)', () => {
  const faults: Array<[string, (armed: () => boolean) => FileReportSinkOptions['fileSystem']]> = [
    [
      'ENOSPC while writing the temp file',
      (armed) => ({
        writevSync: (fd, buffers) => {
          if (armed()) throw systemError('ENOSPC', 'write');
          return writevSync(fd, buffers);
        },
      }),
    ],
    [
      'EDQUOT when creating the temp file',
      (armed) => ({
        openSync: (path, flags, mode) => {
          if (armed()) throw systemError('EDQUOT', 'open');
          return openSync(path, flags, mode);
        },
      }),
    ],
    [
      'ENOSPC at the rename',
      (armed) => ({
        renameSync: (from, to) => {
          if (armed()) throw systemError('ENOSPC', 'rename');
          renameSync(from, to);
        },
      }),
    ],
  ];
  for (const [name, fault] of faults) {
    it(`R-9.3: ${name} (fault seam) → rejects with one line naming the full disk; the target is never opened, truncated or told`, async () => {
      const target = join(folder, 'report.json');
      let armed = false;
      const opened: string[] = [];
      const notices: string[] = [];
      const fileSystem = fault(() => armed);
      const sink = await FileReportSink.open(target, {
        notice: (line) => notices.push(line),
        fileSystem: {
          ...fileSystem,
          openSync: (path, flags, mode) => {
            opened.push(path);
            return (fileSystem?.openSync ?? openSync)(path, flags, mode);
          },
        },
      });
      await sink.publish(report(1));
      const before = readFileSync(target, 'utf8');
      armed = true;
      opened.length = 0;
      const failure = await sink.publish(report(2)).then(
        () => undefined,
        (error: unknown) => error as Error,
      );
      expect(failure?.message).toMatch(/^report file not writable: .*the disk is full; the last complete report is kept\)$/);
      expect(failure?.message).not.toContain('\n');
      expect(readFileSync(target, 'utf8')).toBe(before);
      expect(opened).not.toContain(target);
      expect(tempFiles()).toEqual([]);
      expect(notices).toEqual([]);
    });
  }

  it('R-9.3: a temp file refused (EACCES, fault seam) → written in place, the operator told once over three writes', async () => {
    const target = join(folder, 'report.json');
    const notices: string[] = [];
    const sink = await FileReportSink.open(target, {
      notice: (line) => notices.push(line),
      fileSystem: {
        openSync: (path, flags, mode) => {
          if (path.endsWith('.tmp')) throw systemError('EACCES', 'open');
          return openSync(path, flags, mode);
        },
      },
    });
    await sink.publish(reportOfSize(1, 5000));
    await sink.publish(reportOfSize(2, 300));
    await sink.publish(reportOfSize(3, 900));
    expect(JSON.parse(readFileSync(target, 'utf8'))).toMatchObject({ sequence: 3 });
    expect(readFileSync(target, 'utf8')).toBe(reportOfSize(3, 900));
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(
      /^warning: the report file .*report\.json is written in place, not atomically \(the temp file or the rename was refused: EACCES: simulated, open\); a reader may see a partly written file while it is being written$/,
    );
  });

  it('R-9.3: a rename refused (EBUSY, e.g. a file mounted in place) → written in place; the disk filling up during that write leaves the old report whole (fault seam)', async () => {
    const target = join(folder, 'report.json');
    let full = false;
    const sink = await FileReportSink.open(target, {
      fileSystem: {
        renameSync: () => {
          throw systemError('EBUSY', 'rename');
        },
        writeSync: (fd, buffer, offset, length, position) => {
          if (full) throw systemError('ENOSPC', 'write');
          return writeSync(fd, buffer, offset, length, position);
        },
      },
    });
    await sink.publish(reportOfSize(1, 1000));
    expect(readFileSync(target, 'utf8')).toBe(reportOfSize(1, 1000));
    full = true;
    await expect(sink.publish(reportOfSize(2, 4000))).rejects.toThrow(
      /^report file not writable: .*direct write: ENOSPC: simulated, write; the disk is full, the last complete report is kept\)$/,
    );
    expect(readFileSync(target, 'utf8')).toBe(reportOfSize(1, 1000));
    expect(tempFiles()).toEqual([]);
  });
});

describe('FileReportSink refuses planted links and keeps the mode (R-9.4)', () => {
  /** A world-writable sticky folder like /tmp, inside the test folder. */
  function stickyFolder(): string {
    const sticky = join(folder, 'shared');
    mkdirSync(sticky);
    chmodSync(sticky, 0o1777);
    return sticky;
  }

  it('R-9.4: any symbolic link in a world-writable sticky folder is refused (even one of our own); the linked file is untouched', async () => {
    const victim = join(folder, 'bashrc');
    writeFileSync(victim, 'VICTIM', { mode: 0o600 });
    const link = join(stickyFolder(), 'harness-report.json');
    symlinkSync(victim, link);
    await expect(FileReportSink.open(link)).rejects.toThrow(
      `report file is a symbolic link in a world-writable folder, refused (it may have been planted): ${link}; use a private folder`,
    );
    expect(readFileSync(victim, 'utf8')).toBe('VICTIM');
    expect(statSync(victim).mode & 0o777).toBe(0o600);
  });

  it('R-9.4: a symbolic link owned by another user is refused anywhere (uid seam: the proxy runs as uid 4242)', async () => {
    const real = join(folder, 'real.json');
    writeFileSync(real, '{}');
    const link = join(folder, 'report.json');
    symlinkSync(real, link);
    const owner = lstatSync(link).uid;
    await expect(FileReportSink.open(link, { uid: 4242 })).rejects.toThrow(
      `report file is a symbolic link owned by another user (uid ${owner}), refused: ${link}`,
    );
    await expect(FileReportSink.open(link, { uid: owner })).resolves.toBeInstanceOf(FileReportSink);
  });

  it.skipIf(process.getuid?.() !== 0)(
    'R-9.4: a real link owned by another user (lchown as root) is refused; the victim keeps its content and mode',
    async () => {
      const victim = join(folder, 'victim');
      writeFileSync(victim, 'VICTIM', { mode: 0o600 });
      const link = join(folder, 'report.json');
      symlinkSync(victim, link);
      lchownSync(link, 4242, 4242);
      await expect(FileReportSink.open(link)).rejects.toThrow('owned by another user (uid 4242)');
      expect(readFileSync(victim, 'utf8')).toBe('VICTIM');
    },
  );

  it("R-9.4: another user's regular file in a world-writable sticky folder is refused (as protected_regular); our own is used", async () => {
    const file = join(stickyFolder(), 'report.json');
    writeFileSync(file, 'THEIRS');
    await expect(FileReportSink.open(file, { uid: lstatSync(file).uid + 1 })).rejects.toThrow(
      /^report file belongs to another user \(uid \d+\) in a world-writable folder: .*; use a private folder$/,
    );
    const sink = await FileReportSink.open(file);
    await sink.publish(report(1));
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ sequence: 1 });
  });

  it('R-9.4: in a world-writable sticky folder, the in-place fallback refuses a file another user put at the name after open (fault seam)', async () => {
    const file = join(stickyFolder(), 'report.json');
    let swapped = false;
    const sink = await FileReportSink.open(file, {
      fileSystem: {
        renameSync: (from, to) => {
          if (swapped) throw systemError('EPERM', 'rename');
          renameSync(from, to);
        },
        fstatSync: (fd) => {
          const info = fstatSync(fd);
          return swapped ? { mode: info.mode, size: info.size, uid: info.uid + 1 } : info;
        },
      },
    });
    await sink.publish(report(1));
    const before = readFileSync(file, 'utf8');
    swapped = true;
    await expect(sink.publish(report(2))).rejects.toThrow(
      /^report file not writable: .*direct write: the file now belongs to another user \(uid \d+\) in a world-writable folder; not written\)$/,
    );
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('R-9.3: a replaced file keeps its mode (600 stays 600, 664 stays 664), also through a link and after a chmod mid-session', async () => {
    const secret = join(folder, 'secret.json');
    writeFileSync(secret, '{}', { mode: 0o600 });
    chmodSync(secret, 0o600);
    const sink = await FileReportSink.open(secret);
    await sink.publish(report(1));
    expect(statSync(secret).mode & 0o777).toBe(0o600);
    await sink.publish(report(2));
    expect(statSync(secret).mode & 0o777).toBe(0o600);
    chmodSync(secret, 0o640);
    await sink.publish(report(3));
    expect(statSync(secret).mode & 0o777).toBe(0o640);

    const shared = join(folder, 'shared.json');
    writeFileSync(shared, '{}');
    chmodSync(shared, 0o664);
    const link = join(folder, 'link.json');
    symlinkSync(shared, link);
    const viaLink = await FileReportSink.open(link);
    await viaLink.publish(report(4));
    expect(statSync(shared).mode & 0o777).toBe(0o664);
    expect(JSON.parse(readFileSync(shared, 'utf8'))).toMatchObject({ sequence: 4 });
  });
});
