/**
 * The proxy as a process: what only the compiled CLI,
 * running as a real process in front of real upstream processes, can show. After each: nothing lost
 * (`faults/nothing-lost.ts`).
 * - SIGINT, SIGTERM and SIGHUP during a slow write, each through the process's own signal handlers;
 * - a client that stops reading (a real pipe's EPIPE);
 * - SIGKILL while a write is at the upstream: the file written before forwarding already shows it;
 * - an upstream that does not start: exit 1, exactly one line, no stack trace, a start-up report;
 * - an upstream that never answers: `--upstream-timeout` and its 60 s default, on the wall clock;
 * - a SIGKILLed proxy leaves no upstream behind: the reaper
 *   (src/adapters/processes/reaper.ts) reads a pipe only the proxy writes to; the kernel closes it
 *   when the proxy dies, and the reaper ends the upstream's process group (grace, SIGTERM, grace,
 *   SIGKILL). Checked by pid. (A proxy that stops normally disarms it: `test/integration/proxy/lifecycle-in-process.test.ts`);
 * - the report file: SIGKILL while writing (the file still parses; temp files may remain), two proxy
 *   processes sharing one file while a reader parses it at every moment (the second one warns, issue 41
 *   §12), a refused target as a real exit;
 * - two proxies on one journal (issue 41 §12): the second refused before it starts anything; the lock
 *   removed at a normal end and at SIGTERM, a SIGKILLed proxy's taken over;
 * - thousands of parallel distinct writes under a heap cap: memory linear in the writes in
 *   flight, answers flowing while another write is at the upstream, the report equal to the ledger.
 * Everything else of the proxy's life and of the adversarial suite runs in-process (`main(argv, io)`)
 * before real upstream processes in `test/integration/proxy/lifecycle-in-process.test.ts` and `test/integration/proxy/faults-in-process.test.ts`.
 */
import { describe, expect, it } from 'vitest';
import { executions, readLedger } from './fixtures/lib/ledger.mjs';
import { isAlive, type RawChild, spawnRaw, waitFor, waitForExit } from './fixtures/lib/raw-child.mjs';
import { pidsFromFile, type RawProxy, rawText } from '../test/support/raw-proxy.js';
import {
  callTool,
  COUNTING,
  faultLab,
  type FaultLab,
  messagesMatching,
  nodeFixture,
  nodeWord,
  sendCall,
  serveSession,
  shell,
} from './faults/fault-lab.js';
import {
  expectClearStderr,
  expectLedgerAgrees,
  expectNothingLost,
  expectProcessesGone,
  type ProxyEvidence,
  reapersOf,
  readReport,
  type ReportOperation,
  tempFilesBeside,
  upstreamPids,
} from './faults/nothing-lost.js';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, FIXTURES } from '../test/support/proxy-harness.js';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';

type RawProxyRun = ProxyEvidence & { raw: RawChild };
const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// --- signals, EPIPE, SIGKILL, start-up failure, time-outs
describe.concurrent('signals, EPIPE, SIGKILL, start-up failure, time-outs', () => {
  const operations = (report: { report: { operations: unknown[] } }) => report.report.operations as ReportOperation[];

  // Each test owns its processes (faultLab), so all run concurrently; most of the time is waiting.
  describe.concurrent('the compiled proxy as a process', () => {
    describe.concurrent('the agent stops reading', () => {
      it('R-8.8: a client that stops reading (EPIPE) with 50 calls queued → exit 0, "stopped reading", every execution accounted for', async ({
        onTestFinished,
      }) => {
        const p = await faultLab(onTestFinished).start(COUNTING);
        expect(rawText(await callTool(p, 'create_order', { item: 'first' }))).toBe('ok create_order #1');
        p.raw.child.stdout.destroy();
        for (let i = 0; i < 50; i++) sendCall(p, 100 + i, 'create_order', { item: `q-${i}`, hugeAnswerBytes: 20_000 });
        const report = await expectNothingLost(p, { end: 0, message: /stopped reading/ });
        expect(operations(report).length).toBeGreaterThanOrEqual(1);
      });
    });

    describe.concurrent('signals during a call', () => {
      for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
        it(`R-8.8: ${signal} during a slow write → exit 0, "stopped: received ${signal}", the write EXECUTION_UNKNOWN, upstream gone`, async ({
          onTestFinished,
        }) => {
          const p = await faultLab(onTestFinished).start(COUNTING);
          expect(rawText(await callTool(p, 'create_order', { item: 'before' }))).toBe('ok create_order #1');
          sendCall(p, 9, 'create_order', { item: 'slow', sleepMs: 8000 });
          await waitFor(() => executions(p.ledger()).length === 2, 10_000, 'the slow write to execute');
          p.raw.child.kill(signal);
          const report = await expectNothingLost(p, { end: 0, message: new RegExp(`stopped: received ${signal}`) });
          expect(operations(report).map((op) => op.outcome)).toEqual(['EXECUTED', 'EXECUTION_UNKNOWN']);
        });
      }
    });

    describe('R-9.2.1: the report is written before the call is forwarded', () => {
      it('R-9.2.1: SIGKILL while a write is at the upstream → the file already shows it: NOT_TESTED, the earlier write EXECUTED, this one EXECUTION_UNKNOWN, 1 in flight', async ({
        onTestFinished,
      }) => {
        const lab = faultLab(onTestFinished);
        const p = await lab.start(COUNTING);
        expect(readReport(p.reportFile).report.operations).toEqual([]);
        expect(rawText(await callTool(p, 'create_order', { item: 'tea' }))).toBe('ok create_order #1');
        expect(readReport(p.reportFile).verdict).toBe('PASS');
        // The upstream executes at once and answers after 4 s; no other call is made, so nothing else can
        // have written the file between the forward and the kill: without the write before forwarding it
        // would still say PASS.
        sendCall(p, 7, 'create_order', { item: 'pen', sleepMs: 4000 });
        await waitFor(() => executions(p.ledger()).length === 2, 15_000, 'the write to execute upstream');
        lab.watch(upstreamPids(p));
        p.raw.child.kill('SIGKILL');
        expect(await waitForExit(p.raw.child, 10_000)).toEqual({ code: null, signal: 'SIGKILL' });
        const report = readReport(p.reportFile);
        expect(report).toMatchObject({ verdict: 'NOT_TESTED', status: 'running' });
        expect(report.report.verdictReason).toContain('still in flight');
        expect(report.report.coverage['inFlight']).toBe(1);
        expect(report.report.operations).toEqual([
          expect.objectContaining({ tool: 'create_order', arguments: expect.stringContaining('tea'), outcome: 'EXECUTED' }),
          expect.objectContaining({
            tool: 'create_order',
            arguments: expect.stringContaining('pen'),
            attempts: 1,
            outcome: 'EXECUTION_UNKNOWN',
          }),
        ]);
        expect(report.score.overall).toBeNull();
        await expectProcessesGone(upstreamPids(p));
      });
    });

    describe('R-8.9 / R-9.1: an upstream that does not start', () => {
      it('R-8.9: crash-before-init.mjs (exit 1 with a reason) → the process exits 1 with one line and no stack trace; report NOT_TESTED with startupError', async ({
        onTestFinished,
      }) => {
        const p = faultLab(onTestFinished).launch(nodeFixture('crash-before-init.mjs'));
        expect(await waitForExit(p.raw.child, 30_000)).toEqual({ code: 1, signal: null });
        expect(p.raw.stderr()).not.toMatch(/^\s+at /m);
        const lines = p.raw
          .stderr()
          .split('\n')
          .filter((l) => l !== '');
        expect(lines, p.raw.stderr()).toHaveLength(1);
        expect(lines[0]).toMatch(/^\[cuonztech-agent-harness\] error: upstream did not start: .*cannot open database/);
        expect(p.report()).toMatchObject({
          verdict: 'NOT_TESTED',
          status: 'failed',
          certification: 'UNVERIFIED_FOR_PRODUCTION',
          startupError: expect.stringMatching(/cannot open database/),
        });
      });
    });

    describe.concurrent('an upstream that never answers', () => {
      it('R-8.7: --upstream-timeout 1 → the write is answered "did not answer within 1 seconds" after about 1 s, EXECUTION_UNKNOWN, the proxy keeps serving', async ({
        onTestFinished,
      }) => {
        const p = await faultLab(onTestFinished).start([...nodeFixture('never-answers.mjs'), '--upstream-timeout', '1']);
        const started = Date.now();
        const result = await callTool(p, 'create_order', { item: 'pen' });
        const waitedMs = Date.now() - started;
        expect(rawText(result)).toMatch(/did not answer within 1 seconds/);
        expect(waitedMs).toBeGreaterThanOrEqual(900);
        expect(waitedMs).toBeLessThan(10_000);
        expect(rawText(await callTool(p, 'cuonztech__get_report', { format: 'json' }))).toMatch(/EXECUTION_UNKNOWN/);
        p.raw.child.stdin.end();
        const report = await expectNothingLost(p, { end: 0 });
        expect(report.report.operations).toEqual([expect.objectContaining({ executions: 0, outcome: 'EXECUTION_UNKNOWN' })]);
        expect(p.ledger().filter((e) => e.received === true)).toHaveLength(1);
      });

      it('R-8.7: without --upstream-timeout the limit stays 60 s: a silent call is still open after 3 s', async ({
        onTestFinished,
      }) => {
        const p = await faultLab(onTestFinished).start(nodeFixture('never-answers.mjs'));
        sendCall(p, 7, 'create_order', { item: 'pen' });
        await waitFor(() => p.ledger().length === 1, 10_000, 'the call to reach the upstream');
        await expect(p.response(7, 3000)).rejects.toThrow(/timed out after 3000 ms/);
        p.raw.child.stdin.end();
        const report = await expectNothingLost(p, { end: 0 });
        expect(report.report.operations).toEqual([expect.objectContaining({ outcome: 'EXECUTION_UNKNOWN' })]);
      });
    });
  });
});

// --- the reaper
describe.concurrent('the reaper', () => {
  const node = (name: string): string[] => ['--upstream-command', process.execPath, '--upstream-arg', join(FIXTURES, name)];
  /** The reaper's grace is 2 s per step (SIGTERM after 2 s, SIGKILL 2 s later): 4 s, plus a margin for a busy machine. */
  const REAPED_WITHIN_MS = 10_000;

  /** Starts a proxy owned by the test's lab (ended, with every watched pid, when the test finishes). */
  async function start(lab: FaultLab, flags: string[]): Promise<RawProxy> {
    const proxy = lab.launch(flags, { env: { FIXTURE_MAX_LIFE_MS: '60000' } });
    await proxy.initialize();
    return proxy;
  }

  /** The pids of the upstream's pidfile, watched by the lab. */
  async function pidfilePids(lab: FaultLab, p: RawProxy, count: number): Promise<number[]> {
    const pids = await pidsFromFile(p, count, new Set());
    lab.watch(pids);
    return pids;
  }

  /** SIGKILLs the proxy: `orphan` outlives it (stdin EOF does not end it), then every pid is gone in time. */
  async function killProxyAndExpectReaped(p: RawProxy, pids: number[], orphan: number, pgid: number): Promise<void> {
    expect(pids.every(isAlive)).toBe(true);
    expect(reapersOf(pgid)).toHaveLength(process.platform === 'linux' ? 1 : 0);
    p.raw.child.kill('SIGKILL');
    expect(await waitForExit(p.raw.child, 5000)).toEqual({ code: null, signal: 'SIGKILL' });
    expect(isAlive(orphan)).toBe(true);
    await waitFor(() => pids.every((pid) => !isAlive(pid)), REAPED_WITHIN_MS, `processes ${pids.join(', ')} to be reaped`);
    await waitFor(() => reapersOf(pgid).length === 0, 5000, 'the reaper to exit');
  }

  describe.concurrent('R-8.8: a SIGKILLed proxy leaves no upstream behind', () => {
    it.skipIf(process.platform === 'win32')(
      'R-8.8: an upstream that ignores stdin EOF outlives the proxy only until the reaper ends it, within seconds',
      async ({ onTestFinished }) => {
        const lab = faultLab(onTestFinished);
        const p = await start(lab, node('ignores-sigterm.mjs'));
        const [pid] = await pidfilePids(lab, p, 1);
        await killProxyAndExpectReaped(p, [pid!], pid!, pid!);
      },
    );

    it.skipIf(process.platform === 'win32')(
      'R-8.8: the SIGTERM-proof grandchild of an upstream that exits on EOF is reaped with its process group',
      async ({ onTestFinished }) => {
        const lab = faultLab(onTestFinished);
        const p = await start(lab, node('spawns-child.mjs'));
        const [server, grandchild] = await pidfilePids(lab, p, 2);
        await killProxyAndExpectReaped(p, [server!, grandchild!], grandchild!, server!);
      },
    );
  });
});

// --- the report file under real processes
describe.concurrent('the report file under real processes', () => {
  /** A proxy started by hand with any `--report-file`, a pidfile-writing wrapper and its own ledger. */
  function spawnWithReportFile(
    dir: string,
    reportFile: string,
    name: string,
    extra: readonly string[] = [],
  ): ProxyEvidence & { raw: RawChild } {
    const ledgerFile = join(dir, `ledger-${name}.jsonl`);
    const pidFile = join(dir, `pids-${name}`);
    const raw = spawnRaw(BIN, {
      args: [
        'proxy',
        ...shell(`echo $$ > "$FIXTURE_PIDFILE"; exec ${nodeWord('counting-server.mjs')}`),
        '--report-file',
        reportFile,
        ...extra,
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
    it("R-13/R-9.3, issue 41 §12: both serve at once (250 writes); the one that came second warns once, naming the file and the first one's pid; a reader in another process always parses valid JSON; the end state is one complete report, consistent with its own ledger; the lock is gone", async ({
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
      // Reads every millisecond or so (a busy loop would take a core for the whole test:).
      const reader = (async () => {
        for (; polling; await sleep(1))
          if (existsSync(reportFile)) {
            JSON.parse(readFileSync(reportFile, 'utf8'));
            reads++;
          }
      })();
      try {
        await Promise.all(Object.entries(runs).map(([name, run]) => serveSession(run.raw, name, name === 'A' ? 150 : 100)));
        for (const run of Object.values(runs)) run.raw.child.stdin.end();
        for (const run of Object.values(runs))
          expect(await waitForExit(run.raw.child, 20_000)).toEqual({ code: 0, signal: null });
      } finally {
        polling = false;
        await reader;
      }
      expect(reads).toBeGreaterThan(20);
      // Exactly one of the two found the other holding the report file's lock, and said so in one line.
      const warning = (run: RawProxyRun) =>
        run
          .stderr()
          .split('\n')
          .filter((line) => line.includes('WARNING: report file'));
      const warned = Object.values(runs).filter((run) => warning(run).length > 0);
      expect(warned, 'the proxy that came second warns').toHaveLength(1);
      const first = warned[0] === runs.A ? runs.B : runs.A;
      expect(warning(warned[0]!)).toEqual([
        expect.stringMatching(
          new RegExp(
            `^\\[cuonztech-agent-harness\\] WARNING: report file ${escapeRegExp(realpathSync(reportFile))} is also written by another proxy running now \\(pid ${first.child.pid} on [^)]*\\): the last writer wins`,
          ),
        ),
      ]);
      expect(existsSync(`${realpathSync(reportFile)}.lock`), 'the lock is removed at the end').toBe(false);
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

  describe('two proxies, one journal (issue 41 §12)', () => {
    it("a second proxy given the journal a live proxy writes exits 1 with one line naming it and the first one's pid, before its upstream starts, the journal untouched; the lock goes at a normal end and at SIGTERM; one a SIGKILLed proxy left is taken over, saying so", async ({
      onTestFinished,
    }) => {
      const dir = mkdtempSync(join(tmpdir(), 'harness-journal-'));
      const journal = join(realpathSync(dir), 'journal.jsonl');
      const lock = `${journal}.lock`;
      const spawned: RawChild[] = [];
      onTestFinished(() => {
        for (const raw of spawned) if (raw.child.exitCode === null && raw.child.signalCode === null) raw.child.kill('SIGKILL');
        rmSync(dir, { recursive: true, force: true });
      });
      const start = (name: string) => {
        const run = spawnWithReportFile(dir, join(dir, `report-${name}.json`), name, ['--journal', journal]);
        spawned.push(run.raw);
        return run;
      };
      const call = async (raw: RawChild, id: number) => {
        raw.send({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'create_order', arguments: { item: `late-${id}` } },
        });
        await raw.next((m) => m['id'] === id, 30_000);
      };

      const a = start('A');
      await serveSession(a.raw, 'A', 2);
      expect(JSON.parse(readFileSync(lock, 'utf8'))).toMatchObject({ pid: a.child.pid });
      const before = readFileSync(journal, 'utf8');
      const b = start('B');
      expect(await waitForExit(b.raw.child, 20_000)).toEqual({ code: 1, signal: null });
      expect(
        b
          .stderr()
          .split('\n')
          .filter((line) => line !== ''),
      ).toEqual([
        expect.stringMatching(
          new RegExp(
            `^\\[cuonztech-agent-harness\\] error: journal ${escapeRegExp(journal)} is in use by another proxy running now \\(pid ${a.child.pid} on [^,]+, started [0-9T:.Z-]+; its lock ${escapeRegExp(lock)}\\): give this proxy its own --journal$`,
          ),
        ),
      ]);
      expect(existsSync(b.pidFile!), "the second proxy's upstream was started").toBe(false);
      expect(existsSync(b.reportFile), 'the second proxy wrote a report').toBe(false);
      expect(readFileSync(journal, 'utf8'), 'the journal was touched').toBe(before);
      // The first one goes on writing its journal, then ends normally: its lock goes with it.
      await call(a.raw, 3);
      a.raw.child.stdin.end();
      expect(await waitForExit(a.raw.child, 20_000)).toEqual({ code: 0, signal: null });
      expectClearStderr(a.stderr());
      expect(executions(readLedger(a.ledgerFile))).toHaveLength(3);
      const lines = readFileSync(journal, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { event: string });
      expect(lines.filter((line) => line.event === 'journal')).toHaveLength(1);
      expect(lines.filter((line) => line.event === 'delivered')).toHaveLength(3);
      expect(existsSync(lock), 'the lock after a normal end').toBe(false);

      // SIGTERM: the proxy stops and removes its lock.
      const c = start('C');
      await serveSession(c.raw, 'C', 1);
      expect(existsSync(lock)).toBe(true);
      c.raw.child.kill('SIGTERM');
      expect(await waitForExit(c.raw.child, 20_000)).toEqual({ code: 0, signal: null });
      expect(existsSync(lock), 'the lock after SIGTERM').toBe(false);

      // SIGKILL leaves the lock behind; the next proxy finds its pid gone and takes it over.
      const d = start('D');
      await serveSession(d.raw, 'D', 1);
      d.raw.child.kill('SIGKILL');
      expect(await waitForExit(d.raw.child, 10_000)).toEqual({ code: null, signal: 'SIGKILL' });
      expect(JSON.parse(readFileSync(lock, 'utf8'))).toMatchObject({ pid: d.child.pid });
      await expectProcessesGone(upstreamPids(d));
      const e = start('E');
      await serveSession(e.raw, 'E', 1);
      expect(e.stderr()).toContain(
        `journal ${journal}: took over the lock of a proxy that is no longer running (pid ${d.child.pid} on `,
      );
      expect(JSON.parse(readFileSync(lock, 'utf8'))).toMatchObject({ pid: e.child.pid });
      e.raw.child.stdin.end();
      expect(await waitForExit(e.raw.child, 20_000)).toEqual({ code: 0, signal: null });
      expect(existsSync(lock)).toBe(false);
    }, 120_000);
  });
});

// --- parallel distinct writes under a heap cap
// The uncertain tracker once kept a list per write of every later one (4000 parallel writes took 693 MB).
// 2500 writes under a 128 MB heap (half the CPU of 5000 under 256 MB): by the figures
// (1000 → 131 MB, 4000 → 693 MB peak RSS, growing with the square) the quadratic tracker would take
// ~330 MB for 2500, ~230 MB of it above the baseline.
describe.concurrent('memory', () => {
  const WRITES = 2500;
  const SLOW_ID = 1;
  const FIRST_ID = 10;

  describe('parallel distinct writes under a heap cap', () => {
    it(`R-13/R-9.2.1: ${WRITES} parallel distinct writes with --max-old-space-size=128: no crash, answers flow while a write is in flight, the report equals the ledger`, async ({
      onTestFinished,
    }) => {
      const lab = faultLab(onTestFinished);
      const p = await lab.start(COUNTING, { env: { NODE_OPTIONS: '--max-old-space-size=128' } });
      const line = (id: number, args: unknown) =>
        JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'create_order', arguments: args } });
      // One slow write first, then the rest in one burst: every other answer must come while it is at the upstream.
      const lines = [line(SLOW_ID, { item: 'slow', sleepMs: 60_000 })];
      for (let i = 0; i < WRITES - 1; i++) lines.push(line(FIRST_ID + i, { item: `item-${i}`, note: 'parallel' }));
      p.raw.send(lines.join('\n'));
      const answers = await messagesMatching(
        p,
        (m) => typeof m['id'] === 'number' && m['id'] >= FIRST_ID,
        WRITES - 1,
        120_000,
        0,
      );
      expect(answers).toHaveLength(WRITES - 1);
      expect(answers.every((m) => 'result' in m)).toBe(true);
      expect(p.raw.child.exitCode).toBeNull();
      await waitFor(() => executions(p.ledger(), 'create_order').length === WRITES, 10_000, 'every write in the ledger');
      p.raw.child.stdin.end();
      const report = await expectNothingLost(p, { end: 0, exitTimeoutMs: 30_000 });
      const ops = report.report.operations as unknown as Array<{ arguments: string; executions: number; outcome: string }>;
      expect(ops).toHaveLength(WRITES);
      expect(ops.filter((op) => op.outcome === 'EXECUTION_UNKNOWN').map((op) => op.arguments)).toEqual([
        expect.stringContaining('slow'),
      ]);
      expect(ops.reduce((sum, op) => sum + op.executions, 0)).toBe(WRITES - 1);
    }, 180_000);
  });
});
