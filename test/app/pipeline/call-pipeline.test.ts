import { describe, expect, it } from 'vitest';
import { CallPipeline, NOT_FORWARDED_SESSION_ENDED, type PublishReport } from '../../../src/app/pipeline/call-pipeline.js';
import { evaluate } from '../../../src/domain/report/report.js';
import { EvaluationSession } from '../../../src/domain/judging/session.js';
import type { ScenarioConfig } from '../../../src/domain/faults/fault-plan.js';
import { HeldUpstream, okResult } from '../../support/in-memory-sides.js';
import { TestClock, fixedRandom } from '../../support/session-driver.js';

function setup(
  options: {
    scenario?: ScenarioConfig;
    outputSchemaTools?: string[];
    publish?: PublishReport | null;
    onBookkeepingError?: (error: unknown) => void;
  } = {},
) {
  const session = new EvaluationSession(
    { scenario: options.scenario ?? { mode: 'none' }, keyFields: ['idempotency_key'] },
    { classOf: (name) => (name.startsWith('create') ? 'write' : 'read'), acceptsKey: () => false },
    new TestClock(),
    fixedRandom(0.5),
  );
  const upstream = new HeldUpstream();
  const log: string[] = [];
  const publish: PublishReport = async () => {
    log.push(`publish ${evaluate(session).verdict.verdict}`);
  };
  const pipeline = new CallPipeline({
    session,
    upstream,
    callTimeoutMs: 60_000,
    outputSchemaTools: new Set(options.outputSchemaTools ?? []),
    publish: options.publish === undefined ? publish : options.publish,
    ...(options.onBookkeepingError !== undefined ? { onBookkeepingError: options.onBookkeepingError } : {}),
  });
  return { session, upstream, pipeline, log };
}

describe('CallPipeline: one call from receipt to delivery', () => {
  it('R-9.2.1/R-9.2: publish (in flight) → upstream → publish (answered) → the agent', async () => {
    const { upstream, pipeline, log } = setup();
    const answer = pipeline
      .call({ name: 'create_order', arguments: { n: 1 } })
      .then((result) => log.push('agent answered') && result);
    const [held] = await upstream.received(1);
    log.push('at the upstream');
    held!.answer(okResult('done'));
    expect(await answer).toEqual({ content: [{ type: 'text', text: 'done' }] });
    expect(log).toEqual(['publish NOT_TESTED', 'at the upstream', 'publish PASS', 'agent answered']);
  });

  it('R-4: F1 replaces the executed answer with the timeout; the record says so', async () => {
    const { upstream, pipeline } = setup({ scenario: { mode: 'scenario', id: 'F1' } });
    const record = pipeline.run({ name: 'create_order', arguments: { n: 1 } });
    (await upstream.received(1))[0]!.answer(okResult());
    expect(await record).toMatchObject({
      fault: 'F1',
      callClass: 'write',
      replaced: true,
      result: { isError: true },
      upstream: { kind: 'result' },
    });
  });

  it('R-1.3: a tool with an outputSchema answering without structuredContent is EXECUTION_UNKNOWN (the benchmark runs this rule too)', async () => {
    const { session, upstream, pipeline } = setup({ outputSchemaTools: ['create_order'], publish: null });
    const answer = pipeline.call({ name: 'create_order', arguments: { n: 1 } });
    (await upstream.received(1))[0]!.answer(okResult());
    await answer;
    expect([...session.operations.values()].map((op) => op.unknown)).toEqual([1]);
  });

  it('R-8.8: a call whose report write was still pending when the session ended is not forwarded', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { session, upstream, pipeline } = setup({ publish: () => gate });
    const answer = pipeline.call({ name: 'create_order', arguments: { n: 1 } });
    session.finish();
    release();
    expect(await answer).toBe(NOT_FORWARDED_SESSION_ENDED);
    expect(upstream.held).toHaveLength(0);
    expect([...session.operations.values()].map((op) => op.unknown)).toEqual([1]);
  });

  it('drained() resolves when the last forwarded call is answered, or after its bound', async () => {
    const { upstream, pipeline } = setup({ publish: null });
    expect(pipeline.callsInFlight).toBe(0);
    const answer = pipeline.call({ name: 'create_order', arguments: { n: 1 } });
    const [held] = await upstream.received(1);
    expect(pipeline.callsInFlight).toBe(1);
    let drained = false;
    const waiting = pipeline.drained(60_000).then(() => (drained = true));
    expect(drained).toBe(false);
    held!.answer(okResult());
    await Promise.all([answer, waiting]);
    expect(drained).toBe(true);
  });
});

/** Call arguments that count how often their keys are listed, or throw when they are (`broken`). */
function watchedArguments(broken = false): { args: Record<string, unknown>; looks: () => number } {
  let looks = 0;
  const args = new Proxy<Record<string, unknown>>(
    { n: 1 },
    {
      ownKeys: (target) => {
        looks++;
        if (broken) throw new Error('arguments that cannot be listed');
        return Reflect.ownKeys(target);
      },
    },
  );
  return { args, looks: () => looks };
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** How often the arguments had been read when the call reached the upstream (-1: it has not yet). */
function looksWhenForwarded(upstream: HeldUpstream, looks: () => number): () => number {
  const callTool = upstream.callTool.bind(upstream);
  let atUpstream = -1;
  upstream.callTool = (request) => {
    atUpstream = looks();
    return callTool(request);
  };
  return () => atUpstream;
}

describe('CallPipeline: the session books a call while the upstream works on it', () => {
  it('without a report the call reaches the upstream before its arguments are read; they are booked before the answer', async () => {
    const { session, upstream, pipeline } = setup({ publish: null });
    const { args, looks } = watchedArguments();
    const atUpstream = looksWhenForwarded(upstream, looks);
    const answer = pipeline.call({ name: 'create_order', arguments: args });
    const [held] = await upstream.received(1);
    expect(atUpstream()).toBe(0);
    await nextTurn();
    expect(looks()).toBeGreaterThan(0);
    held!.answer(okResult('done'));
    expect(await answer).toEqual({ content: [{ type: 'text', text: 'done' }] });
    expect(evaluate(session).verdict.verdict).toBe('PASS');
  });

  it('with a report the arrival is booked before the call goes on (R-9.2.1: the document shows it in flight)', async () => {
    const { upstream, pipeline } = setup();
    const { args, looks } = watchedArguments();
    const atUpstream = looksWhenForwarded(upstream, looks);
    const answer = pipeline.call({ name: 'create_order', arguments: args });
    (await upstream.received(1))[0]!.answer(okResult());
    await answer;
    expect(atUpstream()).toBeGreaterThan(0);
  });

  it('a step that fails to book between calls is told to onBookkeepingError, and the call still gets its answer', async () => {
    const errors: unknown[] = [];
    const { upstream, pipeline } = setup({ publish: null, onBookkeepingError: (error) => errors.push(error) });
    const answer = pipeline.call({ name: 'create_order', arguments: watchedArguments(true).args });
    const [held] = await upstream.received(1);
    await nextTurn();
    expect(errors.map(String)).toEqual(['Error: arguments that cannot be listed']);
    held!.answer(okResult('done'));
    expect(await answer).toEqual({ content: [{ type: 'text', text: 'done' }] });
  });
});

describe('CallAttempt: the steps of a call cannot come out of order', () => {
  it('R-1.3: answered() before forwarded(), a second delivered(), forwarded() of an injected fault: each throws', () => {
    const { session } = setup({ scenario: { mode: 'scenario', id: 'F2' } });
    const injected = session.receive('create_order', { n: 1 });
    expect(() => injected.forwarded()).toThrow(/forwarded\(\) out of order/);
    injected.delivered();
    expect(() => injected.delivered()).toThrow(/delivered\(\) out of order/);
    const forwarded = session.receive('create_order', { n: 2 });
    expect(() => forwarded.answered({ kind: 'rejected' })).toThrow(/answered\(\) out of order/);
    forwarded.forwarded();
    forwarded.answered({ kind: 'rejected' });
    expect(() => forwarded.answered({ kind: 'rejected' })).toThrow(/answered\(\) out of order/);
  });
});
