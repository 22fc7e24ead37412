import { describe, expect, it } from 'vitest';
import { GET_REPORT, GET_SCORE } from '../../../src/app/proxy/audit-tools.js';
import { JudgedSession, type JudgedSessionContext } from '../../../src/app/proxy/judged-session.js';
import type { ScenarioConfig } from '../../../src/domain/faults/fault-plan.js';
import type { ReportDocument, ReportSink } from '../../../src/ports/report-sink.port.js';
import { HeldUpstream, MemorySink, SILENT_LOGGER, okResult } from '../../support/in-memory-sides.js';
import { TestClock, fixedRandom } from '../../support/session-driver.js';

const TOOLS = [
  { name: 'create_order', inputSchema: { type: 'object' } },
  { name: 'get_order', inputSchema: { type: 'object' } },
];

function open(options: { scenario?: ScenarioConfig; sink?: ReportSink; auditTools?: boolean } = {}) {
  const upstream = new HeldUpstream(TOOLS);
  const sink = options.sink ?? new MemorySink();
  const fatal: string[] = [];
  const context: JudgedSessionContext = {
    sessionId: 's1',
    scenario: options.scenario ?? { mode: 'none' },
    keyFields: ['idempotency_key'],
    catalog: {
      classOf: (name) => (name === 'create_order' ? 'write' : name === 'get_order' ? 'read' : 'unclassified'),
      acceptsKey: () => false,
    },
    upstream,
    upstreamTools: TOOLS,
    classification: [],
    auditTools: options.auditTools ?? true,
    callTimeoutMs: 60_000,
    harnessVersion: 'test',
    sink,
    clock: new TestClock(),
    random: fixedRandom(0.99),
    logger: SILENT_LOGGER,
    onFatal: (message) => fatal.push(message),
    onUpstreamTooLarge: () => undefined,
    onClosed: () => undefined,
  };
  const session = new JudgedSession(context);
  return { session, upstream, sink, fatal };
}

const signal = new AbortController().signal;
const call = (session: JudgedSession, n: number) => session.callTool({ name: 'create_order', arguments: { n } }, { signal });

describe('JudgedSession through the ports: the report file around each call (R-9.2, R-9.2.1)', () => {
  it('R-9.2.1: while a write is at the upstream the file says NOT_TESTED with the call EXECUTION_UNKNOWN; PASS once answered', async () => {
    const { session, upstream, sink } = open();
    const memory = sink as MemorySink;
    await session.publishRunning();
    const answer = call(session, 1);
    const [held] = await upstream.received(1);
    expect(memory.documents).toHaveLength(2);
    expect(memory.last).toMatchObject({ verdict: 'NOT_TESTED', status: 'running' });
    expect(memory.last!['report'].operations).toMatchObject([
      { tool: 'create_order', outcome: 'EXECUTION_UNKNOWN', executions: 0 },
    ]);
    expect(memory.last!['report'].coverage.inFlight).toBe(1);
    held!.answer(okResult());
    await answer;
    expect(memory.documents).toHaveLength(3);
    expect(memory.last).toMatchObject({ verdict: 'PASS' });
    expect(memory.last!['report'].operations).toMatchObject([{ outcome: 'EXECUTED', executions: 1 }]);
  });

  it('R-9.2.1: calls of one event-loop turn share one write before forwarding, and their answers share one after', async () => {
    const { session, upstream, sink } = open();
    const memory = sink as MemorySink;
    await session.publishRunning();
    const answers = Array.from({ length: 50 }, (_, n) => call(session, n));
    const held = await upstream.received(50);
    expect(memory.documents).toHaveLength(2);
    expect(memory.last!['report'].coverage.inFlight).toBe(50);
    for (const h of held) h.answer(okResult());
    await Promise.all(answers);
    expect(memory.documents).toHaveLength(3);
    expect(memory.last).toMatchObject({ verdict: 'PASS' });
  });

  it('R-9.2: the agent gets its answer only after a document holding that answer was written', async () => {
    const { session, upstream, sink } = open();
    const memory = sink as MemorySink;
    await session.publishRunning();
    const first = call(session, 1);
    const second = call(session, 2);
    const held = await upstream.received(2);
    held[0]!.answer(okResult('one'));
    await first;
    const seen = memory.last!['report'].operations.map((op: { outcome: string }) => op.outcome);
    expect(seen).toEqual(['EXECUTED', 'EXECUTION_UNKNOWN']);
    held[1]!.answer(okResult('two'));
    await second;
  });

  it('R-9.2.1: a call answered with an injected fault is not forwarded, so it gets only the write before its answer', async () => {
    const { session, upstream, sink } = open({ scenario: { mode: 'scenario', id: 'F2' } });
    const memory = sink as MemorySink;
    await session.publishRunning();
    const answer = await call(session, 1);
    expect(answer.isError).toBe(true);
    expect(upstream.held).toHaveLength(0);
    expect(memory.documents).toHaveLength(2);
  });

  it('R-9.3/R-9.2.1: when the write before forwarding fails, the call never reaches the upstream and the agent gets no answer', async () => {
    let writes = 0;
    const failing: ReportSink = {
      publish: (_document: ReportDocument) => (++writes > 1 ? Promise.reject(new Error('disk full')) : Promise.resolve()),
    };
    const { session, upstream, fatal } = open({ sink: failing });
    await session.publishRunning();
    let answered = false;
    void call(session, 1).then(() => (answered = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(fatal).toEqual(['disk full']);
    expect(upstream.held).toHaveLength(0);
    expect(answered).toBe(false);
  });

  it('R-8.8: ending waits for a call at the upstream, which still counts in the final report', async () => {
    const { session, upstream, sink } = open();
    const memory = sink as MemorySink;
    await session.publishRunning();
    const answer = call(session, 1);
    const ended = session.end(50);
    const [held] = await upstream.received(1);
    held!.answer(okResult());
    await Promise.all([answer, ended]);
    expect(memory.last).toMatchObject({ status: 'finished', verdict: 'PASS' });
    expect(memory.last!['report'].operations).toMatchObject([{ outcome: 'EXECUTED', executions: 1 }]);
  });
});

describe('JudgedSession audit tools (R-8.6)', () => {
  it('R-8.6: listed after the upstream tools, answered from the evaluation, never judged or forwarded', async () => {
    const { session, upstream, sink } = open();
    const memory = sink as MemorySink;
    expect((await session.listTools()).map((t) => t.name)).toEqual(['create_order', 'get_order', GET_REPORT, GET_SCORE]);
    const score = await session.callTool({ name: GET_SCORE, arguments: {} }, { signal });
    expect(score.isError).not.toBe(true);
    const report = await session.callTool({ name: GET_REPORT, arguments: { format: 'json' } }, { signal });
    expect(JSON.stringify(report)).toContain('no calls were made');
    expect(upstream.held).toHaveLength(0);
    expect(memory.documents).toHaveLength(0);
    expect(session.evaluation.totals.totalCalls).toBe(0);
  });

  it('R-8.6: with --audit-tools off they are not listed, and a call of that name is forwarded like any unlisted tool', async () => {
    const { session, upstream } = open({ auditTools: false });
    expect((await session.listTools()).map((t) => t.name)).toEqual(['create_order', 'get_order']);
    const answer = session.callTool({ name: GET_REPORT, arguments: {} }, { signal });
    const [held] = await upstream.received(1);
    expect(held!.request.name).toBe(GET_REPORT);
    held!.answer({ kind: 'protocol-error', code: -32602, message: 'Unknown tool' });
    expect(await answer).toMatchObject({ isError: true });
    expect(session.evaluation.totals.calls.unclassified).toBe(1);
  });
});
