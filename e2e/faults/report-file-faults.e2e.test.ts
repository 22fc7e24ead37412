/**
 * Report-file faults that need the compiled proxy as a process (issue 6, R-9.3, R-13): SIGKILL while
 * writing (the file still parses; temp files may remain), two proxy processes sharing one report file
 * while a reader in this process parses it at every moment, and one refused target (a folder) as a real
 * exit 1 with one line and no stack trace. Every other report-file fault runs in-process before the real
 * upstream in `test/faults-report-file.test.ts`.
 */
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as yieldLoop } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { executions, readLedger } from '../fixtures/lib/ledger.mjs';
import { INITIALIZE, spawnRaw, waitFor, waitForExit, type RawChild } from '../fixtures/lib/raw-child.mjs';
import { BIN } from '../support/proxy-harness.js';
import { COUNTING, faultLab, nodeWord, sendCall, shell } from './fault-lab.js';
import {
  expectClearStderr,
  expectLedgerAgrees,
  expectNothingLost,
  expectProcessesGone,
  readReport,
  tempFilesBeside,
  upstreamPids,
  type ProxyEvidence,
} from './nothing-lost.js';

/** A proxy started by hand with any `--report-file`, a pidfile-writing wrapper and its own ledger. */
function spawnWithReportFile(dir: string, reportFile: string, name: string): ProxyEvidence & { raw: RawChild } {
  const ledgerFile = join(dir, `ledger-${name}.jsonl`);
  const pidFile = join(dir, `pids-${name}`);
  const raw = spawnRaw(BIN, {
    args: [
      'proxy',
      ...shell(`echo $$ > "$FIXTURE_PIDFILE"; exec ${nodeWord('counting-server.mjs')}`),
      '--report-file',
      reportFile,
    ],
    env: { FIXTURE_LEDGER: ledgerFile, FIXTURE_PIDFILE: pidFile },
  });
  return { raw, child: raw.child, stderr: () => raw.stderr(), reportFile, ledgerFile, pidFile };
}

describe('SIGKILL while writing (a real process)', () => {
  it('R-9.3: SIGKILL while 300 writes run → the file still parses (atomic rename); temp files may remain (documented); the upstream ends at its stdin EOF', async ({
    onTestFinished,
  }) => {
    const p = await faultLab(onTestFinished).start(COUNTING);
    for (let i = 0; i < 300; i++) sendCall(p, 100 + i, 'create_order', { item: `k-${i}` });
    await waitFor(() => executions(p.ledger()).length >= 50, 15_000, '50 writes to execute');
    p.raw.child.kill('SIGKILL');
    expect(await waitForExit(p.raw.child, 10_000)).toEqual({ code: null, signal: 'SIGKILL' });
    const report = readReport(p.reportFile);
    expect(report.status).toBe('running');
    await expectProcessesGone(upstreamPids(p));
    const ran = executions(p.ledger()).length;
    const counted = report.report.operations.reduce((sum, op) => sum + op.executions, 0);
    expect(counted).toBeLessThanOrEqual(ran);
    // Left-over temp files are allowed only here: nothing can clean up after SIGKILL.
    expect(tempFilesBeside(p.reportFile).every((name) => /report\.json\.\d+\.[0-9a-f]{12}\.tmp$/.test(name))).toBe(true);
  });
});

describe('a target that is not a regular file, refused by the real process', () => {
  it('R-9.4: a folder → exit 1, one line, no stack trace, no upstream started, the target unchanged', async ({
    onTestFinished,
  }) => {
    const dir = mkdtempSync(join(tmpdir(), 'harness-refuse-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, 'folder');
    mkdirSync(path);
    const before = lstatSync(path);
    const run = spawnWithReportFile(dir, path, 'refused');
    expect(await waitForExit(run.raw.child, 20_000)).toEqual({ code: 1, signal: null });
    expect(lstatSync(path)).toMatchObject({ mode: before.mode, ino: before.ino, size: before.size });
    expectClearStderr(
      run.stderr(),
      /^\[cuonztech-agent-harness\] error: report file not usable: report file must be a regular file: .*is a folder/,
    );
    expect(run.stderr().trim().split('\n')).toHaveLength(1);
    expect(existsSync(run.pidFile!), 'the upstream was started').toBe(false);
  });
});

describe('two proxies, one report file (R-13: last writer wins)', () => {
  it('R-13/R-9.3: both serve at once (250 writes); a reader in another process always parses valid JSON; the end state is one complete report, consistent with its own ledger', async ({
    onTestFinished,
  }) => {
    const dir = mkdtempSync(join(tmpdir(), 'harness-two-'));
    const reportFile = join(dir, 'report.json');
    const runs = { A: spawnWithReportFile(dir, reportFile, 'A'), B: spawnWithReportFile(dir, reportFile, 'B') };
    onTestFinished(() => {
      for (const run of Object.values(runs)) if (run.child.exitCode === null) run.child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    });
    let reads = 0;
    let polling = true;
    const reader = (async () => {
      for (; polling; await yieldLoop())
        if (existsSync(reportFile)) {
          JSON.parse(readFileSync(reportFile, 'utf8'));
          reads++;
        }
    })();
    try {
      await Promise.all(Object.entries(runs).map(([name, run]) => serveSession(run.raw, name, name === 'A' ? 150 : 100)));
      for (const run of Object.values(runs)) run.raw.child.stdin.end();
      for (const run of Object.values(runs)) expect(await waitForExit(run.raw.child, 20_000)).toEqual({ code: 0, signal: null });
    } finally {
      polling = false;
      await reader;
    }
    expect(reads).toBeGreaterThan(20);
    const final = readReport(reportFile);
    const winner = final.report.operations.length === 150 ? runs.A : runs.B;
    expect(final.report.operations.length, 'the final file is one of the two reports').toBe(winner === runs.A ? 150 : 100);
    await expectNothingLost(winner, { end: 0, exact: true });
    for (const run of Object.values(runs)) {
      expectClearStderr(run.stderr());
      await expectProcessesGone(upstreamPids(run));
      expect(executions(readLedger(run.ledgerFile))).toHaveLength(run === runs.A ? 150 : 100);
    }
    expectLedgerAgrees(final, readLedger(winner.ledgerFile), { exact: true });
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
