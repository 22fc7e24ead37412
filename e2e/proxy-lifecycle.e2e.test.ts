/**
 * The proxy as a process: what only the compiled CLI running as a real
 * process in front of a real upstream process can show. After each: nothing lost (faults/nothing-lost.ts).
 * - SIGINT, SIGTERM and SIGHUP during a slow write, each through the process's own signal handlers;
 * - a client that stops reading (a real pipe's EPIPE) with 200 calls queued;
 * - SIGKILL while a write is at the upstream: the file written before forwarding already shows it;
 * - an upstream that does not start: exit 1, exactly one line, no stack trace, a start-up report;
 * - an upstream that never answers: `--upstream-timeout` and its 60 s default, measured on the wall clock.
 * The rest of the proxy's life and of the adversarial suite runs in-process (`main(argv, io)`) before real
 * upstream processes in `test/lifecycle-proxy.test.ts` and `test/faults-*.test.ts`; SIGKILL while writing
 * and two proxies on one report file are in `faults/report-file-faults.e2e.test.ts`, the reaper in
 * `proxy-orphan.e2e.test.ts`.
 */
import { describe, expect, it } from 'vitest';
import { executions } from './fixtures/lib/ledger.mjs';
import { waitFor, waitForExit } from './fixtures/lib/raw-child.mjs';
import { rawText } from './support/raw-proxy.js';
import { callTool, COUNTING, faultLab, nodeFixture, sendCall } from './faults/fault-lab.js';
import { expectNothingLost, expectProcessesGone, readReport, upstreamPids, type ReportOperation } from './faults/nothing-lost.js';

const operations = (report: { report: { operations: unknown[] } }) => report.report.operations as ReportOperation[];

// One suite, all concurrent: each test owns its processes (faultLab), and most of the time is waiting.
describe.concurrent('the compiled proxy as a process', () => {
  describe.concurrent('the agent stops reading', () => {
    it('R-8.8: a client that stops reading (EPIPE) with 200 calls queued → exit 0, "stopped reading", every execution accounted for', async ({
      onTestFinished,
    }) => {
      const p = await faultLab(onTestFinished).start(COUNTING);
      expect(rawText(await callTool(p, 'create_order', { item: 'first' }))).toBe('ok create_order #1');
      p.raw.child.stdout.destroy();
      for (let i = 0; i < 200; i++) sendCall(p, 100 + i, 'create_order', { item: `q-${i}`, hugeAnswerBytes: 20_000 });
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
