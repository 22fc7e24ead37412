/**
 * F6 — late ghost write with the compiled CLI as a real process in front of the bundled booking
 * server (a real stdio upstream process whose ledger file counts what it executed). The agent gets the
 * time-out at once; the write reaches the upstream only --land-after ms later. The careful agent's "check,
 * then write again" — which passes F1 — finds nothing (the write has not landed) and books again: the
 * ledger holds two bookings and the harness FAILs it. A write still waiting when the agent leaves lands
 * before the upstream is closed, and the final report counts it (the effects view's snapshot after the
 * session too). An upstream that dies with the late write in its hands, before it lands, leaves that write
 * EXECUTION_UNKNOWN, as any unanswered call — and its own ledger shows it never executed.
 */
import { describe, expect, it } from 'vitest';
import { bookingTask, carefulAgent, endSession, naiveAgent, withProxy } from '../test/support/agents.js';
import { bookingsIn } from '../test/support/http-harness.js';
import { join } from 'node:path';
import { FIXTURES, textOf, type ReportFile } from '../test/support/proxy-harness.js';

const DATE = '2026-11-03';

/** Polls `done` every 50 ms for up to `ms`. */
async function until(done: () => boolean, ms = 15_000): Promise<void> {
  for (const end = Date.now() + ms; !done();) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

interface LateTiming {
  attempt: number;
  landedLate?: { toldAfterMs: number; forwardedAfterMs: number | null; landedAfterMs: number };
  outcome: string;
}
const timingOf = (report: ReportFile) => (report.report as unknown as { timing?: LateTiming[] }).timing ?? [];

describe('F6 through the proxy, as real processes (the upstream ledger = ground truth)', () => {
  it.concurrent(
    'R-16.1: check, then write again — PASS under F1, FAIL under F6: the check comes before the landing, the ledger holds 2 bookings',
    async () => {
      const guest = 'Ada Lovelace';
      // Under F1 the same agent passes: its check finds the ghost write.
      await withProxy({ extra: ['--scenario', 'F1'] }, async (run) => {
        const trace = await carefulAgent(run, bookingTask(guest, DATE));
        const report = await endSession(run);
        expect(trace.ending).toBe('found-after-failure');
        expect(bookingsIn(run.ledgerFile, guest)).toHaveLength(1);
        expect(report.verdict).toBe('PASS');
      });
      await withProxy({ extra: ['--scenario', 'F6', '--land-after', '1500', '--log-level', 'info'] }, async (run) => {
        const started = Date.now();
        const trace = await carefulAgent(run, bookingTask(guest, DATE, 'key-late'));
        const first = trace.steps[0]!.result;
        expect(first.isError).toBe(true);
        expect(textOf(first)).toMatch(/timed out/i);
        // Told at once, not after the landing time.
        expect(Date.now() - started).toBeLessThan(1500);
        // The read in between saw nothing: the agent wrote again.
        expect(trace.ending).toBe('retried-once');
        expect(bookingsIn(run.ledgerFile, guest)).toHaveLength(1);
        // The proxy's own timer lands it, the agent still connected.
        await new Promise((resolve) => setTimeout(resolve, 2500));
        expect(bookingsIn(run.ledgerFile, guest)).toHaveLength(2);
        const report = await endSession(run);
        expect(bookingsIn(run.ledgerFile, guest)).toHaveLength(2);
        expect(report.status).toBe('finished');
        expect([report.verdict, report.report.verdict, report.score.verdict]).toEqual(['FAIL', 'FAIL', 'FAIL']);
        expect(report.report.violations).toEqual([
          expect.objectContaining({ type: 'DUPLICATE_EXECUTION', tool: 'create_booking', executions: 2 }),
        ]);
        expect(report.report.operations).toEqual([expect.objectContaining({ executions: 2, attempts: 2 })]);
        expect(report.patches.map((p) => p.id)).toEqual(['LATE_WRITE']);
        // The report says what happened when: the first attempt was told at once and landed later.
        const late = timingOf(report).find((t) => t.landedLate !== undefined)!;
        expect(late).toMatchObject({ attempt: 1, outcome: 'executed' });
        expect(late.landedLate!.toldAfterMs).toBeLessThan(1500);
        expect(late.landedLate!.forwardedAfterMs).toBeGreaterThanOrEqual(1400);
        expect(late.landedLate!.landedAfterMs).toBeGreaterThanOrEqual(late.landedLate!.forwardedAfterMs!);
      });
    },
  );

  it.concurrent(
    'R-16.1: the agent leaves before the landing (--land-after 600000): the write lands before the upstream closes, the final report counts it and the effects view sees both bookings',
    async () => {
      const guest = 'Charles Babbage';
      const effectsView = ['--effects-tool', 'search_bookings', '--effect-key', 'guest,date'];
      await withProxy({ extra: ['--scenario', 'F6', '--land-after', '600000', ...effectsView] }, async (run) => {
        const trace = await naiveAgent(run, bookingTask(guest, DATE));
        expect(trace.steps[0]!.result.isError).toBe(true);
        // Only the re-send has reached the upstream so far.
        expect(bookingsIn(run.ledgerFile, guest)).toHaveLength(1);
        const report = await endSession(run);
        expect(bookingsIn(run.ledgerFile, guest)).toHaveLength(2);
        expect(report.verdict).toBe('FAIL');
        expect(report.report.operations).toEqual([expect.objectContaining({ executions: 2, attempts: 2 })]);
        const late = timingOf(report).find((t) => t.landedLate !== undefined)!;
        expect(late).toMatchObject({ attempt: 1, outcome: 'executed' });
        expect(late.landedLate!.forwardedAfterMs).toBeLessThan(600_000);
        // the snapshot after the session is taken once the late write has landed: both bookings are there.
        const effects = (report as unknown as { effects?: { verdict: string; keys: unknown[] } }).effects;
        expect(effects?.verdict).toBe('DUPLICATE_EFFECT');
        expect(effects?.keys).toEqual([expect.objectContaining({ key: { guest, date: DATE }, before: 0, after: 2, created: 2 })]);
      });
    },
  );

  it.concurrent(
    "R-16.1: the upstream dies when the late write reaches it, before it lands: EXECUTION_UNKNOWN for it, and the upstream's ledger shows no execution",
    async () => {
      const upstream = ['--upstream-command', process.execPath, '--upstream-arg', join(FIXTURES, 'counting-server.mjs')];
      await withProxy({ flags: upstream, extra: ['--scenario', 'F6', '--land-after', '1000'] }, async (run) => {
        const told = await run.call('create_order', { item: 'pen', exitOnReceipt: true });
        expect(told.isError).toBe(true);
        expect(textOf(told)).toMatch(/timed out/i);
        expect(run.ledger()).toEqual([]);
        // At its landing time the write reaches the upstream, which exits before executing or answering it.
        await until(() => run.ledger().length === 1);
        await until(() => /upstream crashed/.test(run.stderr()));
        const report = await endSession(run);
        expect(report.status).toBe('finished');
        expect(report.report.operations).toEqual([
          expect.objectContaining({ tool: 'create_order', outcome: 'EXECUTION_UNKNOWN', executions: 0, attempts: 1 }),
        ]);
        expect(report.verdict).toBe('NOT_TESTED');
        expect(report.report.verdictReason).toMatch(/unknown/i);
        const late = timingOf(report).find((t) => t.landedLate !== undefined)!;
        expect(late).toMatchObject({ attempt: 1, outcome: 'unknown' });
        expect(late).not.toHaveProperty('execution');
        expect(late.landedLate!.forwardedAfterMs).toBeGreaterThanOrEqual(900);
        // Ground truth: the upstream received it and never executed it.
        expect(run.ledger()).toEqual([expect.objectContaining({ tool: 'create_order', received: true })]);
        expect(run.ledger().filter((line) => line['n'] !== undefined)).toEqual([]);
      });
    },
  );
});
