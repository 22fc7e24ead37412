/**
 * `trial --agent-command`: the user's own agent program, started once per run with the MCP
 * server to use in its environment — over stdio (the harness's own `proxy` for that run) or HTTP (a
 * listener on 127.0.0.1) — then judged. The agent here is the shipped example
 * (`examples/agents/sdk-agent.mjs`, the MCP SDK client) talking to the scripted model server. Programs
 * that crash, hang or never connect are NOT_TESTED with their exit code and stderr tail, never PASS/FAIL.
 * The agent programs and the stdio relay are real processes; the trial itself is the compiled CLI's
 * `main` in this process (its start-up as a process, and the booking server as a process per run: e2e/
 * trial-model.e2e.test.ts), in front of the bundled booking server served in this process over
 * Streamable HTTP with a fresh store and ledger per MCP session — the trial's check, then one per run.
 * One run per trial, so each run's ledger is the booking server's second session of that trial.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startModelServer, type ModelServer } from '../test/fixtures/model-server/model-server.js';
import { BIN, FIXTURES, requireBuild, ROOT } from '../test/support/proxy-harness.js';
import { startInProcessBooking, type InProcessBooking } from '../test/support/booking-http.js';
import {
  BOOKING_UPSTREAM,
  readTrialFiles,
  removeOut,
  runCompiledTrialInProcess,
  TASK,
  tempOut,
  type TrialOutput,
} from '../test/support/trial-harness.js';

const EXAMPLE_AGENT = join(ROOT, 'examples/agents/sdk-agent.mjs');
const AGENTS = join(FIXTURES, 'trial-agents');
let server: ModelServer;
let booking: InProcessBooking;
beforeAll(async () => {
  server = await startModelServer();
  booking = await startInProcessBooking();
});
afterAll(async () => {
  await booking.close();
  await server.close();
});

/** A trial of one run in front of the booking server; the run's ledger is the session after the check. */
async function runTrial(args: string[]): Promise<TrialOutput> {
  const first = booking.sessions.length;
  const output = await runCompiledTrialInProcess([...args, '--upstream-url', booking.url]);
  const sessions = booking.sessions.slice(first);
  return {
    ...output,
    ledger: (run) => {
      expect(output.runs.map((r) => r.run)).toEqual([run]);
      expect(sessions).toHaveLength(2);
      return sessions[1]!.ledger as unknown as Array<Record<string, unknown>>;
    },
  };
}
afterEach(() => {
  vi.unstubAllEnvs();
});

/** The example agent reads its model from the environment it inherits (MODEL, OPENAI_BASE_URL). */
function agentModel(name: string): void {
  vi.stubEnv('OPENAI_BASE_URL', server.baseUrl);
  vi.stubEnv('MODEL', name);
}

function expectLedgerMatchesReports(output: TrialOutput): void {
  expect(output.runs.length).toBeGreaterThan(0);
  for (const run of output.runs) {
    const reported = (run.report?.report.operations ?? []).reduce((sum, op) => sum + op.executions, 0);
    expect(output.ledger(run.run), run.run).toHaveLength(reported);
  }
}

const agent = (file: string, ...rest: string[]) => ['--agent-command', process.execPath, '--agent-arg', file, ...rest];

describe('R-13 trial --agent-command', () => {
  for (const transport of ['stdio', 'http'] as const) {
    it(`${transport}: the example SDK agent with a naive model double-books after F1 (FAIL), with a careful one it checks (PASS); ledger = report per run`, async () => {
      agentModel('naive');
      const naive = await runTrial([
        ...agent(EXAMPLE_AGENT, '--agent-transport', transport),
        ...TASK,
        '--scenario',
        'F1',
        '--runs',
        '1',
      ]);
      agentModel('careful');
      const careful = await runTrial([
        ...agent(EXAMPLE_AGENT, '--agent-transport', transport),
        ...TASK,
        '--scenario',
        'F1',
        '--runs',
        '1',
      ]);
      try {
        expect(naive.result.exitCode, String(naive.result.stderr)).toBe(0);
        expectLedgerMatchesReports(naive);
        expectLedgerMatchesReports(careful);
        // The calls the harness judged (the program's conversation is its own): the run file, the table and the progress line agree with facts.
        expect(naive.summary.groups[0]).toMatchObject({
          runs: 1,
          fail: 1,
          notTested: 0,
          extraExecutions: 1,
          medianToolCalls: 2,
        });
        expect(String(naive.result.stdout)).toMatch(/\nF1\s+1\s+0\s+1\s+0\s+1 \(in 1 run\)\s+2\n/);
        expect(String(naive.result.stderr)).toMatch(/run F1-001 \(1\/1\): FAIL \(2 tool calls/);
        for (const run of naive.runs) {
          expect(run.toolCalls).toBe(2);
          expect(naive.ledger(run.run)).toHaveLength(2);
          expect(run.agentProgram).toMatchObject({ exitCode: 0, timedOut: false });
          // The harness does not own an agent program's conversation — honesty NOT_MEASURED; facts from the report.
          const { honesty, facts } = run as unknown as { honesty: unknown; facts: Record<string, unknown> };
          expect(honesty).toBe('NOT_MEASURED');
          expect(facts).toMatchObject({
            arm: 'baseline',
            verdict: 'FAIL',
            duplicatedOperations: 1,
            faultFired: true,
            honesty: 'NOT_MEASURED',
            lostTransaction: false,
            toolCalls: 2,
          });
        }
        expect(naive.summary['honesty']).toBe('NOT_MEASURED');
        expect(
          (naive.summary['statistics'] as { scenarios: Array<{ rates: Record<string, unknown>; honesty: { measured: number } }> })
            .scenarios[0],
        ).toMatchObject({
          rates: { duplicateExecution: { count: 1, of: 1 } },
          honesty: { measured: 0 },
        });
        expect(careful.result.exitCode, String(careful.result.stderr)).toBe(0);
        expect(careful.summary.groups[0]).toMatchObject({ runs: 1, pass: 1, notTested: 0, extraExecutions: 0 });
        for (const run of careful.runs) expect(careful.ledger(run.run)).toHaveLength(1);
      } finally {
        removeOut(naive);
        removeOut(careful);
      }
    });
  }

  it("a program that crashes is NOT_TESTED with its exit code and the tail of its stderr; Node's own crash with its Error line", async () => {
    const output = await runTrial([...agent(join(AGENTS, 'crashing-agent.mjs')), '--scenario', 'F1', '--runs', '1']);
    const missing = join(AGENTS, 'no-such-agent.mjs');
    const notFound = await runTrial([...agent(missing), '--scenario', 'F1', '--runs', '1']);
    try {
      expect(output.result.exitCode).toBe(0);
      expect(output.summary.groups[0]).toMatchObject({ runs: 1, pass: 0, fail: 0, notTested: 1 });
      for (const run of output.runs) {
        expect(run.verdict).toBe('NOT_TESTED');
        expect(run.verdictReason).toBe('the agent program failed (exit code 3); stderr: starting | boom: cannot reach the model');
        expect(run.agentProgram).toMatchObject({ exitCode: 3, timedOut: false });
      }
      // Node ends its crash output with a `{ code: … }` block and its version banner: the reason is the error.
      expect(notFound.runs[0]).toMatchObject({
        verdict: 'NOT_TESTED',
        verdictReason: `the agent program failed (exit code 1); stderr: Error: Cannot find module '${missing}'`,
      });
    } finally {
      removeOut(output);
      removeOut(notFound);
    }
  });

  it('a program that exceeds --agent-timeout is killed and NOT_TESTED; one that never connects is NOT_TESTED', async () => {
    // 3 s, not less: on a loaded machine Node takes over half a second to start, and the
    // program must have written its stderr line before it is killed.
    const hanging = await runTrial([
      ...agent(join(AGENTS, 'hanging-agent.mjs'), '--agent-timeout', '3'),
      '--scenario',
      'F1',
      '--runs',
      '1',
    ]);
    const idleStdio = await runTrial([
      ...agent(join(AGENTS, 'idle-agent.mjs'), '--agent-env-var', 'AGENT_MODE=careful'),
      '--scenario',
      'F2',
      '--runs',
      '1',
    ]);
    const idleHttp = await runTrial([
      ...agent(join(AGENTS, 'idle-agent.mjs'), '--agent-transport', 'http'),
      '--scenario',
      'F2',
      '--runs',
      '1',
    ]);
    try {
      expect(hanging.runs[0]).toMatchObject({
        verdict: 'NOT_TESTED',
        verdictReason: 'the agent program exceeded --agent-timeout (3 s) and was killed; stderr: thinking forever',
      });
      expect(idleStdio.runs[0]).toMatchObject({
        verdict: 'NOT_TESTED',
        verdictReason: 'the agent program never connected to the MCP server',
      });
      // --agent-env-var reaches the program; the value is recorded only as a hash.
      expect(readFileSync(join(idleStdio.out, 'runs', 'F2-001', 'agent.stdout.log'), 'utf8')).toBe('F2-001 F2 stdio careful\n');
      expect(readFileSync(join(idleHttp.out, 'runs', 'F2-001', 'agent.stdout.log'), 'utf8')).toBe('F2-001 F2 http -\n');
      expect(readFileSync(join(idleStdio.out, 'summary.json'), 'utf8')).not.toContain('careful');
      expect(idleHttp.runs[0]).toMatchObject({
        verdict: 'NOT_TESTED',
        verdictReason: 'the agent program never connected to the MCP server',
      });
    } finally {
      removeOut(hanging);
      removeOut(idleStdio);
      removeOut(idleHttp);
    }
  });

  for (const transport of ['http', 'stdio'] as const) {
    it(`${transport}: an agent that opens a new MCP session per tool call (stdio: starts the server command twice) is judged as one agent, one report: the booking re-sent in its second session is a duplicate`, async () => {
      const output = await runTrial([
        ...agent(join(AGENTS, 'two-session-agent.mjs'), '--agent-transport', transport),
        '--scenario',
        'F1',
        '--runs',
        '1',
      ]);
      try {
        expect(output.result.exitCode, String(output.result.stderr)).toBe(0);
        expectLedgerMatchesReports(output);
        expect(output.summary.groups[0]).toMatchObject({ runs: 1, fail: 1, extraExecutions: 1 });
        for (const run of output.runs) {
          expect((run as unknown as { mcpSessions: number }).mcpSessions).toBe(2);
          // It ends each session itself (HTTP: DELETE; stdio: it closes the server's stdin, the relay sends DELETE).
          expect((run as unknown as { mcpSessionsClosedByAgent: number }).mcpSessionsClosedByAgent).toBe(2);
          expect(output.ledger(run.run)).toHaveLength(2);
        }
      } finally {
        removeOut(output);
      }
    });
  }

  it('a program that floods its stdout with 200 MB: its log keeps 16 MB and says how much was dropped; the harness process stays small (its peak RSS is measured)', async () => {
    requireBuild();
    const out = tempOut();
    const flood = 200 * 1024 * 1024;
    const child = execa(
      process.execPath,
      [
        BIN,
        'trial',
        ...agent(join(AGENTS, 'flooding-agent.mjs'), '--agent-arg', String(flood)),
        ...BOOKING_UPSTREAM,
        '--runs',
        '1',
        '--out',
        out,
      ],
      { reject: false, timeout: 120_000, stdin: 'ignore', cwd: ROOT, env: {} },
    );
    // The harness's peak resident memory (VmHWM), read from /proc while it runs (Linux only; elsewhere not measured).
    let peakKb = 0;
    const sample = setInterval(() => {
      try {
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        peakKb = Math.max(peakKb, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0));
      } catch {
        // exited
      }
    }, 50);
    const result = await child;
    clearInterval(sample);
    try {
      expect(result.exitCode, String(result.stderr)).toBe(0);
      const { runs } = readTrialFiles(out);
      expect(runs).toHaveLength(1);
      // It never connected: NOT_TESTED, as any such program.
      expect(runs[0]).toMatchObject({
        verdict: 'NOT_TESTED',
        verdictReason: 'the agent program never connected to the MCP server',
      });
      const log = join(out, 'runs', runs[0]!.run, 'agent.stdout.log');
      const note = `[cuonztech-agent-harness: ${flood - 16 * 1024 * 1024} bytes dropped here; this log keeps the first 8388608 and the last 8388608 bytes of the stream]`;
      expect(statSync(log).size).toBe(16 * 1024 * 1024 + note.length + 2);
      expect(
        readFileSync(log)
          .subarray(8 * 1024 * 1024, 8 * 1024 * 1024 + note.length + 2)
          .toString(),
      ).toBe(`\n${note}\n`);
      console.log(`flooding agent, 200 MB on stdout: harness peak RSS ${Math.round(peakKb / 1024)} MB`);
      // Generous: the harness with its 16 MB of logs in memory, far below the 200 MB it read.
      if (peakKb > 0) expect(peakKb).toBeLessThan(200 * 1024);
    } finally {
      removeOut({ out } as TrialOutput);
    }
  });
});
