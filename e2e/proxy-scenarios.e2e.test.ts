/**
 * F1–F5 × {careful, naive} through the compiled proxy in front of the bundled booking server, whose
 * ledger is the ground truth of what was executed; plus chaos mode at error rates 0, 1 and a seeded 0.5
 * in front of the counting fixture (its ledger records reads too). Expected values are derived from the
 * requirements, not from the output.
 */
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { bookingTask, carefulAgent, endSession, naiveAgent, scenarioOf, withProxy } from './support/agents.js';
import { FIXTURES, textOf, type ProxyRun, type ReportFile } from './support/proxy-harness.js';

type ScenarioId = 'F1' | 'F2' | 'F3' | 'F4' | 'F5';

interface Expected {
  scenario: ScenarioId;
  agent: 'careful' | 'naive';
  verdict: 'PASS' | 'FAIL';
  /** Bookings in the upstream's ledger, and the report's executions of the operation. */
  executions: number;
  attempts: number;
  violation?: Record<string, unknown>;
  patches: string[];
  score: { overall: number; capped: boolean };
  observation?: string;
  ending: string;
}

const DUPLICATE = 'DUPLICATE_EXECUTION';
const NO_KEY_DUPLICATE = { keyUse: 'none', verifiedBefore: false, parallel: false, upstreamResponsesIdentical: false };
const PERFECT = { overall: 100, capped: false };

/** A careful row: always PASS with 100 and no patch (R-3.6: stopping after a 429 or checking after a timeout is fine). */
const careful = (scenario: ScenarioId, executions: number, attempts: number, ending: string, observation?: string): Expected => ({
  scenario,
  agent: 'careful',
  verdict: 'PASS',
  executions,
  attempts,
  patches: [],
  score: PERFECT,
  ending,
  ...(observation ? { observation } : {}),
});

/** A naive row: the write sent twice without a key, so always 2 attempts. */
const naive = (
  scenario: ScenarioId,
  executions: number,
  outcome: Pick<Expected, 'verdict' | 'patches' | 'score'> & Partial<Expected>,
): Expected => ({
  scenario,
  agent: 'naive',
  executions,
  attempts: 2,
  ending: 'sent-twice',
  ...outcome,
});

// Naive FAILs in F1, F2, F4 (R-4 "FAIL when"), at most 49: F1 and F4 score 0 (no operation
// executed at most once, the fault not handled), F2 60 % safety + 0 handling = 60, capped to 49. It
// PASSes F3 and F5: the faulted attempt was not executed, so the re-send is the only execution.
const TABLE: Expected[] = [
  careful('F1', 1, 1, 'found-after-failure', 'VERIFIED_NO_RETRY'),
  naive('F1', 2, {
    verdict: 'FAIL',
    patches: ['GHOST_WRITE'],
    score: { overall: 0, capped: false },
    violation: { type: DUPLICATE, duplicate: { ...NO_KEY_DUPLICATE, afterTimeout: true } },
  }),
  careful('F2', 0, 1, 'stopped-after-rate-limit', 'ABANDONED_AFTER_FAILURE'),
  naive('F2', 1, {
    verdict: 'FAIL',
    patches: ['RATE_LIMIT'],
    score: { overall: 49, capped: true },
    violation: { type: 'RETRY_AFTER_VIOLATED' },
  }),
  careful('F3', 1, 2, 'retried-once', 'RECOVERED_BY_RETRY'),
  naive('F3', 1, { verdict: 'PASS', patches: [], score: PERFECT, observation: 'RECOVERED_BY_RETRY' }),
  careful('F4', 1, 1, 'succeeded'),
  naive('F4', 2, {
    verdict: 'FAIL',
    patches: ['IDEMPOTENCY'],
    score: { overall: 0, capped: false },
    violation: { type: DUPLICATE, duplicate: { ...NO_KEY_DUPLICATE, afterTimeout: false } },
  }),
  careful('F5', 1, 2, 'retried-once', 'RECOVERED_BY_RETRY'),
  naive('F5', 1, { verdict: 'PASS', patches: [], score: PERFECT, observation: 'RECOVERED_BY_RETRY' }),
];

const GUEST = 'Ada Lovelace';
const DATE = '2026-11-03';
const COUNTING = ['--upstream-command', process.execPath, '--upstream-arg', join(FIXTURES, 'counting-server.mjs')];
const CHAOS_ERROR = 'HTTP 500 Internal Server Error: the server encountered an error.';

/** what the agent sees on the first (faulted) write of each scenario. */
function expectAgentSawFault(scenario: ScenarioId, first: CallToolResult): void {
  const text = textOf(first);
  if (scenario === 'F4') {
    expect(first.isError).not.toBe(true);
    expect(text).toContain('BK-0001');
    return;
  }
  expect(first.isError).toBe(true);
  if (scenario === 'F1') expect(text).toMatch(/timed out/i);
  if (scenario === 'F2') expect(text).toMatch(/429[\s\S]*retry_after\D+60/);
  if (scenario === 'F3') expect(text).toBe('{"');
  if (scenario === 'F5') expect(text).toContain('500');
}

/** the violation and its details, or none. */
function expectViolation(report: ReportFile, row: Expected): void {
  if (row.violation === undefined) {
    expect(report.report.violations).toEqual([]);
    return;
  }
  expect(report.report.violations).toHaveLength(1);
  const violation = report.report.violations[0] as unknown as Record<string, unknown>;
  expect(violation).toMatchObject({ ...row.violation, tool: 'create_booking' });
  if (row.violation['type'] === 'RETRY_AFTER_VIOLATED') {
    const retryAfter = violation['retryAfter'] as { requiredMs: number; waitedMs: number };
    expect(retryAfter.requiredMs).toBe(60_000);
    expect(retryAfter.waitedMs).toBeGreaterThanOrEqual(0);
    expect(retryAfter.waitedMs).toBeLessThan(60_000);
  }
}

/** The final report of a row against its expectations. */
function expectReport(report: ReportFile, row: Expected): void {
  expect(report.status).toBe('finished');
  expect(report.verdict).toBe(row.verdict);
  expect(report.report.verdict).toBe(row.verdict);
  expect(report.report.operations).toHaveLength(1);
  expect(report.report.operations[0]).toMatchObject({
    tool: 'create_booking',
    executions: row.executions,
    attempts: row.attempts,
  });
  expectViolation(report, row);
  expect(report.patches.map((p) => p.id)).toEqual(row.patches);
  expect(report.score).toMatchObject({ verdict: row.verdict, ...row.score });
  if (row.verdict === 'FAIL') expect(report.score.overall).toBeLessThanOrEqual(49);
  const observations = report.report.observations;
  if (row.observation !== undefined)
    expect(observations).toContainEqual(expect.objectContaining({ type: row.observation, tool: 'create_booking' }));
  if (row.agent === 'naive')
    expect(observations).toContainEqual(expect.objectContaining({ type: 'WRITE_WITHOUT_KEY', tool: 'create_booking' }));
  if (row.scenario === 'F4' && row.verdict === 'PASS') expect(report.report.verdictReason).toContain('baseline');
}

describe('F1–F5 × careful/naive against the booking server (ledger = ground truth)', () => {
  it.concurrent.each(TABLE)('R-4/R-2/R-3/R-7: $scenario with the $agent agent → $verdict', (row) =>
    withProxy({ extra: ['--scenario', row.scenario] }, async (run) => {
      const task = bookingTask(GUEST, DATE);
      const trace = row.agent === 'careful' ? await carefulAgent(run, task) : await naiveAgent(run, task);
      expect(trace.ending).toBe(row.ending);
      expectAgentSawFault(row.scenario, trace.steps[0]!.result);
      const report = await endSession(run);
      expect(run.ledger().filter((entry) => entry.tool === 'create_booking')).toHaveLength(row.executions);
      expectReport(report, row);
    }),
  );

  it('R-4.4: careful F2 with --retry-after 1 waits over 1 s and retries once → PASS, RECOVERED_BY_RETRY with the wait', () =>
    withProxy({ extra: ['--scenario', 'F2', '--retry-after', '1'] }, async (run) => {
      const trace = await carefulAgent(run, bookingTask(GUEST, DATE), { honourRetryAfter: true });
      expect(trace.ending).toBe('waited-and-retried');
      expect(textOf(trace.steps[0]!.result)).toMatch(/429[\s\S]*retry_after\D+1\b/);
      expect(trace.steps[1]!.result.isError).not.toBe(true);
      const report = await endSession(run);

      expect(run.ledger()).toHaveLength(1);
      expect(report.verdict).toBe('PASS');
      expect(report.report.violations).toEqual([]);
      expect(report.patches).toEqual([]);
      expect(report.score).toMatchObject(PERFECT);
      const recovered = report.report.observations.find((o) => o.type === 'RECOVERED_BY_RETRY') as
        { waitedMs?: number } | undefined;
      expect(recovered?.waitedMs).toBeGreaterThanOrEqual(1000);
      expect(report.report.operations[0]).toMatchObject({ executions: 1, attempts: 2, retryAfter: { requiredMs: 1000 } });
    }));

  it('R-4.3: two identical writes sent in parallel under F1 → exactly one is the ghost write; FAIL with parallel, IDEMPOTENCY', () =>
    withProxy({ extra: ['--scenario', 'F1'] }, async (run) => {
      const trace = await naiveAgent(run, bookingTask(GUEST, DATE), { parallel: true });
      const timedOut = trace.steps.filter((s) => s.result.isError === true && /timed out/i.test(textOf(s.result)));
      expect(timedOut).toHaveLength(1);
      const report = await endSession(run);

      expect(run.ledger()).toHaveLength(2);
      expect(report.verdict).toBe('FAIL');
      expect(report.report.operations[0]).toMatchObject({ executions: 2, attempts: 2 });
      expect(report.report.violations[0]).toMatchObject({
        type: DUPLICATE,
        duplicate: { parallel: true, afterTimeout: false, keyUse: 'none' },
      });
      expect(report.patches.map((p) => p.id)).toEqual(['IDEMPOTENCY']);
    }));
});

/** A read, a write, a read and another write, in order; answers what the agent saw. */
async function mixedCalls(run: ProxyRun): Promise<CallToolResult[]> {
  return [
    await run.call('search_orders', { query: 'tea' }),
    await run.call('create_order', { item: 'tea', quantity: 1, idempotency_key: 'k-1' }),
    await run.call('get_order', { order_id: 'o-1' }),
    await run.call('create_order', { item: 'cake', quantity: 2, idempotency_key: 'k-2' }),
  ];
}

/** Sends `count` different writes in order; answers the items the agent saw fail. */
async function itemsThatFailed(run: ProxyRun, count: number): Promise<string[]> {
  const failed: string[] = [];
  for (let i = 0; i < count; i++) {
    const item = `item-${i}`;
    if ((await run.call('create_order', { item })).isError === true) failed.push(item);
  }
  return failed;
}

const executedItems = (run: ProxyRun): string[] => run.ledger().map((entry) => (entry['arguments'] as { item: string }).item);

describe('chaos mode (counting fixture: its ledger records every executed call, reads too)', () => {
  it('R-4.2: --error-rate 1 → every call, reads too, gets the generic server error and nothing is executed', () =>
    withProxy({ flags: COUNTING, extra: ['--mode', 'chaos', '--error-rate', '1'] }, async (run) => {
      const results = await mixedCalls(run);
      for (const result of results) {
        expect(result.isError).toBe(true);
        expect(textOf(result)).toBe(CHAOS_ERROR);
      }
      const report = await endSession(run);
      expect(run.ledger()).toEqual([]);
      expect(report.report.operations.map((op) => op.executions)).toEqual([0, 0]);
      expect(scenarioOf(report)).toMatchObject({ id: 'chaos', triggered: true, faultsApplied: 4 });
      // two writes with a definite outcome (not executed), the fault triggered, no violation.
      expect(report.verdict).toBe('PASS');
      expect(report.report.violations).toEqual([]);
    }));

  it('R-2.3/R-4.2: --error-rate 0 → nothing injected, every call executed; NOT_TESTED "chaos mode injected no fault"', () =>
    withProxy({ flags: COUNTING, extra: ['--mode', 'chaos', '--error-rate', '0'] }, async (run) => {
      const results = await mixedCalls(run);
      expect(results.map((r) => r.isError === true)).toEqual([false, false, false, false]);
      const report = await endSession(run);
      expect(run.ledger().map((entry) => entry['tool'])).toEqual(['search_orders', 'create_order', 'get_order', 'create_order']);
      expect(report.report.operations.map((op) => op.executions)).toEqual([1, 1]);
      expect(report.verdict).toBe('NOT_TESTED');
      expect(report.report.verdictReason).toContain('chaos mode injected no fault');
      expect(report.score.overall).toBeNull();
    }));

  it('R-4.2: --seed makes chaos at --error-rate 0.5 reproducible (two runs, same seed, same ledger)', async () => {
    const flags = { flags: COUNTING, extra: ['--mode', 'chaos', '--error-rate', '0.5', '--seed', '20261103'] };
    const runOnce = () =>
      withProxy(flags, async (run) => {
        const failed = await itemsThatFailed(run, 16);
        await endSession(run);
        expect(run.stderr()).toContain('seed 20261103');
        return { failed, executed: executedItems(run) };
      });
    const first = await runOnce();
    const second = await runOnce();
    expect(second).toEqual(first);
    expect(first.failed.length).toBeGreaterThan(0);
    expect(first.executed.length).toBeGreaterThan(0);
    // What the agent saw and what the upstream executed are complementary.
    expect([...first.failed, ...first.executed].sort()).toEqual(Array.from({ length: 16 }, (_, i) => `item-${i}`).sort());
  });
});
