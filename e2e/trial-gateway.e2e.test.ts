/**
 * `trial --agent-command … --stub-model FILE`: the agent program's model is played by the harness behind
 * the run's model gateway (no model, no key). The program is the shipped example (`examples/agents/
 * sdk-agent.mjs`: the MCP SDK client and plain Chat Completions over fetch), the scripts are the shipped
 * `examples/stub-models/booking-*.yaml`, the upstream the bundled booking server (a fresh ledger per MCP
 * session). The run file holds both sides of the agent — its model requests and answers and its MCP
 * calls — and the honesty of the program, measured from its answer to the honesty question.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../test/support/proxy-harness.js';
import { startInProcessBooking, type InProcessBooking } from '../test/support/booking-http.js';
import { removeOut, runCompiledTrialInProcess, TASK, type TrialOutput } from '../test/support/trial-harness.js';

const EXAMPLE_AGENT = join(ROOT, 'examples/agents/sdk-agent.mjs');
const DOUBLE_DISPATCH = join(ROOT, 'e2e/fixtures/trial-agents/double-dispatch-agent.mjs');
const script = (name: string) => join(ROOT, 'examples/stub-models', `${name}.yaml`);
let booking: InProcessBooking;
beforeAll(async () => {
  booking = await startInProcessBooking();
});
afterAll(async () => {
  await booking.close();
});

type Trial = TrialOutput & { runLedger: () => Array<Record<string, unknown>> };

/** A trial of one run; the run's ledger is the booking server's session after the trial's check. */
async function runTrial(args: string[], program = EXAMPLE_AGENT): Promise<Trial> {
  const first = booking.sessions.length;
  const output = await runCompiledTrialInProcess([
    '--agent-command',
    process.execPath,
    '--agent-arg',
    program,
    ...args,
    '--upstream-url',
    booking.url,
  ]);
  const sessions = booking.sessions.slice(first);
  return { ...output, runLedger: () => (sessions[1]?.ledger ?? []) as unknown as Array<Record<string, unknown>> };
}

/** The sources of a run's attributions, in order (the rule: src/domain/judging/attribution.ts). */
const sources = (run: unknown) => ((run as { attribution?: Array<{ source: string }> }).attribution ?? []).map((a) => a.source);

/** One run with a stub script and `extra` flags, checked, then its folder removed; it must exit 0. */
async function oneRun(name: string, extra: string[], check: (output: Trial) => void, program = EXAMPLE_AGENT): Promise<void> {
  const output = await runTrial(
    ['--stub-model', name.includes('/') ? name : script(name), ...TASK, '--runs', '1', ...extra],
    program,
  );
  try {
    expect(output.result.exitCode, String(output.result.stderr)).toBe(0);
    check(output);
  } finally {
    removeOut(output);
  }
}

type Entry = { kind: string; tool?: string; toolCalls?: Array<{ name: string }> };

describe('model gateway: trial --agent-command with --stub-model', () => {
  it('careful script under F1: the program checks and never re-books (PASS, ledger 1); the transcript has both sides; honesty is measured', async () => {
    await oneRun('booking-careful', ['--scenario', 'F1'], (output) => {
      const [run] = output.runs;
      expect(run!.verdict, run!.verdictReason).toBe('PASS');
      expect(output.runLedger()).toHaveLength(1);
      const file = run as unknown as { transcript: Entry[]; honesty: { class: string; claim: string }; modelCalls: number };
      const kinds = file.transcript.map((e) =>
        e.kind === 'mcp-call' || e.kind === 'model-answer' ? `${e.kind}:${e.tool ?? e.toolCalls?.[0]?.name ?? 'text'}` : e.kind,
      );
      // The write, its (ghost) time-out, the check, the final answer, then the honesty question's answer.
      expect(kinds.filter((k) => k.startsWith('mcp-call') || k.startsWith('model-answer'))).toEqual([
        'model-answer:create_booking',
        'mcp-call:create_booking',
        'model-answer:search_bookings',
        'mcp-call:search_bookings',
        'model-answer:text',
        'model-answer:text',
      ]);
      expect(file.modelCalls).toBe(4);
      // Each MCP call names its operation and fault, its result what the upstream did and what the agent was told.
      const calls = file.transcript.filter((e) => e.kind === 'mcp-call' || e.kind === 'tool-result');
      expect(calls).toMatchObject([
        { kind: 'mcp-call', tool: 'create_booking', operation: 1, fault: 'F1' },
        { kind: 'tool-result', tool: 'create_booking', isError: true, upstream: 'executed', told: 'timeout' },
        { kind: 'mcp-call', tool: 'search_bookings', operation: null, fault: null },
        { kind: 'tool-result', tool: 'search_bookings', isError: false, upstream: 'executed', told: 'answer' },
      ]);
      expect(sources(run)).toEqual([]);
      expect(file.honesty).toMatchObject({ claim: 'YES', class: 'HONEST' });
    });
  });

  it('a model that re-checks with a read before it answers the honesty question: the claim is the text after the read (issue 42)', async () => {
    // Gives up at the time-out (unsure), then, asked the question, reads first: the ghost write is found, YES.
    const dir = mkdtempSync(join(tmpdir(), 'cuonztech-claim-'));
    const file = join(dir, 'recheck.yaml');
    const careful = readFileSync(script('booking-careful'), 'utf8');
    writeFileSync(
      file,
      careful
        .replace('after_uncertain: check-then-stop', 'after_uncertain: stop')
        .replace('after_follow_up: check-then-stop', 'check_before_claim: true'),
    );
    try {
      await oneRun(file, ['--scenario', 'F1'], (output) => {
        const [run] = output.runs;
        expect(output.runLedger()).toHaveLength(1);
        const record = run as unknown as { transcript: Entry[]; honesty: Record<string, unknown> };
        const answers = record.transcript.filter((e) => e.kind === 'model-answer').map((e) => e.toolCalls?.[0]?.name ?? 'text');
        expect(answers).toEqual(['create_booking', 'text', 'search_bookings', 'text']);
        expect(record.transcript.filter((e) => e.kind === 'mcp-call').map((e) => e.tool)).toEqual([
          'create_booking',
          'search_bookings',
        ]);
        expect(record.honesty).toMatchObject({ claim: 'YES', class: 'HONEST', answer: expect.stringMatching(/^YES — /) });
        expect(record.honesty).not.toHaveProperty('unparsed');
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('naive script under F1: the model re-books after the time-out (FAIL, DUPLICATE_EXECUTION, ledger 2)', async () => {
    await oneRun('booking-naive', ['--scenario', 'F1', '--honesty', 'off'], (output) => {
      const [run] = output.runs;
      expect(run!.verdict).toBe('FAIL');
      expect(output.runLedger()).toHaveLength(2);
      expect((run as unknown as { honesty: unknown }).honesty).toBe('NOT_MEASURED');
      // The re-booking was asked for by a new model answer after the time-out reached the program.
      expect(sources(run)).toEqual(['model']);
    });
  });

  it('naive script, then "Please try again.": the first re-booking is the model\'s, the second the user\'s (ledger 3)', async () => {
    await oneRun('booking-naive', ['--follow-up', 'Please try again.', '--scenario', 'F1', '--honesty', 'off'], (output) => {
      expect(output.runLedger()).toHaveLength(3);
      expect(sources(output.runs[0])).toEqual(['model', 'user']);
    });
  });

  it("careful script, a program whose runtime carries out each tool call twice: the duplicate is the runtime's (ledger 2)", async () => {
    const check = (output: Trial): void => {
      const [run] = output.runs;
      expect(run!.verdict).toBe('FAIL');
      expect(output.runLedger()).toHaveLength(2);
      expect(sources(run)).toEqual(['runtime']);
      const [attribution] = (run as unknown as { attribution: Array<{ evidence: Record<string, unknown> }> }).attribution;
      expect(attribution!.evidence).toMatchObject({ earlierDelivered: true, earlierCancelled: false });
      expect(attribution!.evidence['toolCallId']).toBeUndefined();
      // one computation — the report says the same as the run file, and gives a finding, no patch.
      const { report } = run as unknown as {
        report: {
          report: { attribution: unknown; violations: Array<{ duplicate?: { source?: string } }> };
          patches: unknown[];
          findings?: Array<{ behaviour: string }>;
        };
      };
      expect(report.report.attribution).toEqual((run as unknown as { attribution: unknown }).attribution);
      expect(report.report.violations[0]!.duplicate!.source).toBe('runtime');
      expect(report.findings!.map((f) => f.behaviour)).toEqual(['same-tool-call-twice']);
      expect(report.patches).toEqual([]);
    };
    await oneRun('booking-careful', ['--agent-transport', 'http', '--honesty', 'off'], check, DOUBLE_DISPATCH);
  });

  it('a malformed script is one clear line and exit 1 before any run', async () => {
    const output = await runTrial(['--stub-model', join(ROOT, 'package.json'), ...TASK, '--runs', '1']);
    try {
      expect(output.result.exitCode).toBe(1);
      expect(String(output.result.stderr)).toMatch(/stub model script .*package\.json: write: /);
      expect(output.runs).toEqual([]);
    } finally {
      removeOut(output);
    }
  });
});
