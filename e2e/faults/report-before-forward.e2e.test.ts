/**
 * R-9.2.1: the report file is written before a call goes upstream, so a proxy killed while a write is at
 * the upstream leaves a file that shows the call in flight and never understates the risk. (The one
 * SIGKILL-while-in-flight test: `proxy-lifecycle`'s former twin is merged here, issue 12.)
 */
import { describe, expect, it } from 'vitest';
import { executions } from '../fixtures/lib/ledger.mjs';
import { waitFor, waitForExit } from '../fixtures/lib/raw-child.mjs';
import { rawText } from '../support/raw-proxy.js';
import { callTool, COUNTING, faultLab, sendCall } from './fault-lab.js';
import { expectProcessesGone, readReport, upstreamPids } from './nothing-lost.js';

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
