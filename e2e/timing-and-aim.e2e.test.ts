/**
 * Timing and aim with real processes: the compiled proxy between an SDK client and a real upstream that counts
 * what it executed (the booking server's ledger, the counting fixture's ledger), where only real processes
 * and the wall clock can show it: F1's held answer against a client's own time-out over stdio and over
 * --listen, a hold that runs out, and one bad-input check. Aimed faults, latency repeated from a seed,
 * re-sending after a time-out and cancellations run the CLI in-process against real upstream processes
 * in `test/integration/proxy/in-process.test.ts`; the steps with a manual clock in
 * `test/app/pipeline/call-pipeline-timing.test.ts`.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { endSession, withProxy } from '../test/support/agents.js';
import { bookingsIn, connectHttpAgent, removeDir, startListeningProxy } from '../test/support/http-harness.js';
import { BIN, FIXTURES, textOf, type ProxyRun, type ReportFile } from '../test/support/proxy-harness.js';

interface TimingEntry {
  attempt: number;
  tool: string;
  latencyMs?: number;
  heldMs?: number;
  cancelledAfterMs?: number;
  outcome: string;
}
type Report16 = Omit<ReportFile['report'], 'operations'> & {
  scenario: { triggered: boolean; faultsApplied: number };
  configuration?: {
    seed: number | null;
    latency: { ms: number; jitterMs: number } | null;
    aim: { tools: string[] | null; on: number };
    holdMs: number | null;
  };
  timing?: TimingEntry[];
  operations: Array<{ tool: string; executions: number; attempts: number; outcome: string; fault?: string; arguments: string }>;
};
const reportOf = (file: ReportFile) => file.report as Report16;

const booking = (guest: string) => ({ guest, date: '2026-11-03' });
const COUNTING = ['--upstream-command', process.execPath, '--upstream-arg', `${FIXTURES}/counting-server.mjs`];

/** A call with the agent's own request time-out or abort signal. */
function callWith(
  run: ProxyRun,
  name: string,
  args: Record<string, unknown>,
  options: { timeout?: number; signal?: AbortSignal },
) {
  return run.client.callTool({ name, arguments: args }, undefined, {
    timeout: options.timeout ?? 30_000,
    ...(options.signal ? { signal: options.signal } : {}),
  }) as Promise<CallToolResult>;
}

describe('F1 with --hold against a real client time-out', () => {
  it("/ R-4 F1: a 2 s client time-out against --hold 5000 → the client's own time-out; the booking is in the ledger; careful agent → PASS", () =>
    withProxy({ extra: ['--scenario', 'F1', '--hold', '5000'] }, async (run) => {
      const started = Date.now();
      const error = await callWith(run, 'create_booking', booking('Ada'), { timeout: 2000 }).then(
        () => null,
        (e: unknown) => e,
      );
      const waited = Date.now() - started;
      expect(error).toBeInstanceOf(McpError);
      expect((error as McpError).code).toBe(-32001);
      expect(waited).toBeGreaterThanOrEqual(1900);
      expect(waited).toBeLessThan(4900);
      // The ghost write happened upstream at once.
      expect(run.ledger().filter((line) => line.tool === 'create_booking')).toHaveLength(1);
      // The careful agent looks before it writes again, finds the booking and stops.
      const found = await run.call('search_bookings', { guest: 'Ada' });
      expect(textOf(found)).toContain('Ada');
      const report = reportOf(await endSession(run));
      expect(report.verdict).toBe('PASS');
      expect(report.operations).toMatchObject([{ tool: 'create_booking', executions: 1, fault: 'F1' }]);
      // The SDK client cancelled the request when its time-out ran out: the hold ended there.
      const [entry] = report.timing!;
      expect(entry).toMatchObject({ attempt: 1, tool: 'create_booking', outcome: 'executed' });
      // Counted from the call's arrival at the proxy, which on a busy machine comes a hundred ms or more after the
      // agent started its 2 s timer (1881 ms was seen): the agent's time-out, not an early cancel, and not the hold's end.
      expect(entry!.cancelledAfterMs).toBeGreaterThanOrEqual(1500);
      expect(entry!.cancelledAfterMs).toBeLessThan(4900);
      expect(entry!.heldMs).toBeLessThan(4900);
      expect(report.configuration).toEqual({ seed: null, latency: null, aim: { tools: null, on: 1 }, holdMs: 5000 });
    }));

  it('without a client time-out the held timeout arrives after the hold and names it', () =>
    withProxy({ flags: COUNTING, extra: ['--scenario', 'F1', '--hold', '1200'] }, async (run) => {
      const started = Date.now();
      const result = await run.call('create_order', { item: 'Cy' });
      expect(Date.now() - started).toBeGreaterThanOrEqual(1150);
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('did not answer within 1.2 seconds');
      expect(run.ledger().filter((line) => line.tool === 'create_order')).toHaveLength(1);
      const report = reportOf(await endSession(run));
      expect(report.timing).toEqual([{ attempt: 1, tool: 'create_order', heldMs: expect.any(Number), outcome: 'executed' }]);
      expect(report.timing![0]!.heldMs).toBeGreaterThanOrEqual(1150);
    }));
});

describe('F1 with --hold over --listen (Streamable HTTP agent side, the counting upstream)', () => {
  it('/ R-4 F1: an HTTP agent with a 2 s time-out against --hold 5000 → its own time-out; the hold ends with its cancel; the booking is in the ledger', async () => {
    const ledgerDir = mkdtempSync(join(tmpdir(), 'harness-timing-'));
    const ledger = join(ledgerDir, 'ledger.jsonl');
    const tools = JSON.stringify([{ name: 'create_booking', inputSchema: { type: 'object', properties: {} } }]);
    const proxy = await startListeningProxy(COUNTING, ['--scenario', 'F1', '--hold', '5000'], {
      FIXTURE_TOOLS: tools,
      FIXTURE_LEDGER: ledger,
    });
    try {
      const agent = await connectHttpAgent(proxy.url);
      const started = Date.now();
      const error = await agent.client
        .callTool({ name: 'create_booking', arguments: booking('Http') }, undefined, { timeout: 2000 })
        .then(
          () => null,
          (e: unknown) => e,
        );
      expect((error as McpError).code).toBe(-32001);
      expect(Date.now() - started).toBeLessThan(4900);
      expect(bookingsIn(ledger, 'Http')).toHaveLength(1);
      const report = await proxy.waitForReport(agent.sessionId, (r) => (r.report as Report16).timing !== undefined);
      const [entry] = (report.report as Report16).timing!;
      expect(entry).toMatchObject({ tool: 'create_booking', outcome: 'executed' });
      // Counted from the call's arrival at the proxy, which on a busy machine comes a hundred ms or more after the
      // agent started its 2 s timer (1881 ms was seen): the agent's time-out, not an early cancel, and not the hold's end.
      expect(entry!.cancelledAfterMs).toBeGreaterThanOrEqual(1500);
      expect(entry!.cancelledAfterMs).toBeLessThan(4900);
      await agent.terminate();
    } finally {
      await proxy.proc.stop('SIGTERM', 10_000).catch(() => undefined);
      removeDir(proxy.dir);
      removeDir(ledgerDir);
    }
  });
});

describe('bad input', () => {
  it('proxy --hold 5000 (no F1) → one clear line, exit 1, no stack trace', async () => {
    const result = await execa(
      process.execPath,
      [
        BIN,
        'proxy',
        '--upstream-command',
        process.execPath,
        '--upstream-arg',
        `${FIXTURES}/counting-server.mjs`,
        '--hold',
        '5000',
      ],
      { reject: false, timeout: 20_000, stdin: 'ignore' },
    );
    expect(result.exitCode).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/hold/);
    expect(result.stderr).not.toMatch(/^\s+at /m);
  });
});
