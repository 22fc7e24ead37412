/**
 * Scenario details beyond the F1–F5 × careful/naive matrix (`transports-matrix.test.ts`), in-process with
 * the proxy's real adapters (stdio agent side, the stdio upstream's transport over pipes; see
 * `support/h1-proxy-rig.ts`): F2's retry_after honoured in the proxy's clock (a manual clock, so no real
 * wait), two parallel writes under F1, and chaos mode at error rates 1, 0 and a seeded 0.5 in front of the
 * counting upstream, whose ledger records reads too (R-2, R-4.2, R-4.3, R-4.4).
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../src/adapters/manual-clock.js';
import {
  bookingTask,
  naiveAgent,
  RETRY_AFTER_MARGIN_MS,
  retryAfterSecondsOf,
  scenarioOf,
  type ToolCaller,
} from '../e2e/support/agents.js';
import { textOf, type ReportFile } from '../e2e/support/proxy-harness.js';
import { BookingUpstream, CountingUpstream, startRig, type StdioAgent, type UpstreamServer } from './support/h1-proxy-rig.js';

const GUEST = 'Ada Lovelace';
const DATE = '2026-11-03';
const CHAOS_ERROR = 'HTTP 500 Internal Server Error: the server encountered an error.';

/** Runs one stdio agent session through an in-process proxy; answers what `body` answers and the final report. */
async function session<T>(
  server: UpstreamServer,
  flags: string[],
  body: (agent: StdioAgent) => Promise<T>,
  clock?: ManualClock,
): Promise<{ result: T; report: ReportFile; notices: string[] }> {
  const rig = await startRig({ agent: 'stdio', upstream: 'stdio', server, flags, ...(clock ? { clock } : {}) });
  const agent = await rig.connectStdio();
  try {
    const result = await body(agent);
    await agent.end();
    expect((await rig.stop()).code).toBe(0);
    return { result, report: rig.report('stdio'), notices: rig.notices };
  } finally {
    await agent.end();
  }
}

describe('F2 and F1 details (booking upstream, ledger = ground truth)', () => {
  it('R-4.4: careful F2 with --retry-after 1 waits over 1 s (proxy clock) and retries once → PASS, RECOVERED_BY_RETRY with the wait', async () => {
    const booking = new BookingUpstream();
    const clock = new ManualClock(1_000_000);
    const { result: steps, report } = await session(
      booking,
      ['--scenario', 'F2', '--retry-after', '1'],
      async (agent) => {
        // The careful agent of e2e/support/agents.ts with honourRetryAfter, its wait made in the proxy's clock.
        const args = { guest: GUEST, date: DATE, idempotency_key: 'k-ada' };
        const first = await agent.call('create_booking', args);
        const seconds = retryAfterSecondsOf(first);
        expect(seconds).toBe(1);
        clock.advance(seconds! * 1000 + RETRY_AFTER_MARGIN_MS);
        return [first, await agent.call('create_booking', args)];
      },
      clock,
    );
    expect(textOf(steps[0]!)).toMatch(/429[\s\S]*retry_after\D+1\b/);
    expect(steps[1]!.isError).not.toBe(true);
    expect(booking.bookings()).toHaveLength(1);
    expect(report.verdict).toBe('PASS');
    expect(report.report.violations).toEqual([]);
    expect(report.patches).toEqual([]);
    expect(report.score).toMatchObject({ overall: 100, capped: false });
    const recovered = report.report.observations.find((o) => o.type === 'RECOVERED_BY_RETRY') as
      { waitedMs?: number } | undefined;
    expect(recovered?.waitedMs).toBe(1000 + RETRY_AFTER_MARGIN_MS);
    expect(report.report.operations[0]).toMatchObject({ executions: 1, attempts: 2, retryAfter: { requiredMs: 1000 } });
  });

  it('R-4.4: the same agent retrying before retry_after has passed (proxy clock) → FAIL RETRY_AFTER_VIOLATED', async () => {
    const booking = new BookingUpstream();
    const clock = new ManualClock(1_000_000);
    const { report } = await session(
      booking,
      ['--scenario', 'F2', '--retry-after', '1'],
      async (agent) => {
        const args = { guest: GUEST, date: DATE, idempotency_key: 'k-ada' };
        await agent.call('create_booking', args);
        clock.advance(999);
        await agent.call('create_booking', args);
      },
      clock,
    );
    expect(report.verdict).toBe('FAIL');
    expect(report.report.violations[0]).toMatchObject({
      type: 'RETRY_AFTER_VIOLATED',
      retryAfter: { requiredMs: 1000, waitedMs: 999 },
    });
  });

  it('R-4.3: two identical writes sent in parallel under F1 → exactly one is the ghost write; FAIL with parallel, IDEMPOTENCY', async () => {
    const booking = new BookingUpstream();
    const { result: trace, report } = await session(booking, ['--scenario', 'F1'], (agent) =>
      naiveAgent(agent, bookingTask(GUEST, DATE), { parallel: true }),
    );
    const timedOut = trace.steps.filter((s) => s.result.isError === true && /timed out/i.test(textOf(s.result)));
    expect(timedOut).toHaveLength(1);
    expect(booking.bookings()).toHaveLength(2);
    expect(report.verdict).toBe('FAIL');
    expect(report.report.operations[0]).toMatchObject({ executions: 2, attempts: 2 });
    expect(report.report.violations[0]).toMatchObject({
      type: 'DUPLICATE_EXECUTION',
      duplicate: { parallel: true, afterTimeout: false, keyUse: 'none' },
    });
    expect(report.patches.map((p) => p.id)).toEqual(['IDEMPOTENCY']);
  });
});

/** A read, a write, a read and another write, in order; answers what the agent saw. */
async function mixedCalls(agent: ToolCaller): Promise<CallToolResult[]> {
  return [
    await agent.call('search_orders', { query: 'tea' }),
    await agent.call('create_order', { item: 'tea', quantity: 1, idempotency_key: 'k-1' }),
    await agent.call('get_order', { order_id: 'o-1' }),
    await agent.call('create_order', { item: 'cake', quantity: 2, idempotency_key: 'k-2' }),
  ];
}

/** Sends `count` different writes in order; answers the items the agent saw fail. */
async function itemsThatFailed(agent: ToolCaller, count: number): Promise<string[]> {
  const failed: string[] = [];
  for (let i = 0; i < count; i++) {
    const item = `item-${i}`;
    if ((await agent.call('create_order', { item })).isError === true) failed.push(item);
  }
  return failed;
}

describe('chaos mode (counting upstream: its ledger records every executed call, reads too)', () => {
  it('R-4.2: --error-rate 1 → every call, reads too, gets the generic server error and nothing is executed', async () => {
    const counting = new CountingUpstream();
    const { result: results, report } = await session(counting, ['--mode', 'chaos', '--error-rate', '1'], mixedCalls);
    for (const result of results) {
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe(CHAOS_ERROR);
    }
    expect(counting.ledger).toEqual([]);
    expect(report.report.operations.map((op) => op.executions)).toEqual([0, 0]);
    expect(scenarioOf(report)).toMatchObject({ id: 'chaos', triggered: true, faultsApplied: 4 });
    // two writes with a definite outcome (not executed), the fault triggered, no violation.
    expect(report.verdict).toBe('PASS');
    expect(report.report.violations).toEqual([]);
  });

  it('R-2.3/R-4.2: --error-rate 0 → nothing injected, every call executed; NOT_TESTED "chaos mode injected no fault"', async () => {
    const counting = new CountingUpstream();
    const { result: results, report } = await session(counting, ['--mode', 'chaos', '--error-rate', '0'], mixedCalls);
    expect(results.map((r) => r.isError === true)).toEqual([false, false, false, false]);
    expect(counting.ledger.map((entry) => entry.tool)).toEqual(['search_orders', 'create_order', 'get_order', 'create_order']);
    expect(report.report.operations.map((op) => op.executions)).toEqual([1, 1]);
    expect(report.verdict).toBe('NOT_TESTED');
    expect(report.report.verdictReason).toContain('chaos mode injected no fault');
    expect(report.score.overall).toBeNull();
  });

  it('R-4.2: --seed makes chaos at --error-rate 0.5 reproducible (two runs, same seed, same ledger; the seed in the report)', async () => {
    const runOnce = async () => {
      const counting = new CountingUpstream();
      const flags = ['--mode', 'chaos', '--error-rate', '0.5', '--seed', '20261103'];
      const { result: failed, report } = await session(counting, flags, (agent) => itemsThatFailed(agent, 16));
      const configuration = (report.report as unknown as { configuration?: { seed: number | null } }).configuration;
      expect(configuration?.seed).toBe(20261103);
      return { failed, executed: counting.ledger.map((entry) => String(entry.arguments['item'])) };
    };
    const first = await runOnce();
    const second = await runOnce();
    expect(second).toEqual(first);
    expect(first.failed.length).toBeGreaterThan(0);
    expect(first.executed.length).toBeGreaterThan(0);
    // What the agent saw and what the upstream executed are complementary.
    expect([...first.failed, ...first.executed].sort()).toEqual(Array.from({ length: 16 }, (_, i) => `item-${i}`).sort());
  });
});
