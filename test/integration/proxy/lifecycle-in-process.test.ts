/**
 * The proxy's life: how a session ends (stdin EOF, an agent
 * that leaves during start-up or while a write is in flight, SIGTERM and its drain window), that the
 * upstream and its descendants end with it, upstream crashes and start-up failures, the report file at
 * every moment of a session, and every NOT_TESTED cause of that real processes can produce (the
 * upstream's ledger shows what really happened; the report must admit what the proxy could not know).
 *
 * Moved from `e2e/proxy-lifecycle.e2e.test.ts` and `e2e/proxy-not-tested.e2e.test.ts`: the
 * proxy runs in-process (`main(argv, io)`, see `support/cli-proxy-child.ts`; a signal reaches the handler the
 * CLI registers through `CliIo.onSignal`) in front of REAL upstream processes, checked by pid; no process
 * may be left behind. What needs the proxy as a process stays in `e2e/proxy-lifecycle.e2e.test.ts`: real
 * signals, EPIPE, SIGKILL while a write is in flight, the exit of a start-up failure, the reaper of a
 * SIGKILLed proxy, and a reader that parses the file at every moment while real processes write it
 * (R-9.3; in one process the reader would only see the file between turns).
 */
import { existsSync, lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { executions, readLedger } from '../../../e2e/fixtures/lib/ledger.mjs';
import { isAlive, waitFor, waitForExit } from '../../../e2e/fixtures/lib/raw-child.mjs';
import { nodeFixture, nodeFixture as node, nodeWord, shell } from '../../../e2e/faults/fault-lab.js';
import { pidsFromFile, type RawProxy, rawText, resultOf } from '../../support/raw-proxy.js';
import { reapersOf } from '../../../e2e/faults/nothing-lost.js';
import { cliLab, type CliLab, cliProxy } from '../../support/cli-proxy-child.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { scenarioOf } from '../../support/agents.js';
import { type ReportFile, textOf } from '../../support/proxy-harness.js';

// Each test starts real upstream processes; some wait out a time-out or the 2 s drain window.
vi.setConfig({ testTimeout: 60_000 });

// --- how the proxy lives and ends
describe.concurrent('how the proxy lives and ends', () => {
  const COUNTING = node('counting-server.mjs');

  const call = async (p: RawProxy, name: string, args: unknown = {}, timeoutMs?: number) =>
    resultOf(await p.request('tools/call', { name, arguments: args }, timeoutMs));

  /** Writes a tools/call request without waiting for its answer. */
  const sendCall = (p: RawProxy, id: number, name: string, args: unknown) =>
    p.raw.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

  /** The pid of the upstream that wrote the ledger (watched by the lab). */
  function upstreamPid(lab: CliLab, p: RawProxy): number {
    const pid = p.ledger()[0]?.pid;
    if (typeof pid !== 'number') throw new Error('no ledger entry with a pid yet');
    lab.watch([pid]);
    return pid;
  }

  /** The upstream pids of the pidfile, watched by the lab. */
  async function pidfilePids(lab: CliLab, p: RawProxy, count: number): Promise<number[]> {
    const pids = await pidsFromFile(p, count, new Set());
    lab.watch(pids);
    return pids;
  }

  async function expectGone(pids: number[], timeoutMs = 8000): Promise<void> {
    await waitFor(() => pids.every((pid) => !isAlive(pid)), timeoutMs, `processes ${pids.join(', ')} to end`);
  }

  function expectNoStackTrace(p: RawProxy): void {
    expect(p.raw.stderr()).not.toMatch(/^\s+at /m);
  }

  /** Exit 1 and exactly one stderr line, the fatal one. */
  function expectOneErrorLine(p: RawProxy, pattern: RegExp): void {
    const lines = p.raw
      .stderr()
      .split('\n')
      .filter((l) => l !== '');
    expect(lines, p.raw.stderr()).toHaveLength(1);
    expect(lines[0]).toMatch(/^\[cuonztech-agent-harness\] error: /);
    expect(lines[0]).toMatch(pattern);
  }

  describe.concurrent('R-8.8: the proxy ends with its agent, and its upstream with it', () => {
    it('R-8.8: stdin EOF ends the proxy (exit 0) and its upstream; the report says finished', async ({ onTestFinished }) => {
      const lab = cliLab(onTestFinished);
      const p = await lab.start(COUNTING);
      await call(p, 'create_order', { item: 'pen' });
      const pid = upstreamPid(lab, p);
      expect(await p.stop(8000)).toEqual({ code: 0, signal: null });
      await expectGone([pid], 3000);
      expect(p.report().status).toBe('finished');
      expect(p.report().report.operations).toEqual([expect.objectContaining({ tool: 'create_order', executions: 1 })]);
    });

    it('R-8.8 / R-9.1: a client that disconnects during a slow start-up still ends the upstream; the report ends in a final state saying so', async ({
      onTestFinished,
    }) => {
      const lab = cliLab(onTestFinished);
      const p = lab.launch(shell(`echo $$ > "$FIXTURE_PIDFILE"; exec ${nodeWord('slow-start.mjs')}`), {
        env: { FIXTURE_START_DELAY_MS: '1500' },
      });
      const pids = await pidfilePids(lab, p, 1);
      p.raw.child.stdin.end();
      expect(await waitForExit(p.raw.child, 15_000)).toEqual({ code: 0, signal: null });
      expectNoStackTrace(p);
      await expectGone(pids);
      // Not `status: "starting"` for good: the file says the run never started, and why.
      expect(p.report()).toEqual({
        schemaVersion: 1,
        verdict: 'NOT_TESTED',
        status: 'failed',
        certification: 'UNVERIFIED_FOR_PRODUCTION',
        harnessVersion: expect.any(String),
        startupError: 'start-up did not complete: the agent disconnected during start-up; no calls were made',
      });
    });

    it('R-8.8 / R-9.1: SIGTERM during a slow start-up: exit 0, and the report says start-up did not complete', async ({
      onTestFinished,
    }) => {
      const lab = cliLab(onTestFinished);
      const p = lab.launch(shell(`echo $$ > "$FIXTURE_PIDFILE"; exec ${nodeWord('slow-start.mjs')}`), {
        env: { FIXTURE_START_DELAY_MS: '20000' },
      });
      const pids = await pidfilePids(lab, p, 1);
      await waitFor(() => (existsSync(p.reportFile) ? p.report() : undefined), 10_000, 'the starting report');
      p.raw.child.kill('SIGTERM');
      expect(await waitForExit(p.raw.child, 15_000)).toEqual({ code: 0, signal: null });
      expect(p.report()).toMatchObject({
        verdict: 'NOT_TESTED',
        status: 'failed',
        startupError: 'start-up did not complete: received SIGTERM; no calls were made',
      });
      await expectGone(pids);
    });

    // The agent side reads stdin from the start (messages wait until the session is served), so an agent
    // that leaves while the upstream never answers `initialize` ends both at once, not after 60 s.
    it('R-8.8: a client that disconnects while the upstream never answers initialize ends both at once', async ({
      onTestFinished,
    }) => {
      const lab = cliLab(onTestFinished);
      const p = lab.launch(shell(`echo $$ > "$FIXTURE_PIDFILE"; exec ${nodeWord('slow-start.mjs')}`), {
        env: { FIXTURE_START_DELAY_MS: '55000' },
      });
      const pids = await pidfilePids(lab, p, 1);
      p.raw.child.stdin.end();
      expect(await waitForExit(p.raw.child, 5000)).toEqual({ code: 0, signal: null });
      await expectGone(pids, 3000);
    });

    it('R-8.8: an answer arriving within the drain window after SIGTERM still counts', async ({ onTestFinished }) => {
      const lab = cliLab(onTestFinished);
      const p = await lab.start(COUNTING);
      sendCall(p, 9, 'create_order', { item: 'pen', sleepMs: 600 });
      await waitFor(() => executions(p.ledger(), 'create_order').length === 1, 10_000, 'the call to execute');
      const pid = upstreamPid(lab, p);
      p.raw.child.kill('SIGTERM');
      expect(await waitForExit(p.raw.child, 15_000)).toEqual({ code: 0, signal: null });
      expect(p.raw.stderr()).toMatch(/stopped: received SIGTERM/);
      const [op] = p.report().report.operations;
      expect(op).toMatchObject({ tool: 'create_order', executions: 1 });
      expect(op!.outcome).not.toBe('EXECUTION_UNKNOWN');
      await expectGone([pid]);
    });
  });

  describe.concurrent('R-8.8: the reaper of a proxy that stops normally', () => {
    // The reaper is a real /bin/sh process next to the real upstream; a SIGKILLed proxy's reaper at work is
    // in e2e/proxy-lifecycle.e2e.test.ts.
    it.skipIf(process.platform !== 'linux')(
      'R-8.8: a proxy that stops normally leaves no reaper behind',
      async ({ onTestFinished }) => {
        const lab = cliLab(onTestFinished);
        const p = await lab.start(COUNTING);
        await p.request('tools/call', { name: 'get_order', arguments: {} });
        const pid = upstreamPid(lab, p); // the counting upstream writes its pid with every call
        const [reaper] = await waitFor(() => (reapersOf(pid).length === 1 ? reapersOf(pid) : undefined), 3000, 'the reaper');
        expect(reaper).toBeDefined();
        expect(await p.stop(15_000)).toEqual({ code: 0, signal: null });
        await waitFor(() => !isAlive(reaper!), 3000, 'the disarmed reaper to exit');
        expect(isAlive(pid)).toBe(false);
      },
    );
  });

  describe.concurrent('R-8.7: an upstream that crashes mid-session', () => {
    it('R-8.7: stderr says "upstream crashed" with its stderr tail; the call is EXECUTION_UNKNOWN; later calls get UPSTREAM_UNAVAILABLE', async ({
      onTestFinished,
    }) => {
      const lab = cliLab(onTestFinished);
      const p = await lab.start(shell(`echo "fixture-stderr: about to serve" >&2; exec ${nodeWord('counting-server.mjs')}`));
      const crashed = await call(p, 'create_order', { item: 'pen', crash: true });
      expect(crashed['isError']).toBe(true);
      upstreamPid(lab, p);
      await waitFor(() => p.raw.stderr().includes('upstream crashed'), 10_000, '"upstream crashed" on stderr');
      expect(p.raw.stderr()).toMatch(/upstream crashed[^\n]*\n(.*\n)*.*fixture-stderr: about to serve/);
      expect(p.report().report.operations).toEqual([
        expect.objectContaining({ tool: 'create_order', outcome: 'EXECUTION_UNKNOWN' }),
      ]);
      const later = await call(p, 'create_order', { item: 'book' });
      expect(later['isError']).toBe(true);
      expect(rawText(later)).toMatch(/UPSTREAM_UNAVAILABLE/);
      expect(rawText(await call(p, 'cuonztech__get_score'))).not.toBe('');
      expect(executions(p.ledger(), 'create_order')).toHaveLength(1);
      expect(await p.stop(8000)).toEqual({ code: 0, signal: null });
      expectNoStackTrace(p);
    });
  });

  describe.concurrent('R-8.9 / R-9.1: an upstream that does not start', () => {
    const cases: Array<[string, string[], RegExp]> = [
      ['a command that does not exist', ['--upstream-command', 'cuonztech-no-such-command-e2e'], /cuonztech-no-such-command-e2e/],
      // Node ends with its version banner: the line shown is its error, not "Node.js v20…".
      [
        'a script path that does not exist',
        ['--upstream-command', process.execPath, '--upstream-arg', '/nonexistent/cuonztech-server.js'],
        /\(exit code 1\): Error: Cannot find module '\/nonexistent\/cuonztech-server\.js'$/m,
      ],
    ];
    for (const [name, flags, pattern] of cases) {
      it(`R-8.9: ${name} → exit 1, one line, report NOT_TESTED with startupError`, async ({ onTestFinished }) => {
        const p = cliLab(onTestFinished).launch(flags);
        expect(await waitForExit(p.raw.child, 30_000)).toEqual({ code: 1, signal: null });
        expectOneErrorLine(p, /upstream did not start/);
        expectOneErrorLine(p, pattern);
        expect(p.report()).toMatchObject({
          verdict: 'NOT_TESTED',
          certification: 'UNVERIFIED_FOR_PRODUCTION',
          startupError: expect.any(String),
        });
      });
    }

    it('R-9.1: during a slow start-up the report file says status "starting", verdict NOT_TESTED', async ({ onTestFinished }) => {
      const p = cliLab(onTestFinished).launch(node('slow-start.mjs'), { env: { FIXTURE_START_DELAY_MS: '1500' } });
      const early = await waitFor(() => (existsSync(p.reportFile) ? p.report() : undefined), 10_000, 'the first report file');
      expect(early).toMatchObject({ status: 'starting', verdict: 'NOT_TESTED', certification: 'UNVERIFIED_FOR_PRODUCTION' });
      await p.initialize();
      await call(p, 'get_order', { order_id: 'o-1' });
      expect(p.report().status).toBe('running');
    });
  });

  describe.concurrent('R-9: the report file during a session', () => {
    it('R-9.2: after each of 5 calls returns, the file already reflects that call', async ({ onTestFinished }) => {
      const p = await cliLab(onTestFinished).start(COUNTING);
      for (let i = 1; i <= 5; i++) {
        await call(p, 'create_order', { item: `item-${i}` });
        const ops = p.report().report.operations;
        expect(ops).toHaveLength(i);
        expect(ops[i - 1]).toMatchObject({ tool: 'create_order', executions: 1 });
      }
    });

    it('R-9.4: a symbolic link to a regular file is written through and stays a link', async ({ onTestFinished }) => {
      const prepare = (dir: string, reportFile: string) => {
        writeFileSync(join(dir, 'real.json'), '{}');
        symlinkSync(join(dir, 'real.json'), reportFile);
      };
      const p = await cliLab(onTestFinished).start(COUNTING, { prepare });
      await call(p, 'create_order', { item: 'pen' });
      expect(lstatSync(p.reportFile).isSymbolicLink()).toBe(true);
      const real = JSON.parse(readFileSync(join(p.dir, 'real.json'), 'utf8')) as { status: string };
      expect(real.status).toBe('running');
    });

    it('R-9.3/R-9.2.1: the target becoming a folder mid-session ends the proxy with exit 1; the call is neither forwarded nor answered', async ({
      onTestFinished,
    }) => {
      const lab = cliLab(onTestFinished);
      const p = await lab.start(COUNTING);
      await call(p, 'create_order', { item: 'pen' });
      const pid = upstreamPid(lab, p);
      rmSync(p.reportFile);
      mkdirSync(p.reportFile);
      sendCall(p, 77, 'create_order', { item: 'book' });
      expect(await waitForExit(p.raw.child, 15_000)).toEqual({ code: 1, signal: null });
      await expect(p.response(77, 300)).rejects.toThrow(/timed out/);
      // The write before forwarding failed, so the second call never reached the upstream.
      expect(executions(p.ledger(), 'create_order')).toHaveLength(1);
      expect(p.raw.stderr()).toMatch(/report file could not be written/);
      expectNoStackTrace(p);
      await expectGone([pid]);
    });
  });
});

// --- NOT_TESTED causes
describe.concurrent('R-2.3 NOT_TESTED causes', () => {
  const COUNTING = nodeFixture('counting-server.mjs');

  /** One session of the in-process proxy, as `test/support/agents.ts` drives the compiled one. */
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
  const ledgerPids = (run: { ledgerFile: string }): number[] => [
    ...new Set(readLedger(run.ledgerFile).map((entry) => entry.pid)),
  ];

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
});
