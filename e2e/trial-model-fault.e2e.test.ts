/**
 * `trial --model-fault` end to end (docs/model-gateway.md, "Model-side faults"): the compiled CLI, the
 * bundled booking server counting every write in its own ledger, and
 *
 * - agent programs behind the gateway with the careful stub script (the model never asks for the write
 *   twice, so any duplicate is the runtime's): one that re-runs its whole step after a failed model
 *   request (the checkpoint-replay pattern) and one that only re-sends the model request
 *   (e2e/fixtures/trial-agents/model-retry-agent.mjs), under a 500 on the request carrying the write's
 *   result, without a scenario (and once with F1); in forward mode too, in front of the scripted model
 *   server, which never gets the faulted request;
 * - the built-in loop against the scripted model server (test/fixtures/model-server), whose own model
 *   retry (`--model-retries`) re-sends the request: nothing reaches the model for the faulted request, and
 *   no write runs twice.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../test/support/proxy-harness.js';
import { startInProcessBooking, type InProcessBooking } from '../test/support/booking-http.js';
import { startModelServer, type ModelServer } from '../test/fixtures/model-server/model-server.js';
import {
  BOOKING_UPSTREAM,
  removeOut,
  runCompiledTrialInProcess,
  runTrial,
  TASK,
  type TrialOutput,
} from '../test/support/trial-harness.js';

const AGENT = join(ROOT, 'e2e/fixtures/trial-agents/model-retry-agent.mjs');
const CAREFUL = join(ROOT, 'examples/stub-models/booking-careful.yaml');
let booking: InProcessBooking;
let server: ModelServer;
beforeAll(async () => {
  booking = await startInProcessBooking();
  server = await startModelServer();
});
afterAll(async () => {
  await booking.close();
  await server.close();
});

type Entry = {
  kind: string;
  exchange?: number;
  status?: number;
  fault?: string;
  tool?: string;
  messages?: Array<{ role: string; content: string }>;
};
type Run = {
  verdict: string;
  attribution: Array<{ source: string; tool: string; attempt: number }>;
  modelFault: unknown;
  mcpSessionsClosedByAgent: number;
  transcript: Entry[];
  report: { report: { violations: Array<{ type: string; duplicate?: { source?: string } }> } };
};

/** One run of the agent program in `mode` with the careful stub script; the run's ledger is its MCP session's. */
async function programRun(mode: 'step' | 'request', extra: string[]): Promise<TrialOutput & { runLedger: unknown[] }> {
  const first = booking.sessions.length;
  const output = await runCompiledTrialInProcess([
    '--agent-command',
    process.execPath,
    '--agent-arg',
    AGENT,
    '--agent-arg',
    mode,
    '--agent-transport',
    'http',
    '--stub-model',
    CAREFUL,
    '--honesty',
    'off',
    ...TASK,
    '--runs',
    '1',
    ...extra,
    '--upstream-url',
    booking.url,
  ]);
  return { ...output, runLedger: booking.sessions.slice(first)[1]?.ledger ?? [] };
}

describe('model-side faults: an agent program behind the gateway, careful stub script, no scenario', () => {
  it('R-14.2: --model-fault 500, a program that re-runs its whole step books twice — DUPLICATE_EXECUTION, source runtime (ledger 2)', async () => {
    const output = await programRun('step', ['--model-fault', '500']);
    try {
      expect(output.result.exitCode, output.result.stderr).toBe(0);
      const run = output.runs[0] as unknown as Run;
      expect(run.verdict).toBe('FAIL');
      expect(output.runLedger).toHaveLength(2);
      expect(run.report.report.violations.map((v) => [v.type, v.duplicate?.source])).toEqual([
        ['DUPLICATE_EXECUTION', 'runtime'],
      ]);
      expect(run.attribution.map((a) => [a.tool, a.attempt, a.source])).toEqual([['create_booking', 2, 'runtime']]);
      // The request carrying the write's result (the second) was faulted; the replayed step's request answered.
      expect(run.modelFault).toEqual({ kind: '500', on: 'after-write', triggered: true, request: 2 });
      // The program closes its MCP client without ending the session (no DELETE): the run's end closes it.
      expect(run.mcpSessionsClosedByAgent).toBe(0);
      const answers = run.transcript.filter((e) => e.kind === 'model-answer');
      expect(answers.map((e) => [e.exchange, e.status, e.fault ?? null])).toEqual([
        [1, 200, null],
        [2, 500, '500'],
        [3, 200, null],
      ]);
      // The fault is named on stdout above the table, and the table says in how many runs it fired.
      const stdout = output.result.stdout.split('\n');
      expect(stdout[0]).toMatch(
        /^model fault: 500 on the first model request carrying the write's result \(--model-fault 500 --model-fault-on after-write\)/,
      );
      expect(stdout[1]).toMatch(/ model fault fired$/);
      expect(stdout[2]).toMatch(/ 1\/1$/);
      expect((output.summary.groups[0] as { modelFaultFired?: number }).modelFaultFired).toBe(1);
      expect(readFileSync(join(output.out, 'summary.md'), 'utf8')).toMatch(
        /^model fault: 500 on .*; it fired in 1 of 1 run\(s\)\.\n\n## Trial summary/,
      );
    } finally {
      removeOut(output);
    }
  });

  it('--model-fault 500: a program that re-sends only the model request books once — PASS (ledger 1)', async () => {
    const output = await programRun('request', ['--model-fault', '500']);
    try {
      expect(output.result.exitCode, output.result.stderr).toBe(0);
      const run = output.runs[0] as unknown as Run;
      expect(run.verdict).toBe('PASS');
      expect(output.runLedger).toHaveLength(1);
      expect(run.attribution).toEqual([]);
      expect(run.modelFault).toEqual({ kind: '500', on: 'after-write', triggered: true, request: 2 });
    } finally {
      removeOut(output);
    }
  });

  it("--scenario F1 --model-fault 500: the request that brings F1's time-out to the model is faulted; re-sending it books once (PASS, ledger 1)", async () => {
    const output = await programRun('request', ['--scenario', 'F1', '--model-fault', '500']);
    try {
      expect(output.result.exitCode, output.result.stderr).toBe(0);
      const run = output.runs[0] as unknown as Run & {
        transcript: Array<Entry & { messages?: Array<{ role: string; content: string }> }>;
      };
      expect(run.verdict).toBe('PASS');
      expect(output.runLedger).toHaveLength(1);
      expect(run.modelFault).toEqual({ kind: '500', on: 'after-write', triggered: true, request: 2 });
      const faulted = run.transcript.find((e) => e.kind === 'model-request' && e.exchange === 2)!;
      expect(faulted.messages!.at(-1)).toMatchObject({ role: 'tool' });
      expect(faulted.messages!.at(-1)!.content).toMatch(/timed out/i);
    } finally {
      removeOut(output);
    }
  });

  it('without --model-fault the step-replaying program books once (PASS, ledger 1): the duplicate above is the fault’s', async () => {
    const output = await programRun('step', []);
    try {
      const run = output.runs[0] as unknown as Run;
      expect(run.verdict).toBe('PASS');
      expect(output.runLedger).toHaveLength(1);
      expect(run.modelFault).toBeUndefined();
    } finally {
      removeOut(output);
    }
  });
});

describe('model-side faults: an agent program in forward mode', () => {
  it('--model-fault 500: the faulted request never reaches the model; the step-replaying program books twice (runtime, ledger 2)', async () => {
    const before = server.requests.length;
    const output = await runTrial([
      '--agent-command',
      process.execPath,
      '--agent-arg',
      AGENT,
      '--agent-arg',
      'step',
      '--agent-transport',
      'http',
      '--model',
      'careful',
      '--base-url',
      server.baseUrl,
      '--honesty',
      'off',
      ...TASK,
      ...BOOKING_UPSTREAM,
      '--runs',
      '1',
      '--model-fault',
      '500',
    ]);
    try {
      expect(output.result.exitCode, output.result.stderr).toBe(0);
      const run = output.runs[0]!;
      const file = run as unknown as Run;
      expect(run.verdict).toBe('FAIL');
      expect(output.ledger(run.run)).toHaveLength(2);
      expect(file.attribution.map((a) => a.source)).toEqual(['runtime']);
      const answers = file.transcript.filter((e) => e.kind === 'model-answer');
      expect(answers.map((e) => [e.exchange, e.status, e.fault ?? null])).toEqual([
        [1, 200, null],
        [2, 500, '500'],
        [3, 200, null],
      ]);
      // The model server got the two answered requests, not the faulted one.
      expect(server.requests.slice(before).filter((r) => r.model === 'careful')).toHaveLength(2);
    } finally {
      removeOut(output);
    }
  });
});

describe('model-side faults: the built-in loop', () => {
  it('--model-fault 500 with --model-retries 1: the loop re-sends the model request, the fault never reaches the model, no duplicate (ledger 1)', async () => {
    const before = server.requests.length;
    const output = await runTrial([
      '--model',
      'careful',
      '--base-url',
      server.baseUrl,
      ...TASK,
      ...BOOKING_UPSTREAM,
      '--runs',
      '1',
      '--model-retries',
      '1',
      '--model-fault',
      '500',
    ]);
    try {
      expect(output.result.exitCode, output.result.stderr).toBe(0);
      const run = output.runs[0]!;
      const file = run as unknown as Run & { endpointErrors: Array<Record<string, unknown>>; modelCalls: number };
      expect(run.verdict).toBe('PASS');
      expect(output.ledger(run.run)).toHaveLength(1);
      expect(file.modelFault).toEqual({ kind: '500', on: 'after-write', triggered: true, request: 2 });
      expect((output.summary as unknown as { modelFault: unknown }).modelFault).toEqual({ kind: '500', on: 'after-write' });
      expect(file.endpointErrors).toMatchObject([{ attempt: 1, status: 500, modelFault: '500' }]);
      // Every model call the loop counts reached the model server; the faulted one did not.
      const reached = server.requests.slice(before).filter((r) => r.model === 'careful');
      expect(reached).toHaveLength(file.modelCalls);
    } finally {
      removeOut(output);
    }
  });
});
