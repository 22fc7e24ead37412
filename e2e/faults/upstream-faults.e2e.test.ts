/**
 * An upstream that never answers (issue 6; ), through the compiled proxy in front of a real upstream
 * process: the limit is `--upstream-timeout` seconds, 60 by default. These two measure seconds on the
 * wall clock, so they stay here; every other upstream fault runs in-process in `test/faults-upstream.test.ts`
 * (the help text of the default is checked there too).
 */
import { describe, expect, it } from 'vitest';
import { waitFor } from '../fixtures/lib/raw-child.mjs';
import { rawText } from '../support/raw-proxy.js';
import { callTool, faultLab, nodeFixture, sendCall } from './fault-lab.js';
import { expectNothingLost } from './nothing-lost.js';

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
