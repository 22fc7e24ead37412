/**
 * Issue 16 with real processes: the compiled proxy between an SDK client and a real upstream that counts
 * what it executed (the booking server's ledger, the counting fixtures' ledger). Aimed faults, latency
 * repeated from a seed, F1's held answer against a client's own time-out, and cancellations.
 */
import { execa } from 'execa';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { endSession, withProxy } from './support/agents.js';
import { bookingsIn, connectHttpAgent, removeDir, startListeningProxy } from './support/http-harness.js';
import { BIN, BOOKING_SERVER, FIXTURES, textOf, type ProxyRun, type ReportFile } from './support/proxy-harness.js';

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
const NEVER_ANSWERS = ['--upstream-command', process.execPath, '--upstream-arg', `${FIXTURES}/never-answers.mjs`];

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

describe('issue 16: F1 with --hold against a real client time-out', () => {
  it("issue 16 / R-4 F1: a 2 s client time-out against --hold 5000 → the client's own time-out; the booking is in the ledger; careful agent → PASS", () =>
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
      expect(entry!.cancelledAfterMs).toBeGreaterThanOrEqual(1900);
      expect(entry!.cancelledAfterMs).toBeLessThan(4900);
      expect(entry!.heldMs).toBeLessThan(4900);
      expect(report.configuration).toEqual({ seed: null, latency: null, aim: { tools: null, on: 1 }, holdMs: 5000 });
    }));

  it('issue 16 / R-2: the same hold, an agent that re-sends after its own time-out → FAIL, a duplicate after a timeout (two bookings)', () =>
    withProxy({ extra: ['--scenario', 'F1', '--hold', '5000'] }, async (run) => {
      await callWith(run, 'create_booking', booking('Bo'), { timeout: 2000 }).catch(() => undefined);
      await run.call('create_booking', booking('Bo'));
      expect(run.ledger().filter((line) => line.tool === 'create_booking')).toHaveLength(2);
      const report = reportOf(await endSession(run));
      expect(report.verdict).toBe('FAIL');
      expect(report.violations).toMatchObject([
        { type: 'DUPLICATE_EXECUTION', tool: 'create_booking', duplicate: { afterTimeout: true } },
      ]);
    }));

  it('issue 16: without a client time-out the held timeout arrives after the hold and names it', () =>
    withProxy({ extra: ['--scenario', 'F1', '--hold', '1200'] }, async (run) => {
      const started = Date.now();
      const result = await run.call('create_booking', booking('Cy'));
      expect(Date.now() - started).toBeGreaterThanOrEqual(1150);
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('did not answer within 1.2 seconds');
      const report = reportOf(await endSession(run));
      expect(report.timing).toEqual([{ attempt: 1, tool: 'create_booking', heldMs: expect.any(Number), outcome: 'executed' }]);
      expect(report.timing![0]!.heldMs).toBeGreaterThanOrEqual(1150);
    }));
});

describe('issue 16: F1 with --hold over --listen (Streamable HTTP agent side)', () => {
  it('issue 16 / R-4 F1: an HTTP agent with a 2 s time-out against --hold 5000 → its own time-out; the hold ends with its cancel; the booking is in the ledger', async () => {
    const proxy = await startListeningProxy(
      ['--upstream-command', process.execPath, '--upstream-arg', BOOKING_SERVER],
      ['--scenario', 'F1', '--hold', '5000'],
    );
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
      expect(bookingsIn(proxy.ledgerFile, 'Http')).toHaveLength(1);
      const report = await proxy.waitForReport(agent.sessionId, (r) => (r.report as Report16).timing !== undefined);
      const [entry] = (report.report as Report16).timing!;
      expect(entry).toMatchObject({ tool: 'create_booking', outcome: 'executed' });
      expect(entry!.cancelledAfterMs).toBeGreaterThanOrEqual(1900);
      expect(entry!.cancelledAfterMs).toBeLessThan(4900);
      await agent.terminate();
    } finally {
      await proxy.proc.stop('SIGTERM', 10_000).catch(() => undefined);
      removeDir(proxy.dir);
    }
  });
});

describe('issue 16: cancellation', () => {
  it('issue 16: a client that cancels a forwarded call → the upstream gets notifications/cancelled, the report records it, outcome unknown', () =>
    withProxy({ flags: NEVER_ANSWERS }, async (run) => {
      const agent = new AbortController();
      const call = callWith(run, 'create_order', { item: 'x' }, { signal: agent.signal }).then(
        () => null,
        (e: unknown) => e,
      );
      await waitUntil(() => run.ledger().some((line) => line.received === true));
      agent.abort('the agent gave up');
      expect(await call).toBeTruthy();
      await waitUntil(() => run.ledger().some((line) => line.cancelled === true));
      const report = reportOf(await endSession(run));
      expect(report.operations).toMatchObject([{ tool: 'create_order', executions: 0, outcome: 'EXECUTION_UNKNOWN' }]);
      expect(report.timing).toEqual([
        { attempt: 1, tool: 'create_order', cancelledAfterMs: expect.any(Number), outcome: 'unknown' },
      ]);
    }));

  it('issue 16: a client that cancels during the hold → the report says cancelled after N ms; the ghost write counts as executed', () =>
    withProxy({ extra: ['--scenario', 'F1', '--hold', '20000'] }, async (run) => {
      const agent = new AbortController();
      const call = callWith(run, 'create_booking', booking('Di'), { signal: agent.signal }).then(
        () => null,
        (e: unknown) => e,
      );
      await waitUntil(() => run.ledger().some((line) => line.tool === 'create_booking'));
      await new Promise((resolve) => setTimeout(resolve, 300));
      agent.abort();
      await call;
      const report = reportOf(await endSession(run));
      expect(report.operations).toMatchObject([{ tool: 'create_booking', executions: 1, fault: 'F1' }]);
      const [entry] = report.timing!;
      expect(entry).toMatchObject({ tool: 'create_booking', outcome: 'executed' });
      expect(entry!.cancelledAfterMs).toBeGreaterThanOrEqual(250);
      expect(entry!.cancelledAfterMs).toBeLessThan(15_000);
    }));
});

describe('issue 16: aimed faults', () => {
  const tools = JSON.stringify([
    { name: 'create_draft', inputSchema: { type: 'object', properties: {} } },
    { name: 'pay_invoice', inputSchema: { type: 'object', properties: {} } },
  ]);

  it("issue 16: --fault-tool 'pay_*' in a flow create → pay: the fault on pay, create judged normally", () =>
    withProxy(
      { flags: COUNTING, extra: ['--scenario', 'F1', '--fault-tool', 'pay_*'], env: { FIXTURE_TOOLS: tools } },
      async (run) => {
        const draft = await run.call('create_draft', { invoice: 7 });
        expect(textOf(draft)).toBe('ok create_draft #1');
        const pay = await run.call('pay_invoice', { invoice: 7 });
        expect(pay.isError).toBe(true);
        expect(textOf(pay)).toContain('Request timed out');
        // The agent pays again: a duplicate payment, the ledger has two.
        await run.call('pay_invoice', { invoice: 7 });
        expect(run.ledger().filter((line) => line.tool === 'pay_invoice')).toHaveLength(2);
        const report = reportOf(await endSession(run));
        expect(report.operations.map((op) => [op.tool, op.fault ?? null, op.executions])).toEqual([
          ['create_draft', null, 1],
          ['pay_invoice', 'F1', 2],
        ]);
        expect(report.verdict).toBe('FAIL');
        expect(report.violations).toMatchObject([{ type: 'DUPLICATE_EXECUTION', tool: 'pay_invoice' }]);
        expect(report.configuration).toMatchObject({ aim: { tools: ['pay_*'], on: 1 } });
      },
    ));

  it('issue 16: --fault-on 2: the second write gets F5, the first and third go through (booking ledger)', () =>
    withProxy({ extra: ['--scenario', 'F5', '--fault-on', '2'] }, async (run) => {
      const results = [];
      for (const guest of ['A', 'B', 'C']) results.push(await run.call('create_booking', booking(guest)));
      expect(results.map((r) => r.isError === true)).toEqual([false, true, false]);
      expect(textOf(results[1]!)).toBe('HTTP 500 Internal Server Error');
      expect(run.ledger().map((line) => (line.arguments as { guest: string }).guest)).toEqual(['A', 'C']);
      const report = reportOf(await endSession(run));
      expect(report.operations.map((op) => op.fault ?? null)).toEqual([null, 'F5', null]);
    }));

  it('issue 16 / R-4.3: four parallel writes with --fault-on 2 → exactly one faulted', () =>
    withProxy({ extra: ['--scenario', 'F5', '--fault-on', '2'] }, async (run) => {
      const results = await Promise.all(['A', 'B', 'C', 'D'].map((guest) => run.call('create_booking', booking(guest))));
      expect(results.filter((r) => r.isError === true)).toHaveLength(1);
      expect(run.ledger()).toHaveLength(3);
      const report = reportOf(await endSession(run));
      expect(report.scenario.faultsApplied).toBe(1);
      expect(report.operations.filter((op) => op.fault === 'F5')).toHaveLength(1);
    }));
});

describe('issue 16: latency', () => {
  async function latencies(seed: string): Promise<{ timing: TimingEntry[]; report: Report16; stderr: string }> {
    return withProxy({ extra: ['--latency', '40:30', '--seed', seed] }, async (run) => {
      for (let n = 0; n < 4; n++) {
        await run.call('create_booking', booking(`G${n}`));
        await run.call('search_bookings', { guest: `G${n}` });
      }
      const stderr = run.stderr();
      const report = reportOf(await endSession(run));
      return { timing: report.timing!, report, stderr };
    });
  }

  it('issue 16: --latency 40:30 with the same --seed twice → identical per-attempt latencies, reads and writes; the seed is in the configuration block', async () => {
    const first = await latencies('1234');
    const second = await latencies('1234');
    expect(first.timing).toHaveLength(8);
    expect(first.timing.map((t) => t.tool)).toEqual(
      Array.from({ length: 4 }, () => ['create_booking', 'search_bookings']).flat(),
    );
    expect(second.timing.map((t) => t.latencyMs)).toEqual(first.timing.map((t) => t.latencyMs));
    for (const t of first.timing) {
      expect(t.latencyMs).toBeGreaterThanOrEqual(10);
      expect(t.latencyMs).toBeLessThanOrEqual(70);
    }
    expect(new Set(first.timing.map((t) => t.latencyMs)).size).toBeGreaterThan(1);
    expect(first.report.configuration).toEqual({
      seed: 1234,
      latency: { ms: 40, jitterMs: 30 },
      aim: { tools: null, on: 1 },
      holdMs: null,
    });
    expect(first.stderr).toContain('latency 40±30 ms, seed 1234');
    expect(first.report.operations.map((op) => op.executions)).toEqual([1, 1, 1, 1]);
  });

  it('issue 16: --latency with --mode chaos: the chaos draws and the latencies repeat from the seed', async () => {
    const run = () =>
      withProxy({ extra: ['--mode', 'chaos', '--error-rate', '0.5', '--latency', '20:15', '--seed', '99'] }, async (r) => {
        const errors: boolean[] = [];
        for (let n = 0; n < 6; n++) errors.push((await r.call('search_bookings', { guest: `G${n}` })).isError === true);
        const report = reportOf(await endSession(r));
        return { errors, latencies: report.timing!.map((t) => [t.attempt, t.latencyMs]) };
      });
    const [a, b] = [await run(), await run()];
    expect(b).toEqual(a);
    // Only forwarded calls get a latency: one entry per call that chaos let through.
    expect(a.latencies).toHaveLength(a.errors.filter((e) => !e).length);
  });
});

describe('issue 16: bad input', () => {
  for (const argv of [
    ['--hold', '5000'],
    ['--scenario', 'F1', '--hold', '-3'],
    ['--latency', '1.5'],
    ['--scenario', 'F2', '--fault-on', '0'],
  ]) {
    it(`issue 16: proxy ${argv.join(' ')} → one clear line, exit 1, no upstream started`, async () => {
      const result = await execa(
        process.execPath,
        [BIN, 'proxy', '--upstream-command', process.execPath, '--upstream-arg', `${FIXTURES}/counting-server.mjs`, ...argv],
        { reject: false, timeout: 20_000, stdin: 'ignore' },
      );
      expect(result.exitCode).toBe(1);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(/hold|latency|fault-on/);
    });
  }
});

async function waitUntil(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
