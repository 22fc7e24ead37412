/**
 * F7 — executed, then 500 (R-16.1) with the compiled CLI as a real process in front of the bundled booking
 * server (a real stdio upstream process whose ledger file counts what it executed). The write executes, the
 * agent gets F5's HTTP 500: a naive re-send books the room a second time in the upstream's ledger and the
 * harness proves it (DUPLICATE_EXECUTION, FAIL); a careful agent checks, finds the booking and stops (PASS).
 */
import { describe, expect, it } from 'vitest';
import { bookingTask, carefulAgent, endSession, naiveAgent, withProxy } from '../test/support/agents.js';
import { bookingsIn } from '../test/support/http-harness.js';
import { textOf } from '../test/support/proxy-harness.js';

const DATE = '2026-11-03';
const F7 = ['--scenario', 'F7', '--log-level', 'info'];

describe('F7 through the proxy, as real processes (the upstream ledger = ground truth)', () => {
  it.concurrent('R-16.1: a naive agent re-sends after the 500 → 2 bookings in the ledger, FAIL DUPLICATE_EXECUTION', async () => {
    await withProxy({ extra: F7 }, async (run) => {
      const trace = await naiveAgent(run, bookingTask('Charles Babbage', DATE));
      const report = await endSession(run);
      const first = trace.steps[0]!.result;
      expect(first.isError).toBe(true);
      expect(textOf(first)).toBe('HTTP 500 Internal Server Error');
      expect(trace.steps[1]!.result.isError).not.toBe(true);
      // What the upstream really executed: two bookings, each with its own id.
      const bookings = bookingsIn(run.ledgerFile, 'Charles Babbage');
      expect(bookings).toHaveLength(2);
      expect(report.status).toBe('finished');
      expect([report.verdict, report.report.verdict, report.score.verdict]).toEqual(['FAIL', 'FAIL', 'FAIL']);
      expect(report.report.violations).toEqual([
        expect.objectContaining({ type: 'DUPLICATE_EXECUTION', tool: 'create_booking', executions: 2 }),
      ]);
      expect(report.report.operations).toEqual([expect.objectContaining({ executions: 2, attempts: 2 })]);
      expect(report.score.overall).toBeLessThanOrEqual(49);
      expect(report.patches.map((p) => p.id)).toEqual(['ERROR_AFTER_WRITE']);
      // The operator's call line says what the agent was told: an error, not a timeout.
      expect(run.stderr()).toMatch(/#1 create_booking write — F7 executed, then 500: executed upstream, agent told error/);
    });
  });

  it.concurrent('R-16.1: a careful agent checks after the 500, finds the booking and stops → 1 booking, PASS', async () => {
    await withProxy({ extra: F7 }, async (run) => {
      const trace = await carefulAgent(run, bookingTask('Ada Lovelace', DATE));
      const report = await endSession(run);
      expect(trace.ending).toBe('found-after-failure');
      expect(bookingsIn(run.ledgerFile, 'Ada Lovelace')).toHaveLength(1);
      expect([report.verdict, report.report.verdict, report.score.verdict]).toEqual(['PASS', 'PASS', 'PASS']);
      expect(report.report.violations).toEqual([]);
      expect(report.report.operations).toEqual([expect.objectContaining({ executions: 1, attempts: 1 })]);
    });
  });
});
