/**
 * `trial --otel` with real processes (docs/traces.md): the compiled CLI runs the shipped example agent
 * program (`examples/agents/sdk-agent.mjs`: the MCP SDK client, Chat Completions over fetch) behind the
 * run's model gateway playing the naive stub script, against the bundled booking server as a process per
 * run (its ledger counts what really executed), under F1, exporting to a test OTLP/HTTP receiver that
 * decodes the official exporter's JSON. The tree: `cuonztech.trial` → `invoke_agent` (the run, its
 * verdicts as evaluation events) → `cuonztech.session` → `tools/call create_booking` with F1's ghost write
 * marked, and the model requests as `chat cuonztech-stub` client spans beside the session. A model-side
 * fault marks its model span. The run's recording replayed with `replay --otel` tells the same story under
 * a `cuonztech.replay` span. Without `--otel` no OpenTelemetry module is resolved by trial, probe or
 * replay.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, FIXTURES, readLines, ROOT } from '../test/support/proxy-harness.js';
import { BOOKING_UPSTREAM, removeOut, runTrial, TASK, type TrialOutput } from '../test/support/trial-harness.js';
import { SPAN_KIND, spanNamed, startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../test/support/otlp-receiver.js';
import { noOtelHook } from '../test/support/no-otel-hook.js';

const EXAMPLE_AGENT = join(ROOT, 'examples/agents/sdk-agent.mjs');
const NAIVE = join(ROOT, 'examples/stub-models/booking-naive.yaml');
const SECRET = 'trace-secret-4711';

let receiver: OtlpReceiver | undefined;
let output: TrialOutput | undefined;
afterEach(async () => {
  removeOut(output);
  output = undefined;
  await receiver?.close();
  receiver = undefined;
});

const childrenOf = (spans: readonly ReceivedSpan[], parent: ReceivedSpan) =>
  spans.filter((s) => s.parentSpanId === parent.spanId);
const evaluations = (span: ReceivedSpan) =>
  Object.fromEntries(
    span.events
      .filter((e) => e.name === 'gen_ai.evaluation.result')
      .map((e) => [String(e.attributes['gen_ai.evaluation.name']), e.attributes]),
  );

describe('R-18.1: trial --otel (the compiled CLI, an agent program, a real upstream process, a real OTLP/HTTP receiver)', () => {
  it('trial → run → session → tools/call with the F1 ghost write marked, the model requests as chat spans, the verdicts as evaluation events', async () => {
    receiver = await startOtlpReceiver();
    output = await runTrial(
      [
        '--agent-command',
        process.execPath,
        '--agent-arg',
        EXAMPLE_AGENT,
        '--stub-model',
        NAIVE,
        ...TASK,
        ...BOOKING_UPSTREAM,
        '--scenario',
        'F1',
        '--runs',
        '1',
        '--otel',
        '--otel-endpoint',
        receiver.base,
      ],
      { env: { OTEL_EXPORTER_OTLP_HEADERS: `x-api-key=${SECRET}` } },
    );
    expect(output.result.exitCode, output.result.stderr).toBe(0);
    const [run] = output.runs;
    expect(run!.verdict).toBe('FAIL');
    // Counted in the upstream process: the ghost write and the model's re-send both executed.
    expect(output.ledger(run!.run)).toHaveLength(2);
    expect(output.result.stderr).toMatch(/traces: \d+ spans exported to http:\/\/127\.0\.0\.1:\d+\/v1\/traces/);

    // The headers reach the collector, never a line or a file of the harness.
    expect(receiver.headers[0]?.['x-api-key']).toBe(SECRET);
    expect(output.result.stderr + output.result.stdout).not.toContain(SECRET);

    const spans = await receiver.waitFor(1);
    const trial = spanNamed(spans, 'cuonztech.trial');
    expect(trial.parentSpanId).toBe('');
    const runSpan = spanNamed(spans, 'invoke_agent');
    expect(runSpan.parentSpanId).toBe(trial.spanId);
    expect(runSpan.traceId).toBe(trial.traceId);
    expect(runSpan.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'cuonztech.run.id': run!.run,
      'cuonztech.scenario': 'F1',
      'cuonztech.verdict': 'FAIL',
      'gen_ai.request.model': 'cuonztech-stub',
      'cuonztech.executions': 2,
    });
    const verdicts = evaluations(runSpan);
    expect(verdicts['duplicate_execution']).toMatchObject({ 'gen_ai.evaluation.score.label': 'FAIL' });
    expect(verdicts['duplicate_source']).toMatchObject({ 'gen_ai.evaluation.score.label': 'model' });
    expect(verdicts['honesty']?.['gen_ai.evaluation.score.label']).toBe(
      (run as unknown as { honesty: { class: string } }).honesty.class,
    );

    // The run's MCP session under the run; its tool calls under the session.
    const session = spanNamed(spans, 'cuonztech.session');
    expect(session.parentSpanId).toBe(runSpan.spanId);
    const writes = childrenOf(spans, session)
      .filter((s) => s.kind === SPAN_KIND.server && s.name === 'tools/call create_booking')
      .sort((a, b) => Number(a.attributes['cuonztech.attempt']) - Number(b.attributes['cuonztech.attempt']));
    expect(writes).toHaveLength(2);
    const [ghost, resend] = writes;
    expect(ghost!.attributes).toMatchObject({
      'cuonztech.fault': 'F1',
      'cuonztech.executed': 'true',
      'cuonztech.answer.replaced': true,
      'cuonztech.agent.told': 'timeout',
      'error.type': 'timeout',
    });
    expect(ghost!.status.code).toBe(2);
    expect(resend!.attributes['cuonztech.fault']).toBeUndefined();
    expect(resend!.events).toEqual([{ name: 'cuonztech.repeat', attributes: { 'cuonztech.repeat.source': 'model' } }]);
    for (const write of writes) expect(childrenOf(spans, write).map((s) => s.kind)).toEqual([SPAN_KIND.client]);

    // Each model request through the gateway: a GenAI client span under the run.
    const chats = spans.filter((s) => s.name === 'chat cuonztech-stub');
    expect(chats.length).toBe((run as unknown as { modelCalls: number }).modelCalls);
    for (const chat of chats) {
      expect(chat.kind).toBe(SPAN_KIND.client);
      expect(chat.parentSpanId).toBe(runSpan.spanId);
      expect(chat.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'cuonztech-stub',
        'cuonztech.model.source': 'stub',
      });
    }

    // The recorded run replayed with --otel: the same story under a replay span, the F1 write marked again.
    await receiver.close();
    receiver = await startOtlpReceiver();
    const replay = await cli(['replay', join(output.out, 'runs', run!.run), '--otel', '--otel-endpoint', receiver.base], {
      env: { PATH: process.env['PATH'] ?? '' },
    });
    expect(replay.exitCode, replay.stderr).toBe(0);
    expect(replay.stdout).toContain('EQUAL');
    const replayed = await receiver.waitFor(1);
    const root = spanNamed(replayed, 'cuonztech.replay');
    expect(root.parentSpanId).toBe('');
    expect(root.attributes).toMatchObject({ 'cuonztech.replay.runs': 1, 'cuonztech.replay.equal': 1 });
    const replayedRun = spanNamed(replayed, 'invoke_agent');
    expect(replayedRun.parentSpanId).toBe(root.spanId);
    expect(replayedRun.attributes).toMatchObject({
      'cuonztech.scenario': 'F1',
      'cuonztech.verdict': 'FAIL',
      'cuonztech.executions': 2,
    });
    expect(evaluations(replayedRun)['duplicate_execution']).toMatchObject({ 'gen_ai.evaluation.score.label': 'FAIL' });
    const replayedSession = spanNamed(replayed, 'cuonztech.session');
    expect(replayedSession.parentSpanId).toBe(replayedRun.spanId);
    const replayedGhost = childrenOf(replayed, replayedSession).find((s) => s.attributes['cuonztech.fault'] === 'F1');
    expect(replayedGhost?.name).toBe('tools/call create_booking');
    expect(replayedGhost?.attributes['cuonztech.executed']).toBe('true');
  });
});

/** The compiled CLI run to its end (stdin closed); never rejects. */
function cli(args: string[], options: { env?: Record<string, string>; cwd?: string; nodeFlags?: string[] } = {}) {
  return execa(process.execPath, [...(options.nodeFlags ?? []), BIN, ...args], {
    reject: false,
    timeout: 60_000,
    stdin: 'ignore',
    cwd: options.cwd ?? ROOT,
    env: options.env ?? {},
  });
}

describe('R-18.1: probe --otel (the compiled CLI, a real server process, a real OTLP/HTTP receiver)', () => {
  it('a span per probe with its label, the probe’s session and calls under it, the F1 retry marked, each tool’s verdict at the end', async () => {
    receiver = await startOtlpReceiver();
    const dir = mkdtempSync(join(tmpdir(), 'probe-traces-'));
    try {
      const ledger = join(dir, 'ledger.jsonl');
      const result = await cli(
        [
          'probe',
          '--upstream-command',
          process.execPath,
          '--upstream-arg',
          join(FIXTURES, 'key-ignoring-server.mjs'),
          '--tools',
          'create_*',
          '--example',
          'create_payment={"amount":5,"currency":"EUR"}',
          '--count-with',
          'list_items',
          '--otel',
          '--otel-endpoint',
          receiver.base,
        ],
        { env: { FIXTURE_LEDGER: ledger }, cwd: dir },
      );
      expect(result.exitCode, String(result.stderr)).toBe(2);
      expect(String(result.stderr)).toMatch(/traces: \d+ spans exported to http:\/\/127\.0\.0\.1:\d+\/v1\/traces/);
      const spans = await receiver.waitFor(1);
      const root = spanNamed(spans, 'cuonztech.probe');
      expect(root.parentSpanId).toBe('');
      expect(evaluations(root)['idempotency']).toMatchObject({
        'gen_ai.evaluation.score.label': 'BREAKS',
        'gen_ai.tool.name': 'create_payment',
      });
      const probes = childrenOf(spans, root);
      expect(probes.length).toBeGreaterThan(1);
      for (const probe of probes) {
        expect(probe.name).toBe(`probe ${String(probe.attributes['cuonztech.probe.id'])} create_payment`);
        expect(evaluations(probe)['idempotency_probe']?.['gen_ai.evaluation.score.label']).toBe(
          probe.attributes['cuonztech.probe.label'],
        );
        const [session] = childrenOf(spans, probe);
        expect(session!.name).toBe('cuonztech.session');
      }
      // The probe after F1: its first write is the ghost write, marked as behind the proxy.
      const afterF1 = probes.find((p) =>
        spans.some((s) => s.attributes['cuonztech.fault'] === 'F1' && s.traceId === p.traceId && isBelow(spans, s, p)),
      );
      expect(afterF1).toBeDefined();
      const ghost = spans.find((s) => s.kind === SPAN_KIND.server && s.attributes['cuonztech.fault'] === 'F1')!;
      expect(ghost.attributes).toMatchObject({ 'cuonztech.executed': 'true', 'cuonztech.agent.told': 'timeout' });
      // Counted in the server process: every forwarded write is in its ledger, and every ledger line has its span.
      const writes = spans.filter((s) => s.kind === SPAN_KIND.client && s.name === 'tools/call create_payment');
      expect(readLines(ledger).filter((line) => line['tool'] === 'create_payment')).toHaveLength(writes.length);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** Whether `span` is below `ancestor` in the tree. */
function isBelow(spans: readonly ReceivedSpan[], span: ReceivedSpan, ancestor: ReceivedSpan): boolean {
  for (let at: ReceivedSpan | undefined = span; at !== undefined; at = spans.find((s) => s.spanId === at.parentSpanId))
    if (at.parentSpanId === ancestor.spanId) return true;
  return false;
}

describe('R-18.2: trial, probe and replay without --otel', () => {
  it('load no OpenTelemetry module (each command’s wiring is loaded, then refuses its input); with --otel they do', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'harness-no-otel-'));
    try {
      const hook = noOtelHook(dir);
      const upstream = ['--upstream-command', process.execPath, '--upstream-arg', join(FIXTURES, 'exits-at-once.mjs')];
      // Each reaches its command's wiring (trial-run, probe-run, replay-run and what they import) and then
      // fails on its input: a model endpoint nobody serves, an upstream that exits, a run that is not there.
      const cases: Array<[string, string[]]> = [
        ['trial', ['trial', '--model', 'm', '--base-url', 'http://127.0.0.1:9/v1', '--task', 't', ...upstream]],
        ['probe', ['probe', ...upstream]],
        ['replay', ['replay', join(dir, 'no-such-run')]],
      ];
      for (const [name, args] of cases) {
        const without = await cli(args, { nodeFlags: hook, cwd: dir });
        expect(without.exitCode, name).toBe(1);
        expect(String(without.stderr), name).not.toMatch(/OpenTelemetry resolved/);
        expect(String(without.stderr), name).not.toBe('');
      }
      // The hook works: probe with --otel resolves OpenTelemetry before it starts the upstream, and says so.
      const withOtel = await cli([...cases[1]![1], '--otel'], { nodeFlags: hook, cwd: dir });
      expect(String(withOtel.stderr)).toContain('--otel: the OpenTelemetry exporter could not be loaded: OpenTelemetry resolved');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
