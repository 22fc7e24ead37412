import { describe, expect, it } from 'vitest';
import { ModelSide, type RequestedCall } from '../../../src/domain/judging/attribution.js';
import { formatScoreAnswer } from '../../../src/domain/report/format.js';
import { serializeDocument } from '../../../src/domain/report/report-document.js';
import { summariseRuns } from '../../../src/domain/trial/trial-summary.js';
import { formatSummaryMarkdown } from '../../../src/domain/trial/summary-markdown.js';
import { run, times } from '../../support/run-facts.js';
import { Driver } from '../../support/session-driver.js';

const ARGS = { guest: 'Ann Lee' };
const BOOK = 'create_booking';
const toolCall = (id: string, args: unknown = ARGS): RequestedCall => ({ id, tool: BOOK, arguments: JSON.stringify(args) });

/** A session with the model's side attached, as the built-in loop and the model gateway give it. */
function withModel() {
  const model = new ModelSide();
  const driver = new Driver({ mode: 'none' }, undefined, { modelSide: model });
  let exchange = 0;
  return {
    driver,
    user: () => model.feed({ kind: 'user-turn' }),
    answer: (...calls: RequestedCall[]) => model.feed({ kind: 'model-answer', exchange: ++exchange, toolCalls: calls }),
  };
}

const sources = (driver: Driver) => (driver.report().attribution ?? []).map((a) => a.source);

describe('R-14.1 attribution with the model side: who sent a write again', () => {
  it('R-14.1 model: a new model answer asked for the write again after the earlier answer was delivered', () => {
    const { driver, user, answer } = withModel();
    user();
    answer(toolCall('c1'));
    driver.call(BOOK, ARGS);
    driver.wait(20);
    answer(toolCall('c2'));
    driver.call(BOOK, ARGS);
    const report = driver.report();
    expect(report.attribution).toEqual([
      {
        operation: 1,
        tool: BOOK,
        attempt: 2,
        session: 1,
        source: 'model',
        evidence: {
          earlierAttempt: 1,
          earlierSession: 1,
          sinceEarlierMs: 20,
          earlierDelivered: true,
          earlierCancelled: false,
          modelAnswer: 2,
          toolCallId: 'c2',
        },
      },
    ]);
    expect(report.violations[0]!.duplicate!.source).toBe('model');
    // A model duplicate gets its prompt patch and no finding.
    const evaluation = driver.evaluation();
    expect(evaluation.patches.map((p) => p.id)).toEqual(['IDEMPOTENCY']);
    expect(evaluation.findings).toEqual([]);
  });

  it('R-14.1 user: a user turn came between the earlier delivery and the model answer that asked again', () => {
    const { driver, user, answer } = withModel();
    user();
    answer(toolCall('c1'));
    driver.call(BOOK, ARGS, 'timeout');
    user(); // "Please try again."
    answer(toolCall('c2'));
    driver.call(BOOK, ARGS);
    expect(sources(driver)).toEqual(['user']);
    expect(driver.report().violations).toEqual([]);
  });

  it('R-14.1 runtime: one tool call carried out twice, no model answer asked again', () => {
    const { driver, user, answer } = withModel();
    user();
    answer(toolCall('c1'));
    driver.call(BOOK, ARGS);
    driver.call(BOOK, ARGS);
    const [entry] = driver.report().attribution!;
    expect(entry!.source).toBe('runtime');
    expect(entry!.evidence.signal).toBe('same-tool-call-twice');
    expect(entry!.evidence.toolCallId).toBeUndefined();
  });

  it('R-14.1 runtime: a write that no model answer asked for', () => {
    const { driver, user } = withModel();
    user();
    driver.call(BOOK, ARGS);
    driver.call(BOOK, ARGS);
    expect(driver.report().attribution!.map((a) => a.evidence.signal)).toEqual(['unrequested-call']);
  });

  it('R-14.1 a framework that rewrote the arguments still carries out the tool call of that tool', () => {
    const { driver, user, answer } = withModel();
    user();
    answer(toolCall('c1'));
    driver.call(BOOK, ARGS);
    answer(toolCall('c2', { guest: 'Ann  Lee' }));
    driver.call(BOOK, ARGS);
    expect(sources(driver)).toEqual(['model']);
  });

  it('R-14.1 two identical tool calls in one model answer are the model asking twice', () => {
    const { driver, user, answer } = withModel();
    user();
    answer(toolCall('c1'), toolCall('c2'));
    const first = driver.send(BOOK, ARGS);
    const second = driver.send(BOOK, ARGS);
    driver.answer(first);
    driver.answer(second);
    expect(driver.report().attribution!.map((a) => [a.source, a.evidence.toolCallId, a.evidence.earlierDelivered])).toEqual([
      ['model', 'c2', false],
    ]);
  });

  it('R-14.1 a re-sent attempt of a faulted operation is attributed too, though it is no duplicate', () => {
    const driver = new Driver({ mode: 'scenario', id: 'F3', parameters: { retryAfterSeconds: 0 } }, undefined, {
      modelSide: new ModelSide(),
    });
    driver.call(BOOK, ARGS);
    driver.call(BOOK, ARGS);
    expect(driver.report().violations).toEqual([]);
    expect(sources(driver)).toEqual(['runtime']);
  });
});

describe('R-14.2 attribution without the model side: only decisive signals', () => {
  it('R-14.2 an ordinary re-call is unknown', () => {
    const driver = new Driver();
    driver.call(BOOK, ARGS);
    driver.call(BOOK, ARGS);
    const report = driver.report();
    expect(report.attribution!.map((a) => [a.source, a.evidence.signal])).toEqual([['unknown', undefined]]);
    expect(report.violations[0]!.duplicate!.source).toBe('unknown');
    // The harness cannot tell: the prompt patch is still offered (it may be the model's).
    expect(driver.evaluation().patches.map((p) => p.id)).toEqual(['IDEMPOTENCY']);
  });

  it('R-14.2 the same JSON-RPC request id sent again in the same MCP session is runtime', () => {
    const driver = new Driver();
    driver.call(BOOK, ARGS); // no origin: request id unknown
    const first = driver.send(BOOK, ARGS, { session: 1, requestId: 7 });
    driver.answer(first);
    driver.answer(driver.send(BOOK, ARGS, { session: 1, requestId: 7 }));
    // The same id as a string is another id; the same number in another session is another request.
    driver.answer(driver.send(BOOK, ARGS, { session: 1, requestId: '7' }));
    driver.answer(driver.send(BOOK, ARGS, { session: 2, requestId: 7 }));
    expect(driver.report().attribution!.map((a) => [a.source, a.evidence.signal ?? null, a.evidence.requestId ?? null])).toEqual([
      ['unknown', null, 7],
      ['runtime', 'same-request-id', 7],
      ['unknown', null, '7'],
      ['unknown', null, 7],
    ]);
  });

  it('R-14.2 a repeat in another MCP session while the earlier attempt is unanswered is runtime; after its answer it is unknown', () => {
    const driver = new Driver();
    const first = driver.send(BOOK, ARGS, { session: 1, requestId: 1 });
    const second = driver.send(BOOK, ARGS, { session: 2, requestId: 1 });
    driver.answer(first);
    driver.answer(second);
    driver.call(BOOK, ARGS); // session 1, the earlier ones answered
    const entries = driver.report().attribution!;
    expect(entries.map((a) => [a.source, a.evidence.signal ?? null, a.session, a.evidence.earlierSession])).toEqual([
      ['runtime', 'other-session-unanswered', 2, 1],
      ['unknown', null, 1, 2],
    ]);
    // A repeat in the same session while the first is unanswered is no decisive signal (the agent may send in parallel).
    const again = new Driver();
    const a = again.send(BOOK, ARGS, { session: 1, requestId: 1 });
    const b = again.send(BOOK, ARGS, { session: 1, requestId: 2 });
    again.answer(a);
    again.answer(b);
    expect(sources(again)).toEqual(['unknown']);
  });

  it('R-14.3 the evidence says whether the agent had cancelled the earlier attempt', () => {
    const driver = new Driver();
    const first = driver.send(BOOK, ARGS, { session: 1, requestId: 1 });
    first.decision.cancelled();
    driver.wait(5);
    const second = driver.send(BOOK, ARGS, { session: 1, requestId: 2 });
    driver.answer(first);
    driver.answer(second);
    expect(driver.report().attribution![0]!.evidence).toEqual({
      earlierAttempt: 1,
      earlierSession: 1,
      sinceEarlierMs: 5,
      earlierDelivered: false,
      earlierCancelled: true,
      requestId: 2,
    });
  });

  it('R-14.3 a cancelled attempt finished before the repeat arrived was still never delivered (MCP answers no cancelled request)', () => {
    const driver = new Driver();
    const first = driver.send(BOOK, ARGS, { session: 1, requestId: 1 });
    first.decision.cancelled();
    driver.answer(first);
    driver.wait(5);
    driver.answer(driver.send(BOOK, ARGS, { session: 1, requestId: 2 }));
    expect(driver.report().attribution![0]!.evidence).toMatchObject({ earlierDelivered: false, earlierCancelled: true });
  });
});

describe('R-14.4 a runtime duplicate gets a finding, not a prompt patch', () => {
  it('R-14.4 the same JSON-RPC id re-sent: RUNTIME_RESEND naming the behaviour, no IDEMPOTENCY patch', () => {
    const driver = new Driver();
    driver.answer(driver.send(BOOK, ARGS, { session: 1, requestId: 3 }));
    driver.answer(driver.send(BOOK, ARGS, { session: 1, requestId: 3 }));
    const evaluation = driver.evaluation();
    expect(evaluation.verdict.verdict).toBe('FAIL');
    expect(evaluation.patches).toEqual([]);
    expect(evaluation.findings).toEqual([
      expect.objectContaining({ id: 'RUNTIME_RESEND', severity: 'HIGH', behaviour: 'same-request-id', count: 1 }),
    ]);
    expect(evaluation.findings[0]!.text).toContain('A prompt change will not fix this');
    expect(driver.report().violations[0]!.duplicate!.source).toBe('runtime');
    const answer = formatScoreAnswer(evaluation.score, evaluation.patches, evaluation.findings);
    expect(answer).toContain('RUNTIME_RESEND (same-request-id)');
    expect(answer).toContain('No prompt patch');
  });

  it('R-14.4 mixed sources: patches count the model extra executions, findings the runtime ones', () => {
    const { driver, user, answer } = withModel();
    user();
    answer(toolCall('c1'));
    driver.call(BOOK, ARGS);
    driver.call(BOOK, ARGS); // runtime: the same tool call twice
    answer(toolCall('c2'));
    driver.call(BOOK, ARGS); // model
    const evaluation = driver.evaluation();
    expect(evaluation.patches.map((p) => p.id)).toEqual(['IDEMPOTENCY']);
    expect(evaluation.patches[0]!.trigger).toContain('1 time(s)');
    expect(evaluation.findings.map((f) => [f.behaviour, f.count])).toEqual([['same-tool-call-twice', 1]]);
    // One value per violation: the source of the first extra execution.
    expect(driver.report().violations[0]!.duplicate!.source).toBe('runtime');
  });

  it('R-14.4 the first execution is never extra: a runtime retry that executed after a faulted first attempt is no finding', () => {
    const { driver, user } = withModel();
    user();
    driver.call(BOOK, ARGS, 'reject');
    driver.call(BOOK, ARGS); // runtime, the first execution
    expect(driver.evaluation().findings).toEqual([]);
  });

  it('R-14.1 the report file holds the same attribution, source and findings as the view', () => {
    const driver = new Driver();
    driver.answer(driver.send(BOOK, ARGS, { session: 1, requestId: 3 }));
    driver.answer(driver.send(BOOK, ARGS, { session: 1, requestId: 3 }));
    const file = JSON.parse(
      serializeDocument(driver.session, { kind: 'proxy', harnessVersion: 't', status: 'finished', toolClassification: [] }),
    ) as { report: { attribution: unknown; violations: unknown }; findings: unknown };
    const view = driver.report();
    expect(file.report.attribution).toEqual(view.attribution);
    expect(file.report.violations).toEqual(view.violations);
    expect(file.findings).toEqual(driver.evaluation().findings);
  });
});

describe('R-14.1 the duplicate rate by source', () => {
  it('R-14.1 judged runs with a duplicate of each source over the judged runs; a run file without sources counts as unknown', () => {
    const runs = [
      ...times(2, { verdict: 'FAIL', duplicatedOperations: 1, duplicateSources: ['runtime'] }),
      run({ verdict: 'FAIL', duplicatedOperations: 2, duplicateSources: ['model', 'runtime'] }),
      run({ verdict: 'FAIL', duplicatedOperations: 1 }), // written before attribution
      run({ verdict: 'NOT_TESTED', duplicatedOperations: 1, duplicateSources: ['model'], honesty: 'NOT_MEASURED' }),
      ...times(5, {}),
    ];
    const [group] = summariseRuns(runs).scenarios;
    const counts = Object.fromEntries(
      Object.entries(group!.duplicateBySource).map(([source, p]) => [source, `${p.count}/${p.of}`]),
    );
    expect(counts).toEqual({ model: '1/9', user: '0/9', runtime: '3/9', unknown: '1/9' });
    expect(group!.duplicateBySource.runtime.low).toBeGreaterThan(0);
    // summary.md: one row per group with a duplicate.
    const markdown = formatSummaryMarkdown(summariseRuns(runs));
    expect(markdown).toContain('### Duplicates by who sent the write again');
    expect(markdown).toMatch(/\| F1 \| 1\/9 [^|]*\| 0\/9 [^|]*\| 3\/9 [^|]*\| 1\/9 [^|]*\|/);
    expect(formatSummaryMarkdown(summariseRuns(times(3, {})))).not.toContain('Duplicates by');
  });
});
