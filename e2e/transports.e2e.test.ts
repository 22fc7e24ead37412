/**
 * The proxy speaks Streamable HTTP on both sides, and the judge does not care. Real processes
 * on loopback only: the compiled CLI, the bundled booking server (`--http 0` or stdio; its ledger is the
 * ground truth), server-everything over HTTP, and in-test HTTP upstreams where a test needs to see the
 * requests. Each transport pair (agent side → upstream side) is run once here as real processes, under
 * F1 (the fault whose answer replaces an executed write): stdio→stdio, stdio→HTTP and HTTP→stdio below,
 * HTTP→HTTP in "agents over Streamable HTTP". The full matrix F1–F5 × careful/naive × the four pairs runs
 * in-process with the same adapters in `test/transports-matrix.test.ts`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startStreamableFixture } from '../test/fixtures/http-upstream/fixture-servers.js';
import { isAlive, waitFor, waitForExit } from './fixtures/lib/raw-child.mjs';
import { bookingTask, carefulAgent, endSession, naiveAgent, withProxy, type AgentTrace } from '../test/support/agents.js';
import {
  bookingsIn,
  connectHttpAgent,
  freePort,
  removeDir,
  startBookingHttp,
  startEverythingHttp,
  startListeningProxy,
  stopAll,
  tempDir,
  type BookingHttp,
  type HttpAgent,
  type ListeningProxy,
} from '../test/support/http-harness.js';
import { BOOKING_SERVER, ROOT, textOf, type ReportFile } from '../test/support/proxy-harness.js';
import { spawnProxy } from '../test/support/raw-proxy.js';

type Side = 'stdio' | 'HTTP';
type AgentKind = 'careful' | 'naive';

interface Expected {
  verdict: 'PASS' | 'FAIL';
  /** Bookings of this agent's guest in the upstream's ledger = the report's executions. */
  executions: number;
  attempts: number;
  ending: string;
  violation?: string;
  patches: string[];
}

// F1 (R-4 "FAIL when"): the careful agent checks and finds its booking → PASS; the naive agent re-sends
// the ghost write → FAIL with 2 executions.
const EXPECTED: Record<AgentKind, Expected> = {
  careful: { verdict: 'PASS', executions: 1, attempts: 1, ending: 'found-after-failure', patches: [] },
  naive: {
    verdict: 'FAIL',
    executions: 2,
    attempts: 2,
    ending: 'sent-twice',
    violation: 'DUPLICATE_EXECUTION',
    patches: ['GHOST_WRITE'],
  },
};

/**
 * One real-process run per transport pair (HTTP→HTTP: the two-session test below). A stdio proxy serves
 * one agent, so the stdio pairs run the naive agent (the FAIL, two real executions); the HTTP agent side
 * serves both agents as two concurrent sessions of one proxy.
 */
const PAIRS: Array<{ agent: Side; upstream: Side; kinds: AgentKind[] }> = [
  { agent: 'stdio', upstream: 'stdio', kinds: ['naive'] },
  { agent: 'stdio', upstream: 'HTTP', kinds: ['naive'] },
  { agent: 'HTTP', upstream: 'stdio', kinds: ['careful', 'naive'] },
];
/** Each agent books for its own guest, so two agents sharing one upstream are told apart in its ledger. */
const GUESTS: Record<AgentKind, string> = { careful: 'Ada Lovelace', naive: 'Charles Babbage' };
const DATE = '2026-11-03';
const STDIO_BOOKING = ['--upstream-command', process.execPath, '--upstream-arg', BOOKING_SERVER];
const F1 = ['--scenario', 'F1'];

/** What one agent did and what the proxy and the upstream concluded. */
interface AgentRun {
  trace: AgentTrace;
  report: ReportFile;
  /** This agent's bookings in the upstream's ledger. */
  bookings: number;
}
type GroupResult = Partial<Record<AgentKind, AgentRun>>;

function play(kind: AgentKind, caller: Pick<HttpAgent, 'call'>): Promise<AgentTrace> {
  const task = bookingTask(GUESTS[kind], DATE);
  return kind === 'careful' ? carefulAgent(caller, task) : naiveAgent(caller, task);
}

/** stdio agents: one proxy (one stdio session) per agent, in front of the upstream flags. */
async function runStdioAgents(flags: string[], ledgerFile: string | undefined, kinds: AgentKind[]): Promise<GroupResult> {
  const runs = await Promise.all(
    kinds.map((kind) =>
      withProxy({ flags, extra: F1 }, async (run): Promise<[AgentKind, AgentRun]> => {
        const trace = await play(kind, run);
        const report = await endSession(run);
        return [kind, { trace, report, bookings: bookingsIn(ledgerFile ?? run.ledgerFile, GUESTS[kind]).length }];
      }),
    ),
  );
  return Object.fromEntries(runs);
}

/** HTTP agents: ONE listening proxy, the agents as concurrent MCP sessions, each ended by DELETE; SIGTERM → exit 0. */
async function runHttpAgents(flags: string[], ledgerFile: string | undefined, kinds: AgentKind[]): Promise<GroupResult> {
  const proxy = await startListeningProxy(flags, F1);
  try {
    const agents = await Promise.all(kinds.map(() => connectHttpAgent(proxy.url)));
    const traces = await Promise.all(kinds.map((kind, i) => play(kind, agents[i]!)));
    await Promise.all(agents.map((agent) => agent.terminate()));
    const reports = await Promise.all(
      agents.map((agent) => proxy.waitForReport(agent.sessionId, (r) => r.status === 'finished')),
    );
    const exit = await proxy.proc.stop('SIGTERM');
    if (exit.code !== 0) throw new Error(`the listening proxy exited with ${JSON.stringify(exit)}: ${proxy.proc.stderr()}`);
    return Object.fromEntries(
      kinds.map((kind, i) => [
        kind,
        { trace: traces[i]!, report: reports[i]!, bookings: bookingsIn(ledgerFile ?? proxy.ledgerFile, GUESTS[kind]).length },
      ]),
    );
  } finally {
    await proxy.proc.stop('SIGKILL', 5_000).catch(() => undefined);
    removeDir(proxy.dir);
  }
}

/** Runs the agents of one transport pair under F1: one upstream, one proxy per agent session side. */
async function runPair(agentSide: Side, upstreamSide: Side, kinds: AgentKind[]): Promise<GroupResult> {
  const dir = tempDir();
  let booking: BookingHttp | undefined;
  try {
    if (upstreamSide === 'HTTP') booking = await startBookingHttp(join(dir, 'ledger.jsonl'));
    const flags = booking === undefined ? STDIO_BOOKING : ['--upstream-url', booking.url];
    const run = agentSide === 'stdio' ? runStdioAgents : runHttpAgents;
    return await run(flags, booking?.ledgerFile, kinds);
  } finally {
    await booking?.proc.stop('SIGTERM').catch(() => undefined);
    removeDir(dir);
  }
}

/** what the agent sees on its first (faulted) write, whichever transport carried it. */
function expectAgentSawF1(first: CallToolResult): void {
  expect(first.isError).toBe(true);
  expect(textOf(first)).toMatch(/timed out/i);
}

// The pairs run concurrently: only kill leftovers once all of them are done.
afterAll(stopAll);

describe('each transport pair as real processes: F1 × careful/naive (ledger = ground truth)', () => {
  for (const pair of PAIRS) {
    const who = pair.kinds.map((kind) => `${kind} → ${EXPECTED[kind].verdict}`).join(', ');
    it.concurrent(
      `R-4/R-2: ${pair.agent}→${pair.upstream} F1 with the compiled CLI: ${who}, executions counted in the upstream's ledger`,
      async () => {
        const group = await runPair(pair.agent, pair.upstream, pair.kinds);
        for (const kind of pair.kinds) {
          const row = EXPECTED[kind];
          const { trace, report, bookings } = group[kind]!;
          expect(trace.ending).toBe(row.ending);
          expectAgentSawF1(trace.steps[0]!.result);
          expect(bookings).toBe(row.executions);
          expect(report.status).toBe('finished');
          expect([report.verdict, report.report.verdict, report.score.verdict]).toEqual([row.verdict, row.verdict, row.verdict]);
          // Only this agent's operation: the other agent (same upstream, maybe the same proxy) is judged apart.
          expect(report.report.operations).toEqual([
            expect.objectContaining({
              tool: 'create_booking',
              executions: row.executions,
              attempts: row.attempts,
              arguments: expect.stringContaining(GUESTS[kind]),
            }),
          ]);
          expect(report.report.violations.map((v) => v.type)).toEqual(row.violation === undefined ? [] : [row.violation]);
          expect(report.patches.map((p) => p.id)).toEqual(row.patches);
        }
      },
      90_000,
    );
  }
});

describe('real servers and upstream failures over Streamable HTTP', () => {
  afterEach(stopAll);

  it('R-8.3/R-8.4/R-8.5: server-everything over HTTP behind the proxy: annotations classify its kebab-case tools, tools/list adds the audit tools, echo answers, instructions reach the agent', async () => {
    const everything = await startEverythingHttp();
    const proxy = await startListeningProxy(['--upstream-url', everything.url]);
    try {
      const stderr = proxy.proc.stderr();
      // the proxy declares sampling, elicitation and roots upstream (the agent answers them), so
      // server-everything adds its four tools for them to its 13.
      expect(stderr).toContain('Upstream tools (17):');
      expect(stderr).toMatch(/\bread\s+echo\s+\(annotation readOnlyHint=true\)/);
      expect(stderr).toMatch(/\bread\s+get-sum\s+\(annotation readOnlyHint=true\)/);
      expect(stderr).toMatch(/\bwrite\s+toggle-simulated-logging\s+\(annotation readOnlyHint=false\)/);
      expect(stderr).toMatch(/\bwrite\s+gzip-file-as-resource\s+\(annotation readOnlyHint=false\)/);
      const agent = await connectHttpAgent(proxy.url);
      expect(agent.client.getInstructions()).toMatch(/^# Everything Server/);
      const names = (await agent.client.listTools()).tools.map((tool) => tool.name);
      expect(names).toHaveLength(19);
      expect(names).toEqual(
        expect.arrayContaining(['echo', 'get-sum', 'gzip-file-as-resource', 'cuonztech__get_report', 'cuonztech__get_score']),
      );
      const echoed = await agent.call('echo', { message: 'hi' });
      expect(echoed).toEqual({ content: [{ type: 'text', text: 'Echo: hi' }] });
      await agent.terminate();
      const report = await proxy.waitForReport(agent.sessionId, (r) => r.status === 'finished');
      expect(report.report.coverage).toMatchObject({ calls: { read: 1, write: 0, unclassified: 0 } });
      expect(report.report.operations).toEqual([]);
      expect(await proxy.proc.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    } finally {
      await everything.proc.stop('SIGTERM').catch(() => undefined);
      removeDir(proxy.dir);
    }
  });

  it("R-8.5: progress the agent asks for passes through — server-everything over HTTP sends notifications/progress, the proxy writes every one on the call's own --listen stream before its answer, with the agent's token", async () => {
    const everything = await startEverythingHttp();
    const proxy = await startListeningProxy(['--upstream-url', everything.url]);
    // Raw HTTP, read in order (an SDK client runs progress handlers a few microtasks late and drops a
    // progress whose answer came in the same read: the client's own race, not what is tested here).
    const post = (body: Record<string, unknown>, sessionId?: string) =>
      fetch(proxy.url, {
        method: 'POST',
        headers: {
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
          ...(sessionId === undefined ? {} : { 'mcp-session-id': sessionId }),
        },
        body: JSON.stringify(body),
      });
    try {
      const init = await post({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      });
      const sessionId = init.headers.get('mcp-session-id')!;
      await init.text();
      await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, sessionId)).text();
      const token = 'agent-token-9';
      const reply = await post(
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: {
            name: 'trigger-long-running-operation',
            arguments: { duration: 1, steps: 4 },
            _meta: { progressToken: token },
          },
        },
        sessionId,
      );
      const messages = (await reply.text())
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);
      const answerAt = messages.findIndex((m) => m['id'] === 1);
      expect(JSON.stringify(messages[answerAt])).toMatch(/Long running operation completed/);
      expect(messages.slice(0, answerAt).map((m) => [m['method'], m['params']])).toEqual(
        [1, 2, 3, 4].map((progress) => ['notifications/progress', { progress, total: 4, progressToken: token }]),
      );
      await fetch(proxy.url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } });
      const report = await proxy.waitForReport(sessionId, (r) => r.status === 'finished');
      expect(report.report.coverage).toMatchObject({ calls: { read: 1, write: 0, unclassified: 0 } });
      expect(await proxy.proc.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    } finally {
      await everything.proc.stop('SIGTERM').catch(() => undefined);
      removeDir(proxy.dir);
    }
  });

  it('R-8.1: --upstream-header-env sends the token on every request; it is not in the process list, stderr or the report', async () => {
    const secret = 'e2e-secret-7f3a9c1d';
    const fixture = await startStreamableFixture({ token: secret });
    try {
      const flags = [
        '--upstream-url',
        fixture.url.href,
        '--upstream-header-env',
        'Authorization=MY_TOKEN',
        '--upstream-header',
        'X-Harness-E2E: transports',
      ];
      await withProxy({ flags, env: { MY_TOKEN: `Bearer ${secret}` } }, async (run) => {
        const cmdline = readFileSync(`/proc/${run.pid}/cmdline`, 'utf8').split('\0');
        expect(cmdline).toContain('Authorization=MY_TOKEN');
        expect(cmdline.join(' ')).not.toContain(secret);
        expect(textOf(await run.call('echo', { text: 'hi' }))).toBe('done');
        await endSession(run);
        await waitFor(
          () => fixture.requests.some((r) => r.method === 'DELETE'),
          10_000,
          'the DELETE that ends the upstream session',
        );
        expect([run.stderr(), readFileSync(run.reportFile, 'utf8')].join('\n')).not.toContain(secret);
      });
      expect(fixture.executed.get('echo')).toBe(1);
      expect(new Set(fixture.requests.map((r) => r.method))).toEqual(new Set(['POST', 'GET', 'DELETE']));
      for (const request of fixture.requests) {
        expect([request.method, request.headers.authorization, request.headers['x-harness-e2e']]).toEqual([
          request.method,
          `Bearer ${secret}`,
          'transports',
        ]);
      }
    } finally {
      await fixture.close();
    }
  });

  it('R-8.9: upstream down at start (closed port) → exit 1, one line, startupError in the report file', async () => {
    const url = `http://127.0.0.1:${await freePort()}/mcp`;
    const proxy = spawnProxy(['--upstream-url', url]);
    try {
      expect(await waitForExit(proxy.raw.child, 20_000)).toEqual({ code: 1, signal: null });
      const lines = proxy.raw.stderr().trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(url);
      expect(proxy.report().startupError).toContain(url);
    } finally {
      await proxy.dispose();
    }
  });

  it('R-8.7/R-10.2: upstream killed mid-call → that call is EXECUTION_UNKNOWN, the next gets UPSTREAM_UNAVAILABLE', async () => {
    const dir = tempDir();
    try {
      const booking = await startBookingHttp(join(dir, 'ledger.jsonl'), { BOOKING_DELAY_MS: '10000' });
      await withProxy({ flags: ['--upstream-url', booking.url] }, async (run) => {
        const pending = run.call('create_booking', { guest: 'Grace Hopper', date: DATE, idempotency_key: 'k-grace' });
        // The server waits 10 s before it executes the write; kill it 1.5 s into that wait (nothing to poll:
        // the ledger is written only after the wait, and the proxy publishes the report only on the answer).
        await sleep(1_500);
        expect(await booking.proc.stop('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });
        expect((await pending).isError).toBe(true);
        expect(run.report().report.operations).toEqual([
          expect.objectContaining({ tool: 'create_booking', executions: 0, outcome: 'EXECUTION_UNKNOWN' }),
        ]);
        await waitFor(() => run.stderr().includes('upstream crashed'), 10_000, '"upstream crashed" on stderr');
        const next = await run.call('create_booking', { guest: 'Alan Turing', date: DATE });
        expect(next.isError).toBe(true);
        expect(textOf(next)).toContain('UPSTREAM_UNAVAILABLE');
        const report = await endSession(run);
        expect(report.report.observations).toContainEqual(
          expect.objectContaining({ type: 'EXECUTION_UNKNOWN', tool: 'create_booking' }),
        );
      });
      expect(booking.bookings()).toEqual([]);
    } finally {
      removeDir(dir);
    }
  });
});

describe('agents over Streamable HTTP: one evaluation per MCP session', () => {
  afterEach(stopAll);

  /** A's report FAILs on its own duplicate only; B's PASSes on its own write and `bReads` reads only. */
  function expectJudgedApart(a: ReportFile, b: ReportFile, bReads: number): void {
    expect([a.verdict, b.verdict]).toEqual(['FAIL', 'PASS']);
    expect(a.report.operations).toEqual([
      expect.objectContaining({ executions: 2, attempts: 2, arguments: expect.stringContaining('Nadia Naive') }),
    ]);
    expect(b.report.operations).toEqual([
      expect.objectContaining({ executions: 1, attempts: 1, arguments: expect.stringContaining('Carl Careful') }),
    ]);
    expect(a.report.coverage).toMatchObject({ calls: { read: 0, write: 2 } });
    expect(b.report.coverage).toMatchObject({ calls: { read: bReads, write: 1 } });
    expect(a.patches.map((p) => p.id)).toEqual(['GHOST_WRITE']);
    expect(b.report.observations).toContainEqual(expect.objectContaining({ type: 'VERIFIED_NO_RETRY' }));
  }

  it('R-2: two concurrent sessions on one --listen proxy, interleaved, are judged apart; DELETE finishes one report; SIGTERM → exit 0, all finished', async () => {
    const dir = tempDir();
    let proxy: ListeningProxy | undefined;
    try {
      const booking = await startBookingHttp(join(dir, 'ledger.jsonl'));
      proxy = await startListeningProxy(['--upstream-url', booking.url], ['--scenario', 'F1']);
      const [a, b] = await Promise.all([connectHttpAgent(proxy.url, 'agent-a'), connectHttpAgent(proxy.url, 'agent-b')]);
      const naive = bookingTask('Nadia Naive', DATE).args;
      const careful = { ...bookingTask('Carl Careful', DATE).args, idempotency_key: 'k-carl' };
      // Interleaved: each session's first write is its own F1 ghost write.
      expect(textOf(await a.call('create_booking', naive))).toMatch(/timed out/i);
      expect(textOf(await b.call('create_booking', careful))).toMatch(/timed out/i);
      expect((await a.call('create_booking', naive)).isError).toBeUndefined();
      expect(textOf(await b.call('search_bookings', { guest: 'Carl Careful', date: DATE }))).toContain('Carl Careful');
      expect([booking.bookings('Nadia Naive').length, booking.bookings('Carl Careful').length]).toEqual([2, 1]);

      await a.terminate();
      const reportA = await proxy.waitForReport(a.sessionId, (r) => r.status === 'finished');
      expect(proxy.reportFiles()).toHaveLength(2);
      expect(proxy.reportOf(b.sessionId).status).toBe('running');
      expectJudgedApart(reportA, proxy.reportOf(b.sessionId), 1);
      // The proxy keeps serving: B goes on, and a new agent can still connect.
      expect((await b.call('search_bookings', { guest: 'Nadia Naive' })).isError).toBeUndefined();
      const c = await connectHttpAgent(proxy.url, 'agent-c');

      expect(await proxy.proc.stop('SIGTERM')).toEqual({ code: 0, signal: null });
      const reports = [a, b, c].map((agent) => proxy!.reportOf(agent.sessionId));
      expect(reports.map((r) => r.status)).toEqual(['finished', 'finished', 'finished']);
      expectJudgedApart(reports[0]!, reports[1]!, 2);
      expect(reports[2]!.report.coverage).toMatchObject({ calls: { read: 0, write: 0 } });
      expect(proxy.reportFiles()).toHaveLength(3);
      expect(isAlive(proxy.proc.pid)).toBe(false);
    } finally {
      await stopAll();
      if (proxy !== undefined) removeDir(proxy.dir);
      removeDir(dir);
    }
  });

  it('R-8.8/R-9.2: a DELETE while a write is at the upstream (3.5 s, longer than the 2 s stop drain) → the session waits for it; the finished report counts the execution the upstream ledger holds', async () => {
    await withCountingListeningProxy(async (proxy, executed) => {
      const agent = await connectHttpAgent(proxy.url);
      const answer = agent.call('create_order', { item: 'pen', sleepMs: 3500 }).catch(() => null);
      await proxy.waitForReport(agent.sessionId, (r) => r.report.operations.length === 1);
      await agent.terminate();
      const report = await proxy.waitForReport(agent.sessionId, (r) => r.status === 'finished', 15_000);
      await answer;
      expect(executed()).toHaveLength(1);
      expect(report.report.operations).toEqual([expect.objectContaining({ tool: 'create_order', executions: 1, attempts: 1 })]);
      expect(await proxy.proc.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    });
  });

  it('R-8.8/R-9.2: SIGTERM while a call is at the upstream → the agent still gets the answer the upstream executed, and the report (finished) counts exactly that execution', async () => {
    await withCountingListeningProxy(async (proxy, executed) => {
      const agent = await connectHttpAgent(proxy.url);
      const answer = agent.call('create_order', { item: 'pen', sleepMs: 700 });
      // The report shows the call at the upstream before it gets there; the upstream takes 700 ms.
      await proxy.waitForReport(agent.sessionId, (r) => r.report.operations.length === 1);
      const stopped = proxy.proc.stop('SIGTERM');
      expect(textOf(await answer)).toBe('ok create_order #1');
      expect(await stopped).toEqual({ code: 0, signal: null });
      expect(executed()).toHaveLength(1);
      const report = proxy.reportOf(agent.sessionId);
      expect(report.status).toBe('finished');
      expect(report.report.operations).toEqual([expect.objectContaining({ tool: 'create_order', executions: 1, attempts: 1 })]);
    });
  });
});

/** A `--listen` proxy in front of the counting upstream; `executed()` reads the upstream's own ledger. */
async function withCountingListeningProxy(
  test: (proxy: ListeningProxy, executed: () => string[]) => Promise<void>,
): Promise<void> {
  const dir = tempDir();
  const ledger = join(dir, 'ledger.jsonl');
  let proxy: ListeningProxy | undefined;
  try {
    const counting = join(ROOT, 'e2e', 'fixtures', 'counting-server.mjs');
    proxy = await startListeningProxy(['--upstream-command', process.execPath, '--upstream-arg', counting], [], {
      FIXTURE_LEDGER: ledger,
    });
    await test(proxy, () => readFileSync(ledger, 'utf8').trim().split('\n'));
  } finally {
    await stopAll();
    if (proxy !== undefined) removeDir(proxy.dir);
    removeDir(dir);
  }
}
