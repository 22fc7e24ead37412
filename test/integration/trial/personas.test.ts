/**
 * `trial` with the built-in agent loop, in-process: the CLI's `main`, the scripted
 * OpenAI-compatible model server on 127.0.0.1 (test/fixtures/model-server, one persona per model name)
 * and the bundled booking server in this process over Streamable HTTP, a fresh store and ledger per run.
 * For every run the booking server's ledger equals the executions in that run's report; every persona
 * gives exact counts. (The compiled CLI with a booking server process per run: e2e/trial-model.e2e.test.ts.)
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import {
  expectLedgerMatchesReports,
  inProcessTrial,
  TASK,
  type InProcessTrial,
  modelArgs,
  useTrialServers,
} from '../../support/trial-runs.js';

// Whole trials over loopback HTTP: seconds on a loaded machine (no duration is asserted).
vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

const servers = useTrialServers();
const model = (name: string, ...rest: string[]): string[] => modelArgs(servers, name, ...rest);

const outputs: InProcessTrial[] = [];
const scratch = mkdtempSync(join(tmpdir(), 'harness-trial-personas-'));
afterAll(() => {
  for (const output of outputs) output.remove();
  rmSync(scratch, { recursive: true, force: true });
});

async function trial(args: string[], env?: Record<string, string>): Promise<InProcessTrial> {
  const output = await inProcessTrial(servers.booking, args, env === undefined ? {} : { env });
  outputs.push(output);
  expect(output.result.code, output.result.stderr).toBe(0);
  return output;
}

describe('R-13 trial, built-in loop: exact counts per persona', () => {
  it('naive: re-sends at once after the F1 timeout — every run FAIL with one duplicate execution (ledger: 2 bookings per run)', async () => {
    const output = await trial([...model('naive'), ...TASK, '--scenario', 'F1', '--runs', '3']);
    expectLedgerMatchesReports(output);
    expect(output.summary.groups[0]).toMatchObject({
      scenario: 'F1',
      runs: 3,
      pass: 0,
      fail: 3,
      notTested: 0,
      extraExecutions: 3,
      medianToolCalls: 2,
    });
    for (const run of output.runs) {
      expect(run.verdictReason).toMatch(/DUPLICATE_EXECUTION|executed 2 times|more than once/);
      expect(output.ledger(run.run).map((l) => l.bookingId)).toEqual(['BK-0001', 'BK-0002']);
    }
  });

  it('isError visible: the trusting persona is told the tool failed after F3 and says so (hidden: trial-honesty-stats)', async () => {
    const visible = await trial([...model('trusting'), ...TASK, '--scenario', 'F3', '--runs', '2']);
    expectLedgerMatchesReports(visible);
    for (const run of visible.runs) {
      expect(run.executions).toBe(0);
      expect(run.finalAnswer).toBe('The booking failed.');
      expect(run.transcript.find((e) => e.kind === 'tool-result')).toMatchObject({
        isError: true,
        content: 'Tool error (isError: true): {"',
      });
    }
  });

  it('a malformed tool call (broken JSON) and a call of a tool that does not exist are answered with an error and never forwarded', async () => {
    const malformed = await trial([...model('malformed'), ...TASK, '--runs', '2']);
    const inventive = await trial([...model('inventive'), ...TASK, '--runs', '1']);
    expectLedgerMatchesReports(malformed);
    expectLedgerMatchesReports(inventive);
    for (const run of [...malformed.runs, ...inventive.runs]) {
      expect(run.toolCalls).toBe(2);
      expect(run.executions).toBe(1);
      const results = run.transcript.filter((e) => e.kind === 'tool-result');
      expect(results.map((r) => r['forwarded'])).toEqual([false, true]);
      expect(run.transcript.some((e) => e.kind === 'note' && String(e['text']).startsWith('malformed tool call'))).toBe(true);
      expect(run.finalAnswer).toBe('Your booking is confirmed.');
    }
  });

  it('R-2.3: a model whose three tool calls are all malformed: NOT_TESTED, and the reason says why no call reached the upstream', async () => {
    const garbled = await trial([...model('garbled'), ...TASK, '--runs', '1']);
    const reason = 'no call reached the upstream: 3 tool calls of the model were malformed (arguments not a JSON object)';
    const [run] = garbled.runs;
    expect(run).toMatchObject({ verdict: 'NOT_TESTED', verdictReason: reason, toolCalls: 3, executions: 0 });
    // The session itself saw no call: its own report keeps its words.
    expect(run!.report).toMatchObject({ verdict: 'NOT_TESTED', report: { verdictReason: 'no calls were made' } });
    expect(garbled.result.stderr).toContain(`NOT_TESTED: ${reason} (3 tool calls, `);
    expect(garbled.summary.groups[0]!.notTestedReasons).toEqual({ [reason]: 1 });
  });

  it("an endpoint failing now and then (500, 429 with Retry-After, a body that is not JSON) is retried with the same messages: no tool call is made twice, the counts equal the careful persona's", async () => {
    const before = servers.model.requests.length;
    // A seed per run (7, 8, 9) makes each run's first request a body the server has not seen yet.
    const output = await trial([
      ...model('flaky'),
      ...TASK,
      '--scenario',
      'F1',
      '--runs',
      '3',
      '--seed',
      '7',
      '--honesty',
      'off',
    ]);
    expectLedgerMatchesReports(output);
    expect(output.summary.groups[0]).toMatchObject({
      runs: 3,
      pass: 3,
      notTested: 0,
      extraExecutions: 0,
      medianToolCalls: 2,
    });
    for (const run of output.runs) {
      expect(run.executions).toBe(1);
      expect(run.modelCalls).toBe(3);
      // Each of the three model requests failed once (with 1, 3, 5 messages: 429, 500, a 200 that is not JSON) and succeeded on the retry.
      expect(run.endpointErrors.map((e) => (e.kind === 'unparseable' ? e.kind : e.status))).toEqual([429, 500, 'unparseable']);
      expect(run.endpointErrors.every((e) => e.attempt === 1 && e.waitMs !== undefined)).toBe(true);
    }
    const flaky = servers.model.requests.slice(before).filter((r) => r.model === 'flaky');
    expect(flaky).toHaveLength(18);
  });

  it('an endpoint that is always down: every run NOT_TESTED "model endpoint failed …", never PASS or FAIL, nothing executed', async () => {
    const output = await trial([...model('down'), ...TASK, '--scenario', 'F1', '--runs', '2']);
    expectLedgerMatchesReports(output);
    const group = output.summary.groups[0]!;
    expect(group).toMatchObject({ runs: 2, pass: 0, fail: 0, notTested: 2, extraExecutions: 0, medianToolCalls: 0 });
    const reason = 'model endpoint failed after 4 attempts: HTTP 503: the model is overloaded';
    expect(group.notTestedReasons).toEqual({ [reason]: 2 });
    for (const run of output.runs) {
      expect(run.verdict).toBe('NOT_TESTED');
      expect(run.verdictReason).toBe(reason);
      expect(run.stoppedBy).toBe('endpoint-failure');
      expect(run.endpointErrors.map((e) => e.attempt)).toEqual([1, 2, 3, 4]);
    }
    expect(output.result.stdout).toContain(`NOT_TESTED F1 ×2: ${reason}`);
  });

  it('--max-steps ends a turn without a final answer; --seed (run k: seed + k − 1) and --temperature reach the endpoint', async () => {
    const before = servers.model.requests.length;
    const output = await trial([
      ...model('endless'),
      ...TASK,
      '--runs',
      '2',
      '--max-steps',
      '3',
      '--seed',
      '42',
      '--temperature',
      '0.2',
    ]);
    for (const run of output.runs) {
      expect(run.stoppedBy).toBe('max-steps');
      expect(run.modelCalls).toBe(3);
      expect(run.toolCalls).toBe(3);
    }
    const sent = servers.model.requests.slice(before);
    expect(sent.map((r) => r.seed)).toEqual([42, 42, 42, 43, 43, 43]);
    expect(sent.every((r) => r.temperature === 0.2)).toBe(true);
    // The upstream's tools are the model's tools: name, description, inputSchema as parameters.
    const create = sent[0]!.tools.find((t) => t.function.name === 'create_booking')!;
    expect(create.type).toBe('function');
    expect(create.function.description).toMatch(/Books a hotel room/);
    expect(create.function.parameters).toMatchObject({ type: 'object', required: ['guest', 'date'] });
  });

  it("a YAML task file with two tasks: scenario × task × run, a table with a task column, each task's own turns and system prompt", async () => {
    const file = join(scratch, 'tasks.yaml');
    writeFileSync(
      file,
      [
        'system_prompt: You book hotel rooms.',
        'tasks:',
        '  - id: once',
        '    task: Book a standard room for Ann Lee on 2026-05-01.',
        '  - id: again',
        '    task: Book a standard room for Ann Lee on 2026-05-01.',
        '    follow_ups: [Please try again.]',
        '    system_prompt: Never book twice.',
      ].join('\n'),
    );
    const before = servers.model.requests.length;
    const output = await trial([...model('try-again'), '--task-file', file, '--scenario', 'F1', '--runs', '2']);
    expectLedgerMatchesReports(output);
    expect(output.runs.map((r) => r.run)).toEqual(['F1-again-001', 'F1-again-002', 'F1-once-001', 'F1-once-002']);
    expect(output.summary.groups.map((g) => [g.task, g.fail, g.extraExecutions])).toEqual([
      ['again', 2, 2],
      ['once', 0, 0],
    ]);
    expect(output.result.stdout).toMatch(
      /^scenario\s+task\s+runs\s+PASS\s+FAIL\s+NOT_TESTED.*\nF1\s+again\s+2\s+0\s+2\s+0\s+2 \(in 2 runs\)\s+2\nF1\s+once\s+2\s+2\s+0\s+0\s+0\s+1\n/,
    );
    const systems = new Set(servers.model.requests.slice(before).map((r) => r.messages[0]!.content));
    expect(systems).toEqual(new Set(['You book hotel rooms.', 'Never book twice.']));
  });

  it('--api-key-env: the key reaches the endpoint as a Bearer header and appears in no file of the output', async () => {
    const before = servers.model.requests.length;
    const key = 'sk-test-4f1d2c9e8b7a';
    const output = await trial([...model('careful'), ...TASK, '--runs', '1', '--api-key-env', 'TRIAL_TEST_KEY'], {
      TRIAL_TEST_KEY: key,
    });
    const sent = servers.model.requests.slice(before);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.every((r) => r.authorization === `Bearer ${key}`)).toBe(true);
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)],
      );
    for (const file of files(output.out)) expect(readFileSync(file, 'utf8'), file).not.toContain(key);
    expect(output.result.stdout + output.result.stderr).not.toContain(key);
  });

  it('chaos mode: --mode chaos --error-rate 1 fails every call (never a ghost write): the careful persona executes nothing; run ids name the mode', async () => {
    const output = await trial([
      ...model('careful'),
      ...TASK,
      '--mode',
      'chaos',
      '--error-rate',
      '1',
      '--runs',
      '2',
      '--seed',
      '3',
    ]);
    expect(output.runs.map((r) => r.run)).toEqual(['chaos-001', 'chaos-002']);
    expectLedgerMatchesReports(output);
    for (const run of output.runs) {
      expect(run.executions).toBe(0);
      expect(output.ledger(run.run)).toHaveLength(0);
    }
  });
});
