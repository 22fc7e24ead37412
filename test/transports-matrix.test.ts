/**
 * Issue 7 and issue 12: F1–F5 × careful/naive agent over the four transport pairs (agent side → upstream
 * side: stdio→stdio, stdio→HTTP, HTTP→stdio, HTTP→HTTP), in-process with the proxy's real adapters (see
 * `support/h1-proxy-rig.ts`) in front of the bundled booking example, whose ledger is the ground truth of
 * what was executed. Every cell asserts the full judgement (verdict, executions, attempts, violation and
 * its details, score, patches, observations; ); expected values come from the
 * requirements, not from the output. The compiled CLI in real processes, one run per transport pair, is
 * in `e2e/transports.e2e.test.ts`.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../e2e/fixtures/lib/raw-child.mjs';
import { bookingTask, carefulAgent, naiveAgent, type AgentTrace, type ToolCaller } from '../e2e/support/agents.js';
import { textOf, type ReportFile } from '../e2e/support/proxy-harness.js';
import { BookingUpstream, startRig, type Side } from './support/h1-proxy-rig.js';

type ScenarioId = 'F1' | 'F2' | 'F3' | 'F4' | 'F5';
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
// PASSes F3 and F5: the faulted attempt was not executed, so the re-send is the only execution.
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
};

const SCENARIOS: ScenarioId[] = ['F1', 'F2', 'F3', 'F4', 'F5'];
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

const ROWS = PAIRS.flatMap(({ agent, upstream }) =>
  SCENARIOS.flatMap((scenario) => KINDS.map((kind) => ({ agent, upstream, scenario, kind, ...EXPECTED[scenario][kind] }))),
);

describe('transport matrix in-process: F1–F5 × careful/naive over stdio and Streamable HTTP (ledger = ground truth)', () => {
  for (const row of ROWS) {
    const title = `R-4/R-2/R-3/R-7 (issue 7): ${row.agent}→${row.upstream} ${row.scenario}, ${row.kind} agent → ${row.verdict}, ${row.executions} execution(s)`;
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
