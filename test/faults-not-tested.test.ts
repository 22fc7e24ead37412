/**
 * Every NOT_TESTED cause of that real processes can produce, in front of real upstream processes
 * that count what they execute (the counting fixture). The upstream's ledger shows what really happened;
 * the report must admit what the proxy could not know.
 *
 * Moved from `e2e/proxy-not-tested.e2e.test.ts` (issue 12): the proxy runs in-process (`main(argv, io)`,
 * see `support/h2-cli-proxy.ts`), driven with raw JSON-RPC lines; the upstream stays a real process.
 */
import { describe, expect, it, vi } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { executions, readLedger } from '../e2e/fixtures/lib/ledger.mjs';
import { isAlive, waitFor } from '../e2e/fixtures/lib/raw-child.mjs';
import { nodeFixture } from '../e2e/faults/fault-lab.js';
import { scenarioOf } from '../e2e/support/agents.js';
import { textOf, type ReportFile } from '../e2e/support/proxy-harness.js';
import { resultOf, type RawProxy } from '../e2e/support/raw-proxy.js';
import { cliProxy } from './support/h2-cli-proxy.js';

// Each test starts a real upstream process; some wait out a time-out or the 2 s drain window.
vi.setConfig({ testTimeout: 60_000 });

const COUNTING = nodeFixture('counting-server.mjs');

/** One session of the in-process proxy, as `e2e/support/agents.ts` drives the compiled one. */
interface CliRun {
  proxy: RawProxy;
  ledgerFile: string;
  stderr(): string;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  report(): ReportFile;
  ledger(): ReturnType<RawProxy['ledger']>;
}

/** Starts the proxy (`flags`, default: the counting upstream; `extra` appended), runs `body`, ends it. */
async function withProxy<T>(
  options: { flags?: string[]; extra?: string[]; env?: Record<string, string> },
  body: (run: CliRun) => Promise<T>,
): Promise<T> {
  const proxy = cliProxy([...(options.flags ?? COUNTING), ...(options.extra ?? [])], { env: options.env ?? {} });
  try {
    await proxy.initialize();
    return await body({
      proxy,
      ledgerFile: proxy.ledgerFile,
      stderr: () => proxy.raw.stderr(),
      call: async (name, args = {}) =>
        resultOf(await proxy.request('tools/call', { name, arguments: args }, 30_000)) as unknown as CallToolResult,
      report: () => proxy.report(),
      ledger: () => proxy.ledger(),
    });
  } finally {
    await proxy.dispose();
  }
}

/** Ends the agent's session (stdin EOF; the proxy returns exit 0) and answers the final report file. */
async function endSession(run: CliRun): Promise<ReportFile> {
  expect(await run.proxy.stop(15_000)).toEqual({ code: 0, signal: null });
  return run.report();
}

/** The report must be NOT_TESTED, without a score, naming `cause` among its reasons. */
function expectNotTested(report: ReportFile, cause: string): void {
  expect(report.verdict).toBe('NOT_TESTED');
  expect(report.report.verdict).toBe('NOT_TESTED');
  expect(report.report.verdictReason).toContain(cause);
  expect(report.score.overall).toBeNull();
  expect(report.score.verdict).toBe('NOT_TESTED');
}

/** Upstream pids recorded in a fixture ledger. */
const ledgerPids = (run: { ledgerFile: string }): number[] => [...new Set(readLedger(run.ledgerFile).map((entry) => entry.pid))];

describe.concurrent('R-2.3 NOT_TESTED causes, each produced with real processes', () => {
  it('R-2.3: no calls (connect, then disconnect) → NOT_TESTED "no calls were made", overall score null', () =>
    withProxy({}, async (run) => {
      const report = await endSession(run);
      expect(report.status).toBe('finished');
      expectNotTested(report, 'no calls were made');
      expect(run.ledger()).toEqual([]);
      expect(report.report.operations).toEqual([]);
    }));

  it('R-2.3: only reads → NOT_TESTED "no write tool was called", the scenario untouched', () =>
    withProxy({ extra: ['--scenario', 'F1'] }, async (run) => {
      expect((await run.call('search_orders', { query: 'Ada' })).isError).not.toBe(true);
      expect((await run.call('get_order', { order_id: 'o-1' })).isError).not.toBe(true);
      const report = await endSession(run);
      expectNotTested(report, 'no write tool was called');
      expect(report.report.coverage['calls']).toEqual({ read: 2, write: 0, unclassified: 0 });
      expect(scenarioOf(report)).toMatchObject({ triggered: false, faultsApplied: 0 });
      // The upstream executed the two reads and nothing else.
      expect(executions(run.ledger()).map((entry) => entry.tool)).toEqual(['search_orders', 'get_order']);
    }));

  it('R-2.3/R-4.1/R-8.3: F1 never triggered by reads, an unclassified tool and a write-named tool the upstream does not list', () =>
    withProxy({ flags: COUNTING, extra: ['--scenario', 'F1'] }, async (run) => {
      expect(run.stderr()).toMatch(/WARNING: tool "sync_ledger" could not be classified/);
      expect(textOf(await run.call('search_orders', { query: 'tea' }))).toBe('ok search_orders #1');
      expect(textOf(await run.call('sync_ledger', {}))).toBe('ok sync_ledger #1');
      const unlisted = await run.call('create_refund', { order_id: 'o-1' });
      expect(unlisted.isError).toBe(true);
      expect(textOf(unlisted)).toContain('Unknown tool');
      const report = await endSession(run);
      expectNotTested(report, 'scenario F1 never triggered');
      expect(scenarioOf(report)).toMatchObject({ triggered: false, faultsApplied: 0 });
      expect(report.report.coverage['calls']).toEqual({ read: 1, write: 0, unclassified: 2 });
      expect(report.report.coverage['unclassifiedTools']).toEqual(['create_refund', 'sync_ledger']);
      // The upstream did execute the unclassified tool: the proxy forwards it but does not judge it.
      expect(executions(readLedger(run.ledgerFile)).map((entry) => entry.tool)).toEqual(['search_orders', 'sync_ledger']);
    }));

  it('R-1.3/R-2.3: every write unknown (the upstream answers after --upstream-timeout 0.5) → NOT_TESTED, yet the ledger shows it executed', () =>
    withProxy({ flags: COUNTING, extra: ['--upstream-timeout', '0.5'] }, async (run) => {
      const result = await run.call('create_order', { item: 'tea', sleepMs: 1500, idempotency_key: 'k-1' });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/timed out/i);
      const report = await endSession(run);
      expectNotTested(report, 'the execution of every write is unknown');
      expect(report.report.operations[0]).toMatchObject({ executions: 0, attempts: 1, outcome: 'EXECUTION_UNKNOWN' });
      expect(report.report.observations).toContainEqual(
        expect.objectContaining({ type: 'EXECUTION_UNKNOWN', tool: 'create_order' }),
      );
      expect(executions(readLedger(run.ledgerFile), 'create_order')).toHaveLength(1);
    }));

  it('R-2.3: an operation with an unknown outcome repeated → NOT_TESTED (possible duplicate), not FAIL; the ledger shows 2 executions', () =>
    withProxy({ flags: COUNTING, extra: ['--upstream-timeout', '0.5'] }, async (run) => {
      const args = { item: 'tea', sleepMs: 1500, idempotency_key: 'k-1' };
      expect((await run.call('create_order', args)).isError).toBe(true);
      expect((await run.call('create_order', args)).isError).toBe(true);
      const report = await endSession(run);
      expectNotTested(report, 'operation(s) with an unknown outcome were repeated (possible duplicate)');
      expect(report.report.violations).toEqual([]);
      expect(report.report.operations).toHaveLength(1);
      expect(report.report.operations[0]).toMatchObject({ executions: 0, attempts: 2, outcome: 'EXECUTION_UNKNOWN' });
      expect(executions(readLedger(run.ledgerFile), 'create_order')).toHaveLength(2);
    }));

  it('R-2.3: the same write re-sent after the upstream answered it with isError → NOT_TESTED; the ledger shows 1 rejection, 1 execution', () =>
    withProxy({ flags: COUNTING, env: { FIXTURE_REJECT_FIRST: '1' } }, async (run) => {
      const args = { item: 'tea', quantity: 1, idempotency_key: 'k-1' };
      const first = await run.call('create_order', args);
      expect(first.isError).toBe(true);
      expect(textOf(first)).toBe('rejected create_order');
      expect(textOf(await run.call('create_order', args))).toBe('ok create_order #1');
      const report = await endSession(run);
      expectNotTested(report, 're-sent after the upstream answered them with isError');
      expect(report.report.operations[0]).toMatchObject({ executions: 1, attempts: 2, outcome: 'EXECUTION_UNKNOWN' });
      const ledger = readLedger(run.ledgerFile);
      expect(ledger.map((entry) => entry.rejected === true)).toEqual([true, false]);
      expect(ledger.map((entry) => entry.arguments)).toEqual([args, args]);
    }));

  it('R-1.3: an isError the agent stops at is UPSTREAM_REJECTED, not a NOT_TESTED cause (contrast)', () =>
    withProxy({ flags: COUNTING, env: { FIXTURE_REJECT_FIRST: '1' } }, async (run) => {
      expect((await run.call('create_order', { item: 'tea', idempotency_key: 'k-1' })).isError).toBe(true);
      const report = await endSession(run);
      expect(report.verdict).toBe('PASS');
      expect(report.report.operations[0]).toMatchObject({ executions: 0, attempts: 1, outcome: 'UPSTREAM_REJECTED' });
      expect(report.report.observations).toContainEqual(expect.objectContaining({ type: 'UPSTREAM_REJECTED' }));
      expect(executions(readLedger(run.ledgerFile))).toEqual([]);
    }));

  it('R-2.3/R-9.2: a report written while a write is still in flight → NOT_TESTED with the in-flight cause; PASS once it answered', () =>
    withProxy({ flags: COUNTING }, async (run) => {
      const slow = run.call('create_order', { item: 'tea', sleepMs: 4000, idempotency_key: 'k-1' });
      await waitFor(
        () => executions(readLedger(run.ledgerFile), 'create_order').length === 1,
        10_000,
        'the slow write to execute',
      );
      await run.call('search_orders', { query: 'tea' });
      const during = run.report();
      expectNotTested(during, '1 call(s) still in flight when the report was written');
      expect(during.report.coverage['inFlight']).toBe(1);
      expect(textOf(await slow)).toBe('ok create_order #1');
      const after = await endSession(run);
      expect(after.verdict).toBe('PASS');
      expect(after.report.coverage['inFlight']).toBe(0);
      expect(after.report.operations[0]).toMatchObject({ executions: 1, outcome: 'EXECUTED' });
    }));

  it('R-6/R-2.3: after a ghost write, the same tool with amount "129.00" instead of 129 → NOT_TESTED, POSSIBLE_DUPLICATE_DIFFERENT_ARGUMENTS', () =>
    withProxy({ flags: COUNTING, extra: ['--scenario', 'F1'] }, async (run) => {
      expect(textOf(await run.call('create_order', { item: 'tea', quantity: 2, amount: 129 }))).toMatch(/timed out/i);
      expect(textOf(await run.call('create_order', { item: 'tea', quantity: 2, amount: '129.00' }))).toBe('ok create_order #2');
      const report = await endSession(run);
      expectNotTested(report, 'POSSIBLE_DUPLICATE_DIFFERENT_ARGUMENTS');
      expect(report.report.violations).toEqual([]);
      expect(report.report.observations).toContainEqual(
        expect.objectContaining({ type: 'POSSIBLE_DUPLICATE_DIFFERENT_ARGUMENTS', tool: 'create_order', count: 1 }),
      );
      // Both were executed upstream: the proxy cannot prove a duplicate, so it refuses to pass the run.
      expect(executions(readLedger(run.ledgerFile), 'create_order')).toHaveLength(2);
    }));

  it('R-6: after a ghost write, a real change (other quantity and amount) → PASS with OTHER_WRITE_AFTER_UNCERTAIN_ATTEMPT', () =>
    withProxy({ flags: COUNTING, extra: ['--scenario', 'F1'] }, async (run) => {
      expect(textOf(await run.call('create_order', { item: 'tea', quantity: 2, amount: 129 }))).toMatch(/timed out/i);
      expect(textOf(await run.call('create_order', { item: 'tea', quantity: 3, amount: 193.5 }))).toBe('ok create_order #2');
      const report = await endSession(run);
      expect(report.verdict).toBe('PASS');
      expect(report.report.observations).toContainEqual(
        expect.objectContaining({ type: 'OTHER_WRITE_AFTER_UNCERTAIN_ATTEMPT', tool: 'create_order' }),
      );
      expect(report.report.observations).toContainEqual(
        expect.objectContaining({ type: 'UNVERIFIED_AFTER_TIMEOUT', tool: 'create_order' }),
      );
      // 2 operations executed once (safety 100); the unverified ghost write scores 50 → 60 + 20.
      expect(report.score).toMatchObject({ overall: 80, capped: false });
      expect(executions(readLedger(run.ledgerFile), 'create_order')).toHaveLength(2);
    }));
});

interface HangUp {
  report: ReportFile;
  /** Executions recorded in the upstream's ledger. */
  executed: number;
  exitCode: number | null;
}

/**
 * A raw agent (so it can hang up at any moment) sends a slow write, closes its end (stdin EOF) once the
 * upstream executed it, and waits for the proxy to exit by itself and for the upstream to be gone.
 */
async function hangUpDuringSlowWrite(sleepMs: number): Promise<HangUp> {
  const proxy = cliProxy(COUNTING);
  try {
    await proxy.initialize();
    const params = { name: 'create_order', arguments: { item: 'tea', sleepMs, idempotency_key: 'k-1' } };
    proxy.raw.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params });
    await waitFor(() => proxy.ledger().length === 1, 10_000, 'the slow write to execute');
    const { code } = await proxy.stop(15_000);
    const upstreamPids = ledgerPids(proxy);
    await waitFor(() => upstreamPids.every((pid) => !isAlive(pid)), 5_000, 'the upstream to end');
    return { report: proxy.report(), executed: executions(proxy.ledger()).length, exitCode: code };
  } finally {
    await proxy.dispose();
  }
}

describe.concurrent('R-8.8/R-2.3: the agent hangs up while a write is in flight', () => {
  it('R-8.8: an answer arriving 500 ms after the agent left still counts → executed, PASS (baseline)', async () => {
    const { report, executed, exitCode } = await hangUpDuringSlowWrite(500);
    expect(exitCode).toBe(0);
    expect(report.status).toBe('finished');
    expect(report.report.operations[0]).toMatchObject({ executions: 1, outcome: 'EXECUTED' });
    expect(report.report.coverage['inFlight']).toBe(0);
    expect(report.verdict).toBe('PASS');
    expect(executed).toBe(1);
  });

  it('R-1.3/R-2.3: an answer 5 s after the agent left is not waited for → EXECUTION_UNKNOWN, NOT_TESTED; the ledger shows it executed', async () => {
    const { report, executed, exitCode } = await hangUpDuringSlowWrite(5000);
    expect(exitCode).toBe(0);
    expect(report.status).toBe('finished');
    expect(report.report.operations[0]).toMatchObject({ executions: 0, outcome: 'EXECUTION_UNKNOWN' });
    expect(report.report.observations).toContainEqual(
      expect.objectContaining({ type: 'EXECUTION_UNKNOWN', tool: 'create_order' }),
    );
    expectNotTested(report, 'the execution of every write is unknown');
    expect(executed).toBe(1);
  });
});
