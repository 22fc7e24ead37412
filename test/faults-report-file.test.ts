/**
 * Report-file faults (issue 6, issue 11, R-9.3, R-9.4, R-13): the target becomes unwritable mid-session,
 * the disk fills up, the folder refuses new files, it is a symbolic link, has links planted at guessable
 * temp names, at its own name or in a world-writable folder, is a device, folder, FIFO, socket or /proc
 * file.
 *
 * Moved from `e2e/faults/report-file-faults.e2e.test.ts` (issue 12): the proxy runs in-process
 * (`main(argv, io)`, see `support/h2-cli-proxy.ts`; its temp names carry this process's pid) in front of
 * the real counting upstream, whose ledger and pidfile are the evidence. SIGKILL while writing, two
 * proxy processes sharing one file under a reader, and one refused target as a real process exit stay there.
 */
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { executions } from '../e2e/fixtures/lib/ledger.mjs';
import { INITIALIZE, waitForExit, type RawChild } from '../e2e/fixtures/lib/raw-child.mjs';
import { rawText } from '../e2e/support/raw-proxy.js';
import { callTool, COUNTING, nodeWord, sendCall, shell } from '../e2e/faults/fault-lab.js';
import { expectClearStderr, expectNothingLost, readReport, type ProxyEvidence } from '../e2e/faults/nothing-lost.js';
import { cliLab } from './support/h2-cli-proxy.js';

// Each test starts a real upstream process; a busy two-core machine needs more than the unit default.
vi.setConfig({ testTimeout: 60_000 });

const isRoot = process.getuid?.() === 0;

/** Makes a folder and a file in it unwritable (root: immutable flag; others: permissions); answers the undo. */
function makeUnwritable(folder: string, file: string): () => void {
  if (isRoot) {
    execFileSync('chattr', ['+i', file, folder]);
    return () => execFileSync('chattr', ['-i', file, folder]);
  }
  execFileSync('chmod', ['0444', file]);
  execFileSync('chmod', ['0555', folder]);
  return () => execFileSync('chmod', ['0755', folder]);
}

/** Whether {@link makeUnwritable} works here (root needs `chattr` on a file system with the flag). */
function canMakeUnwritable(): boolean {
  if (!isRoot) return true;
  const probe = mkdtempSync(join(tmpdir(), 'harness-chattr-'));
  try {
    writeFileSync(join(probe, 'f'), '');
    makeUnwritable(probe, join(probe, 'f'))();
    return true;
  } catch {
    return false;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}

/**
 * The in-process proxy with any `--report-file`, a pidfile-writing wrapper as its upstream and its own
 * ledger; ended when the test finishes.
 */
function inProcessWithReportFile(
  onTestFinished: (fn: () => Promise<void>) => void,
  reportFile: string,
  _name: string,
): ProxyEvidence & { raw: RawChild } {
  const p = cliLab(onTestFinished).launch(shell(`echo $$ > "$FIXTURE_PIDFILE"; exec ${nodeWord('counting-server.mjs')}`), {
    reportFile,
  });
  return {
    raw: p.raw,
    child: p.raw.child,
    stderr: () => p.raw.stderr(),
    reportFile,
    ledgerFile: p.ledgerFile,
    pidFile: p.pidFile,
  };
}

describe.concurrent('the report file fails during the session', () => {
  it.skipIf(!canMakeUnwritable())(
    'R-9.3: the folder and file become unwritable mid-session → exit 1, the call is not answered, the file never says finished',
    async ({ onTestFinished }) => {
      const p = await cliLab(onTestFinished).start(COUNTING);
      expect(rawText(await callTool(p, 'create_order', { item: 'pen' }))).toBe('ok create_order #1');
      const undo = makeUnwritable(p.dir, p.reportFile);
      try {
        sendCall(p, 77, 'create_order', { item: 'book' });
        await expectNothingLost(p, {
          end: 1,
          report: 'stale',
          message: /error: the report file could not be written: report file not writable: .*Exiting without answering the agent/,
        });
        await expect(p.response(77, 300)).rejects.toThrow(/timed out/);
        // The write before forwarding failed, so the second call never reached the upstream.
        expect(executions(p.ledger())).toHaveLength(1);
      } finally {
        undo();
      }
    },
  );
});

/** Makes a folder refuse new files and renames, its files staying writable (root: immutable flag; others: 0555). */
function refuseNewFiles(folder: string): () => void {
  if (isRoot) {
    execFileSync('chattr', ['+i', folder]);
    return () => execFileSync('chattr', ['-i', folder]);
  }
  execFileSync('chmod', ['0555', folder]);
  return () => execFileSync('chmod', ['0755', folder]);
}

/** Whether a tmpfs can be mounted here (root, outside a sandbox that forbids it). */
function canMountTmpfs(): boolean {
  if (!isRoot) return false;
  const probe = mkdtempSync(join(tmpdir(), 'harness-mount-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe], { stdio: 'ignore' });
    execFileSync('umount', [probe], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}

describe.concurrent('a full disk and a folder that refuses new files (issue 11 item 2)', () => {
  it.skipIf(!canMountTmpfs())(
    'R-9.3: the disk fills up mid-session (a 64 KiB tmpfs; skipped unless root may mount one) → exit 1, one line naming the full disk, the call not answered, the last complete report kept byte for byte',
    async ({ onTestFinished }) => {
      const dir = mkdtempSync(join(tmpdir(), 'harness-full-'));
      const mount = join(dir, 'tiny');
      mkdirSync(mount);
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k,mode=0700', 'tmpfs', mount]);
      const reportFile = join(mount, 'report.json');
      const run = inProcessWithReportFile(onTestFinished, reportFile, 'full');
      onTestFinished(() => {
        if (run.child.exitCode === null) run.child.kill('SIGKILL');
        execFileSync('umount', ['-l', mount]);
        rmSync(dir, { recursive: true, force: true });
      });
      await serveSession(run.raw, 'before', 3);
      const before = readFileSync(reportFile, 'utf8');
      expect(JSON.parse(before)).toMatchObject({ status: 'running' });
      try {
        writeFileSync(join(mount, 'filler'), Buffer.alloc(64 * 1024));
      } catch {
        // ENOSPC: the filler took every block left.
      }
      run.raw.send({
        jsonrpc: '2.0',
        id: 99,
        method: 'tools/call',
        params: { name: 'create_order', arguments: { item: 'disk-full' } },
      });
      await expectNothingLost(run, {
        end: 1,
        report: 'stale',
        message:
          /error: the report file could not be written: report file not writable: .*ENOSPC.*the disk is full; the last complete report is kept\)\. Exiting without answering the agent/,
      });
      await expect(run.raw.next((m) => m['id'] === 99, 300)).rejects.toThrow(/timed out/);
      expect(readFileSync(reportFile, 'utf8'), 'the last complete report, untouched').toBe(before);
    },
  );

  it.skipIf(!canMakeUnwritable())(
    'R-9.3: the folder refuses new files mid-session → the report is written in place, stderr says so exactly once, the final report is complete',
    async ({ onTestFinished }) => {
      const p = await cliLab(onTestFinished).start(COUNTING);
      expect(rawText(await callTool(p, 'create_order', { item: 'first' }))).toBe('ok create_order #1');
      const undo = refuseNewFiles(p.dir);
      try {
        for (let i = 0; i < 10; i++) await callTool(p, 'create_order', { item: `in-place-${i}` });
        p.raw.child.stdin.end();
        await expectNothingLost(p, {
          end: 0,
          exact: true,
          message:
            /\[cuonztech-agent-harness\] warning: the report file .*report\.json is written in place, not atomically \(the temp file or the rename was refused: E(PERM|ACCES)/,
        });
        expect(p.raw.stderr().match(/is written in place/g)).toHaveLength(1);
        expect(readReport(p.reportFile).report.operations).toHaveLength(11);
      } finally {
        undo();
      }
    },
  );
});

describe.concurrent('links at and beside the report file', () => {
  it('R-9.4: a symbolic link to a regular file in another folder is written through; the link stays a link; temp files go beside the real file', async ({
    onTestFinished,
  }) => {
    const prepare = (dir: string, reportFile: string) => {
      mkdirSync(join(dir, 'real'));
      writeFileSync(join(dir, 'real', 'real.json'), '{}');
      symlinkSync(join(dir, 'real', 'real.json'), reportFile);
    };
    const p = await cliLab(onTestFinished).start(COUNTING, { prepare });
    for (let i = 0; i < 20; i++) await callTool(p, 'create_order', { item: `i-${i}` });
    p.raw.child.stdin.end();
    await expectNothingLost(p, { end: 0, exact: true });
    expect(lstatSync(p.reportFile).isSymbolicLink()).toBe(true);
    expect(readlinkSync(p.reportFile)).toBe(join(p.dir, 'real', 'real.json'));
  });

  it('R-9.3: links planted at guessable temp names and at the target itself are never followed; the victim is untouched', async ({
    onTestFinished,
  }) => {
    const lab = cliLab(onTestFinished);
    const guessable = (reportFile: string, pid = '') => [
      `${reportFile}.tmp`,
      `${reportFile}~`,
      `${reportFile}.new`,
      ...(pid === '' ? [] : [`${reportFile}.${pid}.tmp`, `${reportFile}.${pid}.0.tmp`]),
    ];
    const plant = (dir: string, names: string[]) =>
      names.forEach((name, i) => symlinkSync(i % 2 === 0 ? join(dir, 'victim.json') : join(dir, 'created-through-link'), name));
    const p = lab.launch(COUNTING, {
      prepare: (dir, reportFile) => {
        writeFileSync(join(dir, 'victim.json'), 'VICTIM');
        plant(dir, guessable(reportFile));
      },
    });
    plant(p.dir, guessable(p.reportFile, String(p.raw.child.pid)).slice(3));
    await p.initialize();
    for (let i = 0; i < 10; i++) await callTool(p, 'create_order', { item: `i-${i}` });
    unlinkSync(p.reportFile);
    symlinkSync(join(p.dir, 'victim.json'), p.reportFile);
    await callTool(p, 'create_order', { item: 'after-the-swap' });
    expect(lstatSync(p.reportFile).isSymbolicLink(), 'the link planted at the target is replaced').toBe(false);
    const planted = guessable(p.reportFile, String(p.raw.child.pid));
    expect(planted.every((name) => lstatSync(name).isSymbolicLink())).toBe(true);
    planted.forEach((name) => unlinkSync(name));
    p.raw.child.stdin.end();
    await expectNothingLost(p, { end: 0, exact: true });
    expect(readFileSync(join(p.dir, 'victim.json'), 'utf8')).toBe('VICTIM');
    expect(existsSync(join(p.dir, 'created-through-link'))).toBe(false);
  });
});

describe.concurrent('planted links and modes (issue 11 item 3)', () => {
  it('R-9.4: a link planted at the report path in a world-writable sticky folder (like /tmp) → exit 1, one line, no upstream started; the linked file keeps its content and mode 600', async ({
    onTestFinished,
  }) => {
    const dir = mkdtempSync(join(tmpdir(), 'harness-planted-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const shared = join(dir, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    const victim = join(dir, 'bashrc');
    writeFileSync(victim, 'VICTIM');
    chmodSync(victim, 0o600);
    const link = join(shared, 'harness-report.json');
    symlinkSync(victim, link);
    const run = inProcessWithReportFile(onTestFinished, link, 'planted');
    expect(await waitForExit(run.raw.child, 20_000)).toEqual({ code: 1, signal: null });
    expectClearStderr(
      run.stderr(),
      /^\[cuonztech-agent-harness\] error: report file not usable: report file is a symbolic link in a world-writable folder, refused \(it may have been planted\): .*; use a private folder$/m,
    );
    expect(run.stderr().trim().split('\n')).toHaveLength(1);
    expect(existsSync(run.pidFile!), 'the upstream was started').toBe(false);
    expect(readFileSync(victim, 'utf8')).toBe('VICTIM');
    expect(statSync(victim).mode & 0o777).toBe(0o600);
  });

  it('R-9.3: a report file of mode 600 keeps mode 600 through a whole session', async ({ onTestFinished }) => {
    const prepare = (_dir: string, reportFile: string) => {
      writeFileSync(reportFile, '{}');
      chmodSync(reportFile, 0o600);
    };
    const p = await cliLab(onTestFinished).start(COUNTING, { prepare });
    for (let i = 0; i < 5; i++) await callTool(p, 'create_order', { item: `m-${i}` });
    expect(statSync(p.reportFile).mode & 0o777).toBe(0o600);
    p.raw.child.stdin.end();
    await expectNothingLost(p, { end: 0, exact: true });
    expect(statSync(p.reportFile).mode & 0o777).toBe(0o600);
  });
});

describe.concurrent('targets that are not regular files are refused before the upstream starts', () => {
  const cases: Array<[string, (dir: string) => string, RegExp]> = [
    ['/dev/null', () => '/dev/null', /\/dev\/null is a character device/],
    ['/dev/zero', () => '/dev/zero', /is a character device/],
    [
      'a symbolic link to /dev/null',
      (dir) => (symlinkSync('/dev/null', join(dir, 'link.json')), join(dir, 'link.json')),
      /is a character device/,
    ],
    ['a folder', (dir) => (mkdirSync(join(dir, 'folder')), join(dir, 'folder')), /is a folder/],
    ['a FIFO', (dir) => (execFileSync('mkfifo', [join(dir, 'fifo')]), join(dir, 'fifo')), /is a FIFO \(named pipe\)/],
  ];
  for (const [name, target, pattern] of cases) {
    it(`R-9.4: ${name} → exit 1, one line, no upstream started, the target unchanged`, async ({ onTestFinished }) => {
      const dir = mkdtempSync(join(tmpdir(), 'harness-refuse-'));
      onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
      const path = target(dir);
      const before = lstatSync(path);
      const run = inProcessWithReportFile(onTestFinished, path, 'refused');
      expect(await waitForExit(run.raw.child, 20_000)).toEqual({ code: 1, signal: null });
      expect(lstatSync(path)).toMatchObject({ mode: before.mode, ino: before.ino, size: before.size });
      expectClearStderr(
        run.stderr(),
        /^\[cuonztech-agent-harness\] error: report file not usable: report file must be a regular file: /,
      );
      expect(run.stderr().trim().split('\n')).toHaveLength(1);
      expect(run.stderr()).toMatch(pattern);
      expect(existsSync(run.pidFile!), 'the upstream was started').toBe(false);
    });
  }

  it('R-9.4: a socket → exit 1, "is a socket", no upstream started', async ({ onTestFinished }) => {
    const dir = mkdtempSync(join(tmpdir(), 'harness-refuse-'));
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(join(dir, 'sock'), resolve));
    onTestFinished(async () => {
      await new Promise((resolve) => server.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    });
    const run = inProcessWithReportFile(onTestFinished, join(dir, 'sock'), 'socket');
    expect(await waitForExit(run.raw.child, 20_000)).toEqual({ code: 1, signal: null });
    expectClearStderr(run.stderr(), /report file must be a regular file: .*sock is a socket/);
    expect(existsSync(run.pidFile!)).toBe(false);
  });

  // Changed to pass: this used to print "upstream did not start: report file not writable …" — the
  // upstream was never started; the report file was the problem.
  it('R-9.3: a regular file that cannot be written (/proc/uptime) → exit 1, "report file could not be written", never "upstream did not start"', async ({
    onTestFinished,
  }) => {
    const dir = mkdtempSync(join(tmpdir(), 'harness-refuse-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const run = inProcessWithReportFile(onTestFinished, '/proc/uptime', 'proc');
    expect(await waitForExit(run.raw.child, 20_000)).toEqual({ code: 1, signal: null });
    expectClearStderr(
      run.stderr(),
      /^\[cuonztech-agent-harness\] error: the report file could not be written: report file not writable: \/proc\/uptime/,
    );
    expect(run.stderr()).not.toMatch(/upstream did not start/);
    expect(existsSync(run.pidFile!)).toBe(false);
  });
});

/** Handshake, then `count` writes named after the proxy, all answered. */
async function serveSession(raw: RawChild, name: string, count: number): Promise<void> {
  raw.send(INITIALIZE);
  await raw.next((m) => m['id'] === 0, 30_000);
  raw.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  for (let i = 1; i <= count; i++)
    raw.send({
      jsonrpc: '2.0',
      id: i,
      method: 'tools/call',
      params: { name: 'create_order', arguments: { item: `${name}-${i}` } },
    });
  for (let i = 1; i <= count; i++) await raw.next((m) => m['id'] === i, 30_000);
}
