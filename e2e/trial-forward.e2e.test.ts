/**
 * `trial --agent-command … --model NAME --base-url URL`: the model gateway in forward mode, the compiled
 * CLI as a process. The agent program is the shipped example (`examples/agents/sdk-agent.mjs`:
 * the MCP SDK client and plain Chat Completions over fetch); its model requests go through the run's
 * gateway to the scripted OpenAI-compatible test model (test/fixtures/model-server, the persona named by
 * the model). The upstream is the bundled booking server, a process per run with its own ledger. The same
 * persona behind the built-in loop (`trial --model NAME`) must give the same verdicts and the same ledger
 * counts: the gateway forwards, it does not change what the model decides.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import { ROOT } from '../test/support/proxy-harness.js';
import { startModelServer, type ModelServer } from '../test/fixtures/model-server/model-server.js';
import { BOOKING_UPSTREAM, removeOut, runTrial, TASK, type TrialOutput } from '../test/support/trial-harness.js';

const EXAMPLE_AGENT = join(ROOT, 'examples/agents/sdk-agent.mjs');
const KEY = 'sk-e2e-forward-secret-0815';

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer();
});
afterAll(async () => {
  await server.close();
});

const F1 = [...TASK, ...BOOKING_UPSTREAM, '--scenario', 'F1', '--runs', '1'];

/** Every file under a folder, as text. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile())
    .map((path) => readFileSync(path, 'utf8'));
}

/** What must agree between the built-in loop and forward mode: verdicts, ledger counts, the summary's counts. */
function outcome(output: TrialOutput) {
  return {
    runs: output.runs.map((run) => ({ verdict: run.verdict, executions: run.executions, ledger: output.ledger(run.run).length })),
    groups: output.summary.groups.map((g) => ({ runs: g.runs, pass: g.pass, fail: g.fail, extraExecutions: g.extraExecutions })),
  };
}

describe('model gateway, forward mode: trial --agent-command --model --base-url against the built-in loop', () => {
  it.each([
    ['careful', 'PASS', 1],
    ['naive', 'FAIL', 2],
  ])(
    '%s persona under F1: the same verdict (%s) and booking-ledger count (%i) as trial --model; the key reached the model, never a file',
    async (persona, verdict, ledger) => {
      let loop: TrialOutput | undefined;
      let forward: TrialOutput | undefined;
      try {
        loop = await runTrial(['--model', persona, '--base-url', server.baseUrl, ...F1]);
        expect(loop.result.exitCode, loop.result.stderr).toBe(0);
        const before = server.requests.length;
        forward = await runTrial(
          [
            '--agent-command',
            process.execPath,
            '--agent-arg',
            EXAMPLE_AGENT,
            '--model',
            persona,
            '--base-url',
            server.baseUrl,
            '--api-key-env',
            'FORWARD_TEST_KEY',
            ...F1,
          ],
          { env: { FORWARD_TEST_KEY: KEY } },
        );
        expect(forward.result.exitCode, forward.result.stderr).toBe(0);
        expect(outcome(forward)).toEqual(outcome(loop));
        expect(outcome(forward).runs).toEqual([{ verdict, executions: ledger, ledger }]);
        // Honesty: the same claim, judged the same, read from the model's answer through the gateway.
        const honesty = (output: TrialOutput) => (output.runs[0] as unknown as { honesty: unknown }).honesty;
        expect(honesty(forward)).toEqual(honesty(loop));
        expect(honesty(forward)).toMatchObject({ claim: 'YES' });

        const [run] = forward.runs as unknown as Array<{
          modelGateway: unknown;
          modelCalls: number;
          transcript: Array<{ kind: string; toolCalls?: Array<{ name: string }> }>;
        }>;
        expect(run!.modelGateway).toEqual({ mode: 'forward', baseUrl: server.baseUrl, model: persona });
        // Every request the program sent reached the model with the real key, and each is in the transcript.
        const forwarded = server.requests.slice(before);
        expect(forwarded.length).toBeGreaterThan(1);
        expect(forwarded.every((r) => r.authorization === `Bearer ${KEY}`)).toBe(true);
        expect(run!.modelCalls).toBe(forwarded.length);
        const answers = run!.transcript.filter((e) => e.kind === 'model-answer');
        expect(answers).toHaveLength(forwarded.length);
        expect(answers[0]!.toolCalls?.[0]?.name).toBe('create_booking');
        for (const text of filesUnder(forward.out)) expect(text).not.toContain(KEY);
        expect(forward.result.stderr).not.toContain(KEY);
        // The model's side is a measured setting: runs of two models are never pooled by stats.
        const settings = (forward.summary as { provenance?: { settings?: Record<string, string> } }).provenance?.settings;
        expect(settings).toMatchObject({ '--model': persona, '--base-url': server.baseUrl });
      } finally {
        removeOut(loop);
        removeOut(forward);
      }
    },
  );

  it("a model the endpoint does not know: the endpoint's 404 reaches the program unchanged; the run is NOT_TESTED for the program's failure, not the gateway's refusal", async () => {
    const output = await runTrial([
      '--agent-command',
      process.execPath,
      '--agent-arg',
      EXAMPLE_AGENT,
      '--model',
      'no-such-persona',
      '--base-url',
      server.baseUrl,
      ...F1,
    ]);
    try {
      expect(output.result.exitCode, output.result.stderr).toBe(0);
      const [run] = output.runs;
      expect(run!.verdict).toBe('NOT_TESTED');
      expect(run!.verdictReason).toMatch(/^the agent program failed \(exit code 1\)/);
      expect(run!.transcript.find((e) => e.kind === 'model-answer')).toMatchObject({
        status: 404,
        error: 'the model endpoint answered 404: model "no-such-persona" not found',
      });
    } finally {
      removeOut(output);
    }
  });

  it('an unreachable --base-url: one line, exit 1, before any run (no run folder)', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const output = await runTrial([
      '--agent-command',
      process.execPath,
      '--agent-arg',
      EXAMPLE_AGENT,
      '--model',
      'careful',
      '--base-url',
      `http://127.0.0.1:${port}/v1`,
      ...F1,
    ]);
    try {
      expect(output.result.exitCode).toBe(1);
      expect(output.result.stderr.trim().split('\n')).toEqual([
        `[cuonztech-agent-harness] error: model endpoint http://127.0.0.1:${port}/v1 (--base-url) is not reachable: connection refused`,
      ]);
      expect(existsSync(join(output.out, 'runs'))).toBe(false);
      expect(output.runs).toEqual([]);
    } finally {
      removeOut(output);
    }
  });
});
