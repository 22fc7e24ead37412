/**
 * Timing and aim in the call pipeline, on a manual clock (no real sleeps): the latency before forwarding, F1's
 * held answer, and the agent's cancellation (the upstream is told through the aborted signal; the outcome
 * is what the upstream really did).
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/adapters/time/manual-clock.js';
import { CallPipeline } from '../../../src/app/pipeline/call-pipeline.js';
import type { ScenarioConfig } from '../../../src/domain/faults/fault-plan.js';
import { buildReport, evaluate } from '../../../src/domain/report/report.js';
import { EvaluationSession } from '../../../src/domain/judging/session.js';
import type { ToolCallRequest } from '../../../src/ports/shapes/mcp-shapes.js';
import type { Timer } from '../../../src/ports/timer.port.js';
import type { UpstreamCallOptions, UpstreamCallOutcome, UpstreamSide } from '../../../src/ports/upstream-side.port.js';
import { okResult } from '../../support/in-memory-sides.js';
import { fixedRandom } from '../../support/session-driver.js';

/** An upstream that holds calls until answered and, like the SDK client, gives up on an aborted signal. */
class CancellableUpstream implements UpstreamSide {
  readonly calls: Array<{
    request: ToolCallRequest;
    at: number;
    signal: AbortSignal | undefined;
    answer(o: UpstreamCallOutcome): void;
  }> = [];
  constructor(private readonly clock: ManualClock) {}
  connect = async () => ({});
  listTools = async () => [];
  onExit(): void {}
  close = async () => undefined;
  callTool(request: ToolCallRequest, options: UpstreamCallOptions): Promise<UpstreamCallOutcome> {
    return new Promise((resolve) => {
      options.signal?.addEventListener(
        'abort',
        () => resolve({ kind: 'connection-lost', detail: 'the call was cancelled before the upstream answered' }),
        { once: true },
      );
      this.calls.push({ request, at: this.clock.now(), signal: options.signal, answer: resolve });
    });
  }
}

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

function setup(scenario: ScenarioConfig, timer?: Timer) {
  const clock = new ManualClock(1000);
  const session = new EvaluationSession(
    { scenario, keyFields: ['idempotency_key'] },
    { classOf: (name) => (name.startsWith('create') ? 'write' : 'read'), acceptsKey: () => false },
    clock,
    fixedRandom(0.5),
  );
  const upstream = new CancellableUpstream(clock);
  const pipeline = new CallPipeline({
    session,
    upstream,
    callTimeoutMs: 60_000,
    outputSchemaTools: new Set(),
    publish: null,
    timer: timer ?? clock,
  });
  return { clock, session, upstream, pipeline, report: () => buildReport(session, 'proxy', []) };
}

const F1 = (extra: Partial<ScenarioConfig> = {}): ScenarioConfig => ({ mode: 'scenario', id: 'F1', ...extra }) as ScenarioConfig;

describe('timing in the call pipeline (manual clock)', () => {
  it('a scenario with --latency or --hold and no Timer wired is refused at construction', () => {
    const session = (scenario: ScenarioConfig) =>
      new EvaluationSession(
        { scenario, keyFields: [] },
        { classOf: () => 'write', acceptsKey: () => false },
        new ManualClock(0),
        fixedRandom(0.5),
      );
    const deps = {
      upstream: new CancellableUpstream(new ManualClock(0)),
      callTimeoutMs: 1000,
      outputSchemaTools: new Set<string>(),
      publish: null,
    };
    expect(() => new CallPipeline({ ...deps, session: session({ mode: 'none', latency: { ms: 5, jitterMs: 0 } }) })).toThrow(
      /needs a Timer/,
    );
    expect(() => new CallPipeline({ ...deps, session: session(F1({ holdMs: 10 })) })).toThrow(/needs a Timer/);
    expect(() => new CallPipeline({ ...deps, session: session(F1()) })).not.toThrow();
  });

  it('--latency: the call reaches the upstream only after the latency, reads as writes', async () => {
    const { clock, upstream, pipeline, report } = setup({ mode: 'none', latency: { ms: 250, jitterMs: 0 } });
    const answer = pipeline.call({ name: 'get_booking', arguments: {} });
    await flush();
    expect(upstream.calls).toHaveLength(0);
    clock.advance(249);
    await flush();
    expect(upstream.calls).toHaveLength(0);
    clock.advance(1);
    await flush();
    expect(upstream.calls.map((c) => c.at)).toEqual([1250]);
    upstream.calls[0]!.answer(okResult());
    await answer;
    expect(report().timing).toEqual([{ attempt: 1, tool: 'get_booking', latencyMs: 250, outcome: 'executed' }]);
  });

  it('a call cancelled during its latency never reaches the upstream: not executed, cancellation recorded', async () => {
    const { clock, upstream, pipeline, report } = setup({ mode: 'none', latency: { ms: 500, jitterMs: 0 } });
    const agent = new AbortController();
    const answer = pipeline.run({ name: 'create_booking', arguments: { n: 1 } }, agent.signal);
    clock.advance(120);
    agent.abort();
    const record = await answer;
    expect(record.upstream).toMatchObject({ kind: 'not-sent' });
    expect(upstream.calls).toHaveLength(0);
    expect(report().timing).toEqual([
      { attempt: 1, tool: 'create_booking', latencyMs: 500, cancelledAfterMs: 120, outcome: 'not-executed' },
    ]);
    expect(report().operations[0]).toMatchObject({ executions: 0 });
  });

  it('--hold: the ghost write executes at once, the timeout answer comes only after the hold', async () => {
    const { clock, upstream, pipeline, report } = setup(F1({ holdMs: 5000 }));
    let answered = false;
    const answer = pipeline.call({ name: 'create_booking', arguments: { n: 1 } }).then((r) => ((answered = true), r));
    await flush();
    expect(upstream.calls.map((c) => c.at)).toEqual([1000]);
    upstream.calls[0]!.answer(okResult('booked'));
    await flush();
    expect(report().operations[0]).toMatchObject({ executions: 1 });
    clock.advance(4999);
    await flush();
    expect(answered).toBe(false);
    clock.advance(1);
    expect(await answer).toMatchObject({ isError: true, content: [{ text: expect.stringContaining('within 5 seconds') }] });
    expect(report().timing).toEqual([{ attempt: 1, tool: 'create_booking', heldMs: 5000, outcome: 'executed' }]);
  });

  it('the agent cancelling during the hold ends it; the report says after how long; the ghost write counts as executed', async () => {
    const { clock, upstream, pipeline, report } = setup(F1({ holdMs: 5000 }));
    const agent = new AbortController();
    const answer = pipeline.run({ name: 'create_booking', arguments: { n: 1 } }, agent.signal);
    await flush();
    upstream.calls[0]!.answer(okResult('booked'));
    await flush();
    clock.advance(2000);
    agent.abort();
    const record = await answer;
    expect(record.replaced).toBe(true);
    expect(clock.pendingWaits).toBe(0);
    expect(report().timing).toEqual([
      { attempt: 1, tool: 'create_booking', heldMs: 2000, cancelledAfterMs: 2000, outcome: 'executed' },
    ]);
    expect(report().operations[0]).toMatchObject({ executions: 1, fault: 'F1' });
  });

  it('cancelling a forwarded call tells the upstream (its signal aborts); with no answer the outcome is unknown', async () => {
    const { clock, upstream, pipeline, report } = setup({ mode: 'none' });
    const agent = new AbortController();
    const answer = pipeline.run({ name: 'create_booking', arguments: { n: 1 } }, agent.signal);
    await flush();
    clock.advance(300);
    agent.abort();
    await answer;
    expect(upstream.calls[0]!.signal?.aborted).toBe(true);
    expect(report().operations[0]).toMatchObject({ executions: 0, outcome: 'EXECUTION_UNKNOWN' });
    expect(report().timing).toEqual([{ attempt: 1, tool: 'create_booking', cancelledAfterMs: 300, outcome: 'unknown' }]);
  });

  it('the upstream answered before the cancellation took effect: executed', async () => {
    const { upstream, pipeline, report } = setup({ mode: 'none' });
    const agent = new AbortController();
    const answer = pipeline.run({ name: 'create_booking', arguments: { n: 1 } }, agent.signal);
    await flush();
    upstream.calls[0]!.answer(okResult('booked'));
    agent.abort();
    await answer;
    expect(report().operations[0]).toMatchObject({ executions: 1 });
    expect(report().timing).toEqual([{ attempt: 1, tool: 'create_booking', cancelledAfterMs: 0, outcome: 'executed' }]);
  });

  it('without timing flags the timer is never used (no per-call change)', async () => {
    const refuse: Timer = { sleep: () => Promise.reject(new Error('the timer must not be used')) };
    const { upstream, pipeline, report } = setup(F1(), refuse);
    const answer = pipeline.call({ name: 'create_booking', arguments: { n: 1 } });
    await flush();
    upstream.calls[0]!.answer(okResult());
    expect(await answer).toMatchObject({ isError: true, content: [{ text: expect.stringContaining('within 60 seconds') }] });
    expect(report().timing).toBeUndefined();
  });

  it('(docs/commands/proxy.md): re-sending after a cancel → NOT_TESTED when the upstream had not answered, FAIL after a held ghost write, PASS after a cancel during the latency', async () => {
    const resend = async (scenario: ScenarioConfig, answerFirst: boolean, advanceBeforeAbort: number) => {
      const { clock, upstream, pipeline, session } = setup(scenario);
      const agent = new AbortController();
      const first = pipeline.run({ name: 'create_booking', arguments: { n: 1 } }, agent.signal);
      await flush();
      if (answerFirst) upstream.calls[0]!.answer(okResult());
      await flush();
      clock.advance(advanceBeforeAbort);
      agent.abort();
      await first;
      const second = pipeline.run({ name: 'create_booking', arguments: { n: 1 } });
      clock.advance(1000);
      await flush();
      upstream.calls.at(-1)!.answer(okResult());
      await second;
      return buildReport(session, 'proxy', []).verdict;
    };
    expect(await resend({ mode: 'none' }, false, 10)).toBe('NOT_TESTED');
    expect(await resend(F1({ holdMs: 5000 }), true, 10)).toBe('FAIL');
    expect(await resend({ mode: 'none', latency: { ms: 500, jitterMs: 0 } }, false, 10)).toBe('PASS');
  });
});

describe('F6 late ghost write in the call pipeline (manual clock)', () => {
  const F6 = (landAfterMs?: number): ScenarioConfig => ({
    mode: 'scenario',
    id: 'F6',
    ...(landAfterMs === undefined ? {} : { parameters: { landAfterMs } }),
  });
  const booking = { name: 'create_booking', arguments: { guest: 'Ada' } };
  const executed = { kind: 'result', result: okResult('{"id":"BK-1"}') } as const;

  it('R-16.1: the time-out comes at once; a read in between reaches the upstream, the write only after --land-after', async () => {
    const { clock, upstream, pipeline, report } = setup(F6(3000));
    const told = await pipeline.call(booking);
    expect(told).toMatchObject({ isError: true });
    expect(JSON.stringify(told)).toMatch(/timed out/);
    const read = pipeline.call({ name: 'search_bookings', arguments: { guest: 'Ada' } });
    await flush();
    expect(upstream.calls.map((c) => c.request.name)).toEqual(['search_bookings']);
    upstream.calls[0]!.answer({ kind: 'result', result: okResult('[]') });
    await read;
    clock.advance(2999);
    await flush();
    expect(upstream.calls).toHaveLength(1);
    expect(pipeline.callsInFlight).toBe(1);
    clock.advance(1);
    await flush();
    expect(upstream.calls.map((c) => [c.request.name, c.at])).toEqual([
      ['search_bookings', 1000],
      ['create_booking', 4000],
    ]);
    clock.advance(250);
    upstream.calls[1]!.answer(executed);
    await flush();
    expect(pipeline.callsInFlight).toBe(0);
    expect(report().timing).toEqual([
      {
        attempt: 1,
        tool: 'create_booking',
        landedLate: { toldAfterMs: 0, forwardedAfterMs: 3000, landedAfterMs: 3250 },
        execution: 1,
        outcome: 'executed',
      },
    ]);
    // Checked after the time-out, but before the landing: no second write, PASS (the write executed once).
    expect(report()).toMatchObject({ verdict: 'PASS', operations: [expect.objectContaining({ executions: 1 })] });
  });

  it('R-16.1: a re-send while the late write is pending executes first; the late one lands second → FAIL, the timing says which was which', async () => {
    const { clock, session, upstream, pipeline, report } = setup(F6());
    await pipeline.call(booking);
    const resend = pipeline.call(booking);
    await flush();
    expect(upstream.calls.map((c) => c.at)).toEqual([1000]);
    upstream.calls[0]!.answer(executed);
    await resend;
    // In flight: an unknown write re-sent is not judged yet.
    expect(report().verdict).toBe('NOT_TESTED');
    clock.advance(5000);
    await flush();
    upstream.calls[1]!.answer(executed);
    await flush();
    expect(report()).toMatchObject({
      verdict: 'FAIL',
      operations: [expect.objectContaining({ executions: 2, attempts: 2 })],
      violations: [
        expect.objectContaining({ type: 'DUPLICATE_EXECUTION', duplicate: expect.objectContaining({ afterTimeout: true }) }),
      ],
    });
    // Its patch: a check right after a late write is stale (not GHOST_WRITE's "check, then retry once").
    expect(evaluate(session).patches.map((p) => p.id)).toEqual(['LATE_WRITE']);
    // Which was which: the re-send (attempt 2, sent beside the pending attempt 1) executed first, the late
    // write second — execution numbers in landing order, not in the order the agent sent them.
    expect(report().timing).toEqual([
      { attempt: 2, tool: 'create_booking', besideLate: 1, execution: 1, outcome: 'executed' },
      {
        attempt: 1,
        tool: 'create_booking',
        landedLate: { toldAfterMs: 0, forwardedAfterMs: 5000, landedAfterMs: 5000 },
        execution: 2,
        outcome: 'executed',
      },
    ]);
  });

  it('R-16.1: only writes of the same operation sent before the landing are beside the late one; a re-send after it, or of another operation, is not', async () => {
    const { clock, upstream, pipeline, report } = setup(F6(1000));
    await pipeline.call(booking);
    const other = pipeline.call({ name: 'create_booking', arguments: { guest: 'Bo' } });
    await flush();
    upstream.calls[0]!.answer(executed);
    await other;
    const beside = pipeline.call(booking);
    await flush();
    // The upstream rejects the re-send beside it: no execution number, still marked beside attempt 1.
    upstream.calls[1]!.answer({ kind: 'result', result: { content: [{ type: 'text', text: 'no' }], isError: true } });
    await beside;
    clock.advance(1000);
    await flush();
    upstream.calls[2]!.answer(executed);
    await flush();
    const after = pipeline.call(booking);
    await flush();
    upstream.calls[3]!.answer(executed);
    await after;
    expect(report().timing).toEqual([
      { attempt: 3, tool: 'create_booking', besideLate: 1, outcome: 'rejected' },
      {
        attempt: 1,
        tool: 'create_booking',
        landedLate: { toldAfterMs: 0, forwardedAfterMs: 1000, landedAfterMs: 1000 },
        execution: 1,
        outcome: 'executed',
      },
    ]);
  });

  it('R-16.1: F6 aimed with --fault-tool create_pay* --fault-on 2: only the second create_payment lands late; the other writes go at once', async () => {
    const { clock, upstream, pipeline, report } = setup({ ...F6(2000), aim: { tools: ['create_pay*'], on: 2 } });
    const answerAll = async () => {
      await flush();
      for (const call of upstream.calls) call.answer(executed);
      await flush();
    };
    const call = async (name: string, n: number) => {
      const answer = pipeline.call({ name, arguments: { n } });
      await answerAll();
      return answer;
    };
    expect(await call('create_payment', 1)).not.toHaveProperty('isError');
    expect(await call('create_booking', 1)).not.toHaveProperty('isError');
    const aimed = await call('create_payment', 2);
    expect(JSON.stringify(aimed)).toMatch(/timed out/);
    expect(await call('create_payment', 3)).not.toHaveProperty('isError');
    expect(upstream.calls.map((c) => [c.request.name, (c.request.arguments as { n: number }).n, c.at])).toEqual([
      ['create_payment', 1, 1000],
      ['create_booking', 1, 1000],
      ['create_payment', 3, 1000],
    ]);
    clock.advance(2000);
    await answerAll();
    expect(upstream.calls.map((c) => [c.request.name, (c.request.arguments as { n: number }).n, c.at]).at(-1)).toEqual([
      'create_payment',
      2,
      3000,
    ]);
    const timing = report().timing ?? [];
    expect(timing.filter((t) => t.landedLate !== undefined)).toEqual([
      expect.objectContaining({ tool: 'create_payment', landedLate: expect.objectContaining({ forwardedAfterMs: 2000 }) }),
    ]);
    expect(report()).toMatchObject({ verdict: 'PASS', scenario: expect.objectContaining({ faultsApplied: 1 }) });
  });

  it('R-16.1: landPending lands a waiting write at once (the session is ending); the upstream dying first leaves it EXECUTION_UNKNOWN', async () => {
    const landed = setup(F6(600_000));
    await landed.pipeline.call(booking);
    const done = landed.pipeline.landPending();
    await flush();
    expect(landed.upstream.calls.map((c) => c.at)).toEqual([1000]);
    landed.upstream.calls[0]!.answer(executed);
    await done;
    landed.session.finish();
    expect(landed.report().operations).toEqual([expect.objectContaining({ executions: 1 })]);

    const lost = setup(F6(100));
    await lost.pipeline.call(booking);
    lost.clock.advance(100);
    await flush();
    lost.upstream.calls[0]!.answer({ kind: 'connection-lost', detail: 'the upstream exited' });
    await flush();
    lost.session.finish();
    expect(lost.report().operations).toEqual([expect.objectContaining({ outcome: 'EXECUTION_UNKNOWN', executions: 0 })]);
    expect(lost.report().timing).toEqual([expect.objectContaining({ attempt: 1, outcome: 'unknown' })]);
  });

  it('R-16.1: the upstream already gone when the late write is due: never sent, NOT_EXECUTED, yet F6 was applied (the agent was told its time-out)', async () => {
    const { clock, upstream, pipeline, report } = setup(F6(100));
    await pipeline.call(booking);
    clock.advance(100);
    await flush();
    upstream.calls[0]!.answer({ kind: 'unavailable', detail: 'the upstream exited' });
    await flush();
    expect(report()).toMatchObject({
      operations: [expect.objectContaining({ outcome: 'NOT_EXECUTED', executions: 0 })],
      scenario: expect.objectContaining({ triggered: true, faultsApplied: 1 }),
    });
    expect(report().timing).toEqual([
      {
        attempt: 1,
        tool: 'create_booking',
        landedLate: { toldAfterMs: 0, forwardedAfterMs: null, landedAfterMs: 100 },
        outcome: 'not-executed',
      },
    ]);
  });
});
