/**
 * Issue 16 through the CLI in-process (`proxy` flags → session → report file), in front of real upstream
 * processes that count what they executed (the raw counting fixtures' ledger): aimed faults, latency
 * repeated from a seed, an agent that re-sends after its own time-out, and cancellations. The wall-clock
 * sides (a real client time-out against a real hold, over stdio and over HTTP) stay in
 * `e2e/timing-and-aim.e2e.test.ts`; the step-by-step timing is proven with a manual clock in
 * `test/app/call-pipeline-timing.test.ts`.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { COUNTING, FIXTURES, runCli, textOf, waitUntil, withCliProxy, type CliProxy } from '../support/h4-in-process-cli.js';

interface TimingEntry {
  attempt: number;
  tool: string;
  latencyMs?: number;
  heldMs?: number;
  cancelledAfterMs?: number;
  outcome: string;
}
interface Report16 {
  verdict: string;
  scenario: { triggered: boolean; faultsApplied: number };
  configuration?: {
    seed: number | null;
    latency: { ms: number; jitterMs: number } | null;
    aim: { tools: string[] | null; on: number };
    holdMs: number | null;
  };
  timing?: TimingEntry[];
  violations: Array<{ type: string; tool: string; duplicate?: Record<string, unknown> }>;
  operations: Array<{ tool: string; executions: number; attempts: number; outcome: string; fault?: string }>;
}

/** Ends the session and answers the final report. */
async function endSession(run: CliProxy): Promise<Report16> {
  expect(await run.stop()).toBe(0);
  return run.report()['report'] as Report16;
}

/** The counting upstream with a booking server's two tools (a write and a read, classified by name). */
const tools = (names: string[]) =>
  JSON.stringify(names.map((name) => ({ name, inputSchema: { type: 'object', properties: { guest: { type: 'string' } } } })));
const BOOKING = [...COUNTING, '--upstream-env-var', `FIXTURE_TOOLS=${tools(['create_booking', 'search_bookings'])}`];
const NEVER_ANSWERS = ['--upstream-command', process.execPath, '--upstream-arg', `${FIXTURES}/never-answers.mjs`];
const booking = (guest: string) => ({ guest, date: '2026-11-03' });
const creates = (run: CliProxy) => run.ledger().filter((line) => line.tool === 'create_booking');

describe('issue 16: F1 with --hold and the agent (in-process CLI)', () => {
  it("issue 16 / R-2: an agent that re-sends after its own time-out during --hold 5000 → FAIL, a duplicate after a timeout (two executions in the upstream's ledger)", () =>
    withCliProxy([...BOOKING, '--scenario', 'F1', '--hold', '5000'], async (run) => {
      const error = await run.call('create_booking', booking('Bo'), { timeout: 300 }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(McpError);
      expect((error as McpError).code).toBe(-32001);
      await run.call('create_booking', booking('Bo'));
      expect(creates(run)).toHaveLength(2);
      const report = await endSession(run);
      expect(report.verdict).toBe('FAIL');
      expect(report.violations).toMatchObject([
        { type: 'DUPLICATE_EXECUTION', tool: 'create_booking', duplicate: { afterTimeout: true } },
      ]);
      expect(report.timing![0]).toMatchObject({ attempt: 1, tool: 'create_booking', outcome: 'executed' });
      expect(report.timing![0]!.cancelledAfterMs).toEqual(expect.any(Number));
    }));
});

describe('issue 16: cancellation (in-process CLI)', () => {
  it('issue 16: a client that cancels a forwarded call → the upstream gets notifications/cancelled, the report records it, outcome unknown', () =>
    withCliProxy(NEVER_ANSWERS, async (run) => {
      const agent = new AbortController();
      const call = run.call('create_order', { item: 'x' }, { signal: agent.signal }).then(
        () => null,
        (e: unknown) => e,
      );
      await waitUntil(() => run.ledger().some((line) => line.received === true));
      agent.abort('the agent gave up');
      expect(await call).toBeTruthy();
      await waitUntil(() => run.ledger().some((line) => line.cancelled === true));
      const report = await endSession(run);
      expect(report.operations).toMatchObject([{ tool: 'create_order', executions: 0, outcome: 'EXECUTION_UNKNOWN' }]);
      expect(report.timing).toEqual([
        { attempt: 1, tool: 'create_order', cancelledAfterMs: expect.any(Number), outcome: 'unknown' },
      ]);
    }));

  it('issue 16: a client that cancels during the hold → the report says cancelled after N ms (the hold ended there); the ghost write counts as executed', () =>
    withCliProxy([...BOOKING, '--scenario', 'F1', '--hold', '20000'], async (run) => {
      const agent = new AbortController();
      const call = run.call('create_booking', booking('Di'), { signal: agent.signal }).then(
        () => null,
        (e: unknown) => e,
      );
      await waitUntil(() => creates(run).length === 1);
      agent.abort();
      expect(await call).toBeTruthy();
      const report = await endSession(run);
      expect(report.operations).toMatchObject([{ tool: 'create_booking', executions: 1, fault: 'F1' }]);
      const [entry] = report.timing!;
      expect(entry).toMatchObject({ tool: 'create_booking', outcome: 'executed' });
      expect(entry!.cancelledAfterMs).toEqual(expect.any(Number));
      expect(entry!.cancelledAfterMs).toBeLessThan(20_000);
    }));
});

describe('issue 16: aimed faults (in-process CLI)', () => {
  it("issue 16: --fault-tool 'pay_*' in a flow create → pay: the fault on pay, create judged normally", () =>
    withCliProxy(
      [
        ...COUNTING,
        '--upstream-env-var',
        `FIXTURE_TOOLS=${tools(['create_draft', 'pay_invoice'])}`,
        '--scenario',
        'F1',
        '--fault-tool',
        'pay_*',
      ],
      async (run) => {
        const draft = await run.call('create_draft', { invoice: 7 });
        expect(textOf(draft)).toBe('ok create_draft #1');
        const pay = await run.call('pay_invoice', { invoice: 7 });
        expect(pay.isError).toBe(true);
        expect(textOf(pay)).toContain('Request timed out');
        // The agent pays again: a duplicate payment, the ledger has two.
        await run.call('pay_invoice', { invoice: 7 });
        expect(run.ledger().filter((line) => line.tool === 'pay_invoice')).toHaveLength(2);
        const report = await endSession(run);
        expect(report.operations.map((op) => [op.tool, op.fault ?? null, op.executions])).toEqual([
          ['create_draft', null, 1],
          ['pay_invoice', 'F1', 2],
        ]);
        expect(report.verdict).toBe('FAIL');
        expect(report.violations).toMatchObject([{ type: 'DUPLICATE_EXECUTION', tool: 'pay_invoice' }]);
        expect(report.configuration).toMatchObject({ aim: { tools: ['pay_*'], on: 1 } });
      },
    ));

  it('issue 16: --fault-on 2: the second write gets F5, the first and third go through (the ledger has A and C)', () =>
    withCliProxy([...BOOKING, '--scenario', 'F5', '--fault-on', '2'], async (run) => {
      const results = [];
      for (const guest of ['A', 'B', 'C']) results.push(await run.call('create_booking', booking(guest)));
      expect(results.map((r) => r.isError === true)).toEqual([false, true, false]);
      expect(textOf(results[1]!)).toBe('HTTP 500 Internal Server Error');
      expect(creates(run).map((line) => (line.arguments as { guest: string }).guest)).toEqual(['A', 'C']);
      const report = await endSession(run);
      expect(report.operations.map((op) => op.fault ?? null)).toEqual([null, 'F5', null]);
    }));

  it('issue 16 / R-4.3: four parallel writes with --fault-on 2 → exactly one faulted', () =>
    withCliProxy([...BOOKING, '--scenario', 'F5', '--fault-on', '2'], async (run) => {
      const results = await Promise.all(['A', 'B', 'C', 'D'].map((guest) => run.call('create_booking', booking(guest))));
      expect(results.filter((r) => r.isError === true)).toHaveLength(1);
      expect(creates(run)).toHaveLength(3);
      const report = await endSession(run);
      expect(report.scenario.faultsApplied).toBe(1);
      expect(report.operations.filter((op) => op.fault === 'F5')).toHaveLength(1);
    }));
});

describe('issue 16: latency (in-process CLI)', () => {
  async function latencies(seed: string): Promise<{ timing: TimingEntry[]; report: Report16; stderr: string }> {
    return withCliProxy([...BOOKING, '--latency', '40:30', '--seed', seed], async (run) => {
      for (let n = 0; n < 4; n++) {
        await run.call('create_booking', booking(`G${n}`));
        await run.call('search_bookings', { guest: `G${n}` });
      }
      const stderr = run.stderr();
      const report = await endSession(run);
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
      withCliProxy([...BOOKING, '--mode', 'chaos', '--error-rate', '0.5', '--latency', '20:15', '--seed', '99'], async (r) => {
        const errors: boolean[] = [];
        for (let n = 0; n < 6; n++) errors.push((await r.call('search_bookings', { guest: `G${n}` })).isError === true);
        const report = await endSession(r);
        return { errors, latencies: report.timing!.map((t) => [t.attempt, t.latencyMs]) };
      });
    const [a, b] = [await run(), await run()];
    expect(b).toEqual(a);
    // Only forwarded calls get a latency: one entry per call that chaos let through.
    expect(a.latencies).toHaveLength(a.errors.filter((e) => !e).length);
  });
});

describe('issue 16: bad input (in-process CLI)', () => {
  for (const argv of [
    ['--hold', '5000'],
    ['--scenario', 'F1', '--hold', '-3'],
    ['--latency', '1.5'],
    ['--scenario', 'F2', '--fault-on', '0'],
  ]) {
    it(`issue 16: proxy ${argv.join(' ')} → one clear line, exit 1, no upstream started`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'h4-bad-input-'));
      const marker = join(dir, 'upstream-started');
      const upstream = [
        '--upstream-command',
        'sh',
        '--upstream-arg',
        '-c',
        '--upstream-arg',
        `echo started > "${marker}"; exec "${process.execPath}" "${FIXTURES}/counting-server.mjs"`,
      ];
      const result = await runCli(['proxy', ...upstream, ...argv]);
      const started = existsSync(marker);
      rmSync(dir, { recursive: true, force: true });
      expect(started).toBe(false);
      expect(result.code).toBe(1);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(/hold|latency|fault-on/);
      expect(result.stderr).not.toMatch(/^\s+at /m);
    });
  }
});
