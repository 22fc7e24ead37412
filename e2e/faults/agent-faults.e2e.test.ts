/**
 * Agent-side faults that need the compiled proxy as a real process (issue 6): a client that stops reading
 * (a real pipe's EPIPE) and SIGINT/SIGTERM/SIGHUP during a slow write, each signal through the process's
 * own handlers. After each: nothing lost (nothing-lost.ts). The faults a stdin stream can carry
 * (malformed lines, unknown methods, odd ids, 10 MB, disconnects, 500 parallel calls) run in-process in
 * `test/faults-agent.test.ts`.
 */
import { describe, expect, it } from 'vitest';
import { executions } from '../fixtures/lib/ledger.mjs';
import { waitFor } from '../fixtures/lib/raw-child.mjs';
import { rawText } from '../support/raw-proxy.js';
import { callTool, COUNTING, faultLab, sendCall } from './fault-lab.js';
import { expectNothingLost, type ReportOperation } from './nothing-lost.js';

const operations = (report: { report: { operations: unknown[] } }) => report.report.operations as ReportOperation[];

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
