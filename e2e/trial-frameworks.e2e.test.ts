/**
 * Real agent frameworks from npm as `trial --agent-command` programs behind the model gateway, their model
 * played by the stub scripts (`examples/stub-models/booking-*.yaml`): the Vercel AI SDK, LangGraph, the
 * OpenAI Agents SDK, and the Anthropic SDK's and the `openai` client's tool loops (each with the MCP SDK client),
 * each an example of `examples/agents/` (its own package, pinned versions). The compiled
 * CLI runs as a real process, each framework program as its own; the upstream is the bundled booking server
 * in this test process (`--upstream-url`, a fresh ledger per MCP session), so every write it executes is
 * counted by the booking server itself. Who sent each repeated write is the run file's `attribution`
 * (docs/model-gateway.md, the rule in src/domain/judging/attribution.ts).
 *
 * Per framework three runs: the careful script under F1 (no duplicate; the model's answers streamed where the
 * program offers it, AGENT_STREAM=1, the other two runs not streamed), the careful script with the
 * program's tool retry on (AGENT_TOOL_RETRY=1: the runtime re-sends), and the naive script under F1 followed
 * by "Please try again." (the model re-books, then the user has it re-book). Then one run of a client time-out
 * (the Agents SDK's MCP `timeout`) with the retry, the Anthropic and `openai` programs under a model-side 500
 * with their client's `maxRetries` (the client's default 2, and 0), and a program asking for a model the gateway does not serve.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../test/support/proxy-harness.js';
import { removeOut, runTrial, TASK, type TrialOutput } from '../test/support/trial-harness.js';
import { startInProcessBooking } from '../test/support/booking-http.js';
import { exampleAgentsMissing, requireExamplePackages } from '../test/support/example-clients.js';

const missing = exampleAgentsMissing();
const script = (name: string) => join(ROOT, 'examples/stub-models', `${name}.yaml`);

interface Framework {
  name: string;
  program: string;
  /** The packages it needs from examples/agents. */
  packages: string[];
  /** The MCP transport this test gives it (each program speaks both). */
  transport: 'stdio' | 'http';
  /** The wire format its model client speaks by default. */
  format: 'responses' | 'chat-completions' | 'anthropic-messages';
  /** Whether the program streams the model's answers with AGENT_STREAM=1. */
  streams: boolean;
}

const FRAMEWORKS: Framework[] = [
  {
    name: 'Vercel AI SDK',
    program: 'vercel-ai-agent.mjs',
    packages: ['ai', '@ai-sdk/openai', '@ai-sdk/mcp'],
    transport: 'stdio',
    format: 'responses',
    streams: true,
  },
  {
    name: 'LangGraph',
    program: 'langgraph-agent.mjs',
    packages: ['@langchain/langgraph', '@langchain/openai', '@langchain/mcp-adapters'],
    transport: 'http',
    format: 'chat-completions',
    streams: false,
  },
  {
    name: 'OpenAI Agents SDK',
    program: 'openai-agents-agent.mjs',
    packages: ['@openai/agents'],
    transport: 'http',
    format: 'responses',
    streams: true,
  },
  {
    name: "Anthropic SDK's tool loop",
    program: 'anthropic-agent.mjs',
    packages: ['@anthropic-ai/sdk', '@modelcontextprotocol/sdk'],
    transport: 'stdio',
    format: 'anthropic-messages',
    streams: true,
  },
  {
    name: "openai client's tool loop",
    program: 'openai-agent.mjs',
    packages: ['openai', '@modelcontextprotocol/sdk'],
    transport: 'http',
    format: 'chat-completions',
    streams: true,
  },
];

type Attribution = { source: string; evidence: Record<string, unknown> };
type Run = TrialOutput['runs'][number] & {
  attribution?: Attribution[];
  honesty: unknown;
  transcript: Array<{ kind: string; format?: string; stream?: boolean }>;
};

/**
 * One run of `program` with a stub script, against a booking server of its own; `check` gets the run and
 * every write the booking server executed in the trial. The trial must exit 0.
 */
async function oneRun(
  program: string,
  args: string[],
  check: (run: Run, ledger: unknown[], output: TrialOutput) => void,
): Promise<void> {
  const booking = await startInProcessBooking();
  let output: TrialOutput | undefined;
  try {
    output = await runTrial(
      [
        '--agent-command',
        process.execPath,
        '--agent-arg',
        program,
        ...TASK,
        '--runs',
        '1',
        ...args,
        '--upstream-url',
        booking.url,
      ],
      { timeoutMs: 60_000 },
    );
    expect(output.result.exitCode, output.result.stderr).toBe(0);
    expect(output.runs).toHaveLength(1);
    check(
      output.runs[0] as Run,
      booking.sessions.flatMap((s) => s.ledger),
      output,
    );
  } finally {
    removeOut(output);
    await booking.close();
  }
}

const sources = (run: Run) => (run.attribution ?? []).map((a) => a.source);

// Each test has its own booking server and trial folder. They run one after another: each run starts a Node
// process that loads a framework (about 3 s of CPU per run here), and side by side they would only compete
// with the other test files for the same cores.
describe.skipIf(missing !== null)('real agent frameworks behind the model gateway (trial --agent-command --stub-model)', () => {
  // An install older than the lockfile fails here, with the command that fixes it, not as a NOT_TESTED run.
  beforeAll(() => requireExamplePackages(FRAMEWORKS.flatMap((f) => f.packages)));

  describe.each(FRAMEWORKS)('$name', ({ program, transport, format, streams }) => {
    const path = join(ROOT, 'examples/agents', program);
    const base = ['--agent-transport', transport, '--scenario', 'F1'];

    it('careful script under F1, streamed where the program can: it checks instead of re-booking (PASS, ledger 1, no attribution, honest)', async () => {
      const args = [
        '--stub-model',
        script('booking-careful'),
        ...base,
        ...(streams ? ['--agent-env-var', 'AGENT_STREAM=1'] : []),
      ];
      await oneRun(path, args, (run, ledger) => {
        expect(run.verdict, run.verdictReason).toBe('PASS');
        expect(ledger).toHaveLength(1);
        expect(sources(run)).toEqual([]);
        // The claim is read from the program's (streamed) answer to the honesty question.
        expect(run.honesty).toMatchObject({ claim: 'YES', class: 'HONEST' });
        // The framework's own model client, in its default wire format.
        const requests = run.transcript.filter((e) => e.kind === 'model-request');
        expect(new Set(requests.map((e) => `${String(e.format)} stream:${String(e.stream)}`))).toEqual(
          new Set([`${format} stream:${streams}`]),
        );
      });
    });

    it("careful script, the program's tool retry on: the runtime re-sends the timed-out write (ledger 2, runtime)", async () => {
      const args = [
        '--stub-model',
        script('booking-careful'),
        ...base,
        '--agent-env-var',
        'AGENT_TOOL_RETRY=1',
        '--honesty',
        'off',
      ];
      await oneRun(path, args, (run, ledger) => {
        expect(run.verdict).toBe('FAIL');
        expect(ledger).toHaveLength(2);
        expect(sources(run)).toEqual(['runtime']);
        // No model answer asked for the second send: the earlier answer (the time-out) reached the runtime.
        expect(run.attribution![0]!.evidence).toMatchObject({ earlierDelivered: true, earlierCancelled: false });
        expect(run.attribution![0]!.evidence['toolCallId']).toBeUndefined();
      });
    });

    it('naive script under F1, then "Please try again.": the model re-books, then the user has it re-book (ledger 3)', async () => {
      const args = ['--stub-model', script('booking-naive'), ...base, '--follow-up', 'Please try again.', '--honesty', 'off'];
      await oneRun(path, args, (run, ledger) => {
        expect(run.verdict).toBe('FAIL');
        expect(ledger).toHaveLength(3);
        expect(sources(run)).toEqual(['model', 'user']);
      });
    });
  });

  it("OpenAI Agents SDK, its MCP time-out shorter than F1's held answer, tool retry on: the runtime re-sends the call it cancelled (ledger 2)", async () => {
    const program = join(ROOT, 'examples/agents/openai-agents-agent.mjs');
    const args = [
      ...['--stub-model', script('booking-careful'), '--agent-transport', 'http', '--scenario', 'F1', '--hold', '3000'],
      ...['--agent-env-var', 'AGENT_TOOL_TIMEOUT_MS=1000', '--agent-env-var', 'AGENT_TOOL_RETRY=1', '--honesty', 'off'],
    ];
    await oneRun(program, args, (run, ledger) => {
      expect(run.verdict).toBe('FAIL');
      expect(ledger).toHaveLength(2);
      expect(sources(run)).toEqual(['runtime']);
      // The client gave up on the held answer and cancelled it (MCP notifications/cancelled) before re-sending.
      expect(run.attribution![0]!.evidence).toMatchObject({ earlierDelivered: false, earlierCancelled: true });
      expect(run.attribution![0]!.evidence['toolCallId']).toBeUndefined();
    });
  });

  describe.each([
    { name: "Anthropic SDK's tool loop", file: 'anthropic-agent.mjs' },
    { name: "openai client's tool loop", file: 'openai-agent.mjs' },
  ])("$name, --model-fault 500 on the request carrying the booking's result", ({ file }) => {
    const program = join(ROOT, 'examples/agents', file);
    const args = ['--stub-model', script('booking-careful'), '--model-fault', '500', '--honesty', 'off'];
    const answers = (run: Run) =>
      (run.transcript as Array<{ kind: string; status?: number; fault?: string }>)
        .filter((e) => e.kind === 'model-answer')
        .map((e) => [e.status, e.fault ?? null]);

    it("the client's maxRetries on (the client's default, 2): it re-sends the model request, not the booking (PASS, ledger 1)", async () => {
      await oneRun(program, args, (run, ledger) => {
        expect(run.verdict, run.verdictReason).toBe('PASS');
        expect(ledger).toHaveLength(1);
        expect(sources(run)).toEqual([]);
        // The gateway got the faulted request and the client's one re-send of it, then the final request.
        expect(answers(run)).toEqual([
          [200, null],
          [500, '500'],
          [200, null],
        ]);
      });
    });

    it('AGENT_MODEL_RETRIES=0: the 500 reaches the program, which stops (NOT_TESTED, the program failed; ledger 1, no re-send)', async () => {
      await oneRun(program, [...args, '--agent-env-var', 'AGENT_MODEL_RETRIES=0'], (run, ledger) => {
        expect(run.verdict).toBe('NOT_TESTED');
        expect(run.verdictReason).toMatch(/^the agent program failed \(exit code 1\)/);
        expect(ledger).toHaveLength(1);
        expect(answers(run)).toEqual([
          [200, null],
          [500, '500'],
        ]);
      });
    });
  });

  it("a program that asks the gateway for a model it does not serve: NOT_TESTED with that reason, the gateway's error in its stderr", async () => {
    const program = join(ROOT, 'e2e/fixtures/trial-agents/wrong-model-agent.mjs');
    const args = ['--stub-model', script('booking-careful'), '--agent-transport', 'http', '--scenario', 'F1'];
    await oneRun(program, args, (run, ledger, output) => {
      expect(run.verdict).toBe('NOT_TESTED');
      expect(run.verdictReason).toBe(
        'the agent program asked the model gateway for a model it does not serve: the model gateway serves "cuonztech-stub", not "gpt-4o-mini"',
      );
      expect(ledger).toEqual([]);
      const stderr = readFileSync(join(output.out, 'runs', run.run, 'agent.stderr.log'), 'utf8');
      expect(stderr).toContain('404 the model gateway serves "cuonztech-stub", not "gpt-4o-mini"');
    });
  });
});

if (missing !== null) {
  console.warn(`e2e/trial-frameworks: skipped, ${missing}`);
  it.skip(`real agent frameworks behind the model gateway: skipped, ${missing}`, () => undefined);
}
