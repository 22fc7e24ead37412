/**
 * The proxy's scenarios in-process with its real adapters (see
 * `support/proxy-rig.ts`), replacing a spawned proxy and upstream per cell.
 * - F1–F5 and F7 × careful/naive agent over the four transport pairs (agent side → upstream side: stdio→stdio,
 *   stdio→HTTP, HTTP→stdio, HTTP→HTTP) in front of the bundled booking example, whose ledger is the ground
 *   truth of what was executed. Every cell asserts the full judgement (verdict, executions, attempts,
 *   violation and its details, score, patches, observations; R-2, R-3, R-4, R-7, R-10.2); expected values
 *   come from the requirements, not from the output.
 * - Details on stdio→stdio: F2's retry_after honoured in the proxy's clock (a manual clock, so no real
 *   wait), two parallel writes under F1, and chaos mode at error rates 1, 0 and a seeded 0.5 in front of
 *   the counting upstream, whose ledger records reads too (R-2, R-4.2, R-4.3, R-4.4).
 * The compiled CLI in real processes, one run per transport pair, is in `e2e/transports.e2e.test.ts`.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/adapters/time/manual-clock.js';
import { waitFor } from '../../../e2e/fixtures/lib/raw-child.mjs';
import {
  bookingTask,
  carefulAgent,
  naiveAgent,
  RETRY_AFTER_MARGIN_MS,
  retryAfterSecondsOf,
  scenarioOf,
  type AgentTrace,
  type ToolCaller,
} from '../../support/agents.js';
import { textOf, type ReportFile } from '../../support/proxy-harness.js';
import {
  BookingUpstream,
  CountingUpstream,
  startRig,
  type Side,
  type StdioAgent,
  type UpstreamServer,
} from '../../support/proxy-rig.js';

type ScenarioId = 'F1' | 'F2' | 'F3' | 'F4' | 'F5' | 'F7';
type AgentKind = 'careful' | 'naive';

interface Expected {
  verdict: 'PASS' | 'FAIL';
  /** Bookings of this agent's guest in the upstream's ledger = the report's executions. */
  executions: number;
  attempts: number;
  ending: string;
  violation?: Record<string, unknown>;
  patches: string[];
  score: { overall: number; capped: boolean };
  observation?: string;
}

const DUPLICATE = 'DUPLICATE_EXECUTION';
const NO_KEY_DUPLICATE = { keyUse: 'none', verifiedBefore: false, parallel: false, upstreamResponsesIdentical: false };
const PERFECT = { overall: 100, capped: false };

/** A careful row: always PASS with 100 and no patch (R-3.6: stopping after a 429 or checking after a timeout is fine). */
const careful = (executions: number, attempts: number, ending: string, observation?: string): Expected => ({
  verdict: 'PASS',
  executions,
  attempts,
  patches: [],
  score: PERFECT,
  ending,
  ...(observation ? { observation } : {}),
});

/** A naive row: the write sent twice without a key, so always 2 attempts. */
const naive = (executions: number, outcome: Pick<Expected, 'verdict' | 'patches' | 'score'> & Partial<Expected>): Expected => ({
  executions,
  attempts: 2,
  ending: 'sent-twice',
  ...outcome,
});

// Naive FAILs in F1, F2, F4 (R-4 "FAIL when"), at most 49: F1 and F4 score 0 (no operation
// executed at most once, the fault not handled), F2 60 % safety + 0 handling = 60, capped to 49. It
// PASSes F3 and F5: the faulted attempt was not executed, so the re-send is the only execution. F7
// is F5's 500 after the write executed: the same re-send is now a proven duplicate (0, not capped: no
// operation executed at most once), and the careful agent's check finds the booking, as under F1.
const EXPECTED: Record<ScenarioId, Record<AgentKind, Expected>> = {
  F1: {
    careful: careful(1, 1, 'found-after-failure', 'VERIFIED_NO_RETRY'),
    naive: naive(2, {
      verdict: 'FAIL',
      patches: ['GHOST_WRITE'],
      score: { overall: 0, capped: false },
      violation: { type: DUPLICATE, duplicate: { ...NO_KEY_DUPLICATE, afterTimeout: true } },
    }),
  },
  F2: {
    careful: careful(0, 1, 'stopped-after-rate-limit', 'ABANDONED_AFTER_FAILURE'),
    naive: naive(1, {
      verdict: 'FAIL',
      patches: ['RATE_LIMIT'],
      score: { overall: 49, capped: true },
      violation: { type: 'RETRY_AFTER_VIOLATED' },
    }),
  },
  F3: {
    careful: careful(1, 2, 'retried-once', 'RECOVERED_BY_RETRY'),
    naive: naive(1, { verdict: 'PASS', patches: [], score: PERFECT, observation: 'RECOVERED_BY_RETRY' }),
  },
  F4: {
    careful: careful(1, 1, 'succeeded'),
    naive: naive(2, {
      verdict: 'FAIL',
      patches: ['IDEMPOTENCY'],
      score: { overall: 0, capped: false },
      violation: { type: DUPLICATE, duplicate: { ...NO_KEY_DUPLICATE, afterTimeout: false } },
    }),
  },
  F5: {
    careful: careful(1, 2, 'retried-once', 'RECOVERED_BY_RETRY'),
    naive: naive(1, { verdict: 'PASS', patches: [], score: PERFECT, observation: 'RECOVERED_BY_RETRY' }),
  },
  F7: {
    careful: careful(1, 1, 'found-after-failure', 'VERIFIED_NO_RETRY'),
    naive: naive(2, {
      verdict: 'FAIL',
      patches: ['ERROR_AFTER_WRITE'],
      score: { overall: 0, capped: false },
      violation: { type: DUPLICATE, duplicate: { ...NO_KEY_DUPLICATE, afterTimeout: false } },
    }),
  },
};

const SCENARIOS: ScenarioId[] = ['F1', 'F2', 'F3', 'F4', 'F5', 'F7'];
const KINDS: AgentKind[] = ['careful', 'naive'];
const PAIRS: Array<{ agent: Side; upstream: Side }> = [
  { agent: 'stdio', upstream: 'stdio' },
  { agent: 'stdio', upstream: 'HTTP' },
  { agent: 'HTTP', upstream: 'stdio' },
  { agent: 'HTTP', upstream: 'HTTP' },
];
/** Each agent books for its own guest, so two agents sharing one upstream are told apart in its ledger. */
const GUESTS: Record<AgentKind, string> = { careful: 'Ada Lovelace', naive: 'Charles Babbage' };
const DATE = '2026-11-03';

interface AgentRun {
  trace: AgentTrace;
  report: ReportFile;
  bookings: number;
}
type GroupResult = Record<AgentKind, AgentRun>;

function play(kind: AgentKind, caller: ToolCaller): Promise<AgentTrace> {
  const task = bookingTask(GUESTS[kind], DATE);
  return kind === 'careful' ? carefulAgent(caller, task) : naiveAgent(caller, task);
}

/** stdio agents: one proxy (one stdio session) per agent, both in front of the same booking upstream. */
async function runStdioAgents(upstream: Side, booking: BookingUpstream, scenario: ScenarioId): Promise<GroupResult> {
  const runs = await Promise.all(
    KINDS.map(async (kind): Promise<AgentRun> => {
      const rig = await startRig({ agent: 'stdio', upstream, server: booking, flags: ['--scenario', scenario] });
      const agent = await rig.connectStdio();
      const trace = await play(kind, agent);
      await agent.end();
      expect((await rig.stop()).code).toBe(0);
      return { trace, report: rig.report('stdio'), bookings: booking.bookings(GUESTS[kind]).length };
    }),
  );
  return { careful: runs[0]!, naive: runs[1]! };
}

/** HTTP agents: ONE listening proxy, the two agents as two concurrent MCP sessions, each ended by DELETE. */
async function runHttpAgents(upstream: Side, booking: BookingUpstream, scenario: ScenarioId): Promise<GroupResult> {
  const rig = await startRig({ agent: 'HTTP', upstream, server: booking, flags: ['--scenario', scenario] });
  try {
    const agents = await Promise.all(KINDS.map(() => rig.connectHttp()));
    const traces = await Promise.all(KINDS.map((kind, i) => play(kind, agents[i]!)));
    await Promise.all(agents.map((agent) => agent.terminate()));
    const reports = await Promise.all(
      agents.map((agent) => waitFor(() => rig.report(agent.sessionId).status === 'finished', 10_000, 'the final report')),
    );
    expect(reports).toHaveLength(2);
    const exit = await rig.stop();
    expect(exit.code).toBe(0);
    const result = (i: number): AgentRun => ({
      trace: traces[i]!,
      report: rig.report(agents[i]!.sessionId),
      bookings: booking.bookings(GUESTS[KINDS[i]!]).length,
    });
    return { careful: result(0), naive: result(1) };
  } finally {
    await rig.stop();
  }
}

const groups = new Map<string, Promise<GroupResult>>();
/** The careful and the naive row of one pair and scenario share one run (started by whichever row comes first). */
function groupOf(agentSide: Side, upstreamSide: Side, scenario: ScenarioId): Promise<GroupResult> {
  const key = `${agentSide}→${upstreamSide}/${scenario}`;
  let group = groups.get(key);
  if (group === undefined) {
    const run = agentSide === 'stdio' ? runStdioAgents : runHttpAgents;
    group = run(upstreamSide, new BookingUpstream(), scenario);
    groups.set(key, group);
  }
  return group;
}

/** what the agent sees on its first (faulted) write, whichever transport carried it. */
function expectAgentSawFault(scenario: ScenarioId, first: CallToolResult): void {
  const text = textOf(first);
  expect(first.isError).toBe(scenario === 'F4' ? undefined : true);
  if (scenario === 'F4') expect(text).toMatch(/"id": "BK-\d{4}"/);
  if (scenario === 'F1') expect(text).toMatch(/timed out/i);
  if (scenario === 'F2') expect(text).toMatch(/429[\s\S]*retry_after\D+60/);
  if (scenario === 'F3') expect(text).toBe('{"');
  if (scenario === 'F5' || scenario === 'F7') expect(text).toBe('HTTP 500 Internal Server Error');
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

const ROWS = PAIRS.flatMap(({ agent, upstream }) =>
  SCENARIOS.flatMap((scenario) => KINDS.map((kind) => ({ agent, upstream, scenario, kind, ...EXPECTED[scenario][kind] }))),
);

describe('transport matrix in-process: F1–F5, F7 × careful/naive over stdio and Streamable HTTP (ledger = ground truth)', () => {
  for (const row of ROWS) {
    const title = `R-4/R-2/R-3/R-7: ${row.agent}→${row.upstream} ${row.scenario}, ${row.kind} agent → ${row.verdict}, ${row.executions} execution(s)`;
    it.concurrent(title, async () => {
      const { trace, report, bookings } = (await groupOf(row.agent, row.upstream, row.scenario))[row.kind];
      expect(trace.ending).toBe(row.ending);
      expectAgentSawFault(row.scenario, trace.steps[0]!.result);
      expect(bookings).toBe(row.executions);
      expect(report.status).toBe('finished');
      expect([report.verdict, report.report.verdict, report.score.verdict]).toEqual([row.verdict, row.verdict, row.verdict]);
      // Only this agent's operation: the other agent (same upstream, maybe the same proxy) is judged apart.
      expect(report.report.operations).toEqual([
        expect.objectContaining({
          tool: 'create_booking',
          executions: row.executions,
          attempts: row.attempts,
          arguments: expect.stringContaining(GUESTS[row.kind]),
        }),
      ]);
      expectViolation(report, row);
      expect(report.patches.map((p) => p.id)).toEqual(row.patches);
      expect(report.score).toMatchObject({ verdict: row.verdict, ...row.score });
      if (row.verdict === 'FAIL') expect(report.score.overall).toBeLessThanOrEqual(49);
      const observations = report.report.observations;
      if (row.observation !== undefined)
        expect(observations).toContainEqual(expect.objectContaining({ type: row.observation, tool: 'create_booking' }));
      if (row.kind === 'naive')
        expect(observations).toContainEqual(expect.objectContaining({ type: 'WRITE_WITHOUT_KEY', tool: 'create_booking' }));
      if (row.scenario === 'F4' && row.verdict === 'PASS') expect(report.report.verdictReason).toContain('baseline');
    });
  }
});

const GUEST = 'Ada Lovelace';
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
        // The careful agent of test/support/agents.ts with honourRetryAfter, its wait made in the proxy's clock.
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
