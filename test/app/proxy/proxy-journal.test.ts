/**
 * The journal and the end lines through the ports: the journal is an observer of the one call pipeline (every
 * step of every call, reads included, told in order), the HTML timeline built from it is exact, and the
 * proxy's end line and per-call lines say what happened. The journal is the real file adapter on a temp
 * file, read back by the real reader; the agent and the upstream are in memory, the clock is the test's.
 */
import { readFileSync, statSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { FileJournal } from '../../../src/adapters/files/file-journal.js';
import { ManualClock } from '../../../src/adapters/time/manual-clock.js';
import { parseJournal } from '../../../src/adapters/files/report-files/journal-reader.js';
import { parseReportDocument } from '../../../src/adapters/files/report-files/report-schemas.js';
import type { CheckResult } from '../../../src/app/check/check-model.js';
import { checkGroups } from '../../../src/app/check/check.js';
import { ProxyService, type ProxyConfig } from '../../../src/app/proxy/proxy-service.js';
import { buildHtml } from '../../../src/app/report-formats/html.js';
import {
  journalSessionFor,
  journalSessions,
  timelineFromJournal,
  type JournalSessionRecords,
} from '../../../src/app/report-formats/timeline.js';
import type { JournalCallRecord, JournalRequestRecord } from '../../../src/ports/journal.port.js';
import type { UpstreamCallOutcome } from '../../../src/ports/upstream-side.port.js';
import type { SessionReportDocument } from '../../../src/ports/shapes/report-documents.js';
import {
  HeldUpstream,
  InMemoryAgentSide,
  MemorySink,
  memoryTarget,
  SILENT_LOGGER,
  okResult,
} from '../../support/in-memory-sides.js';
import { tempFiles } from '../../support/report-docs.js';
import { TestClock, fixedRandom } from '../../support/session-driver.js';

const TOOLS = [
  { name: 'create_order', inputSchema: { type: 'object', properties: { idempotency_key: { type: 'string' } } } },
  { name: 'get_order', inputSchema: { type: 'object' } },
];
const signal = new AbortController().signal;
const SECRET = 'Zebulon-Quixotic-4711';

let files: ReturnType<typeof tempFiles> | undefined;
afterEach(() => files?.remove());

async function setup(
  options: {
    stdio?: boolean;
    payloads?: boolean;
    logCalls?: boolean;
    scenario?: ProxyConfig['scenario'];
    /** Every session's report sink can be made to refuse its writes, as on a full disk. */
    diskCanFill?: boolean;
    /** A manual clock that is also the proxy's timer (F6's landing waits on it). */
    manualClock?: boolean;
    /** The upstream (default: tools only). */
    upstream?: HeldUpstream;
  } = {},
) {
  files = tempFiles();
  const clock = options.manualClock === true ? new ManualClock(1_000_000) : new TestClock();
  const notices: string[] = [];
  const journal = await FileJournal.open(files.path('journal.jsonl'), {
    payloads: options.payloads ?? false,
    harnessVersion: 'test',
    now: () => clock.now(),
    notice: (l) => notices.push(l),
  });
  const upstream = options.upstream ?? new HeldUpstream(TOOLS);
  const agentSide = new InMemoryAgentSide();
  const sinks = new Map<string, MemorySink>();
  const service = new ProxyService(
    {
      upstream,
      agentSide,
      reportTarget: memoryTarget(
        (id) => {
          const sink = options.diskCanFill === true ? new DiskFullSink() : new MemorySink();
          sinks.set(id, sink);
          return sink;
        },
        { pathFor: (id, ordinal) => `/reports/session-${ordinal}-${id}.json`, location: '/reports' },
      ),
      journal,
      clock,
      ...(clock instanceof ManualClock ? { timer: clock } : {}),
      random: fixedRandom(0.5),
      logger: SILENT_LOGGER,
      notice: (line) => notices.push(line),
    },
    {
      scenario: options.scenario ?? { mode: 'scenario', id: 'F1' },
      keyFields: ['idempotency_key'],
      classification: {},
      auditTools: true,
      callTimeoutMs: 60_000,
      drainMs: 20,
      harnessVersion: 'test',
      serverName: 'harness',
      stopWhenSessionEnds: options.stdio ?? true,
      logCalls: options.logCalls ?? false,
    },
  );
  await service.start();
  const text = () => readFileSync(files!.path('journal.jsonl'), 'utf8');
  return { service, upstream, agentSide, sinks, notices, clock, journal, text };
}

/** An upstream that also takes requests that are not tool calls, each held until the test answers it. */
class ForwardingUpstream extends HeldUpstream {
  readonly requests: Array<{ method: string; params: Record<string, unknown>; answer(outcome: UpstreamCallOutcome): void }> = [];

  forwardRequest(method: string, params: Record<string, unknown>): Promise<UpstreamCallOutcome> {
    return new Promise((resolve) => this.requests.push({ method, params, answer: resolve }));
  }

  /** The `n`-th request (0-based), once it has arrived. */
  async request(n: number) {
    while (this.requests.length <= n) await new Promise((resolve) => setImmediate(resolve));
    return this.requests[n]!;
  }
}

/** A report sink whose disk fills up when told: every later write rejects, as the file sink's does. */
class DiskFullSink extends MemorySink {
  full = false;

  override publish(document: Parameters<MemorySink['publish']>[0]): Promise<void> {
    if (this.full)
      return Promise.reject(
        new Error(
          'report file not writable: /reports/r.json (ENOSPC: no space left on device; the disk is full; the last complete report is kept)',
        ),
      );
    return super.publish(document);
  }
}

/** The validated report document, as `check` reads it. */
function documentOf(sink: MemorySink): SessionReportDocument {
  return parseReportDocument(sink.last) as SessionReportDocument;
}

function checkResultOf(doc: SessionReportDocument, path: string): CheckResult {
  return checkGroups([{ path, reader: 'file', items: [{ type: 'report', path, document: doc }] }], {
    failOn: new Set(['FAIL', 'NOT_TESTED']),
    minScore: null,
  });
}

describe('the journal, observed from the call pipeline', () => {
  it('R-1.3: every step of every call in order — reads too — and its attempts match the report one for one', async () => {
    const { service, upstream, agentSide, sinks, clock, text } = await setup();
    const agent = agentSide.connect('s1');
    const first = agent.callTool({ name: 'create_order', arguments: { item: SECRET } }, { signal });
    const [held] = await upstream.received(1);
    clock.advance(40);
    held!.answer(okResult('created'));
    expect(await first).toMatchObject({ isError: true }); // F1: executed, agent told timeout
    clock.advance(100);
    const read = agent.callTool({ name: 'get_order', arguments: {} }, { signal });
    (await upstream.received(2))[1]!.answer(okResult('[]'));
    await read;
    clock.advance(200);
    const again = agent.callTool({ name: 'create_order', arguments: { item: SECRET } }, { signal });
    (await upstream.received(3))[2]!.answer(okResult('created again'));
    await again;
    agentSide.disconnect('s1');
    await service.done;

    const contents = parseJournal(text());
    expect(contents).toMatchObject({ tornLastLine: false, skipped: 0 });
    const calls = contents.records.filter((r): r is JournalCallRecord => 'attempt' in r && r.session === 's1');
    expect(calls.map((r) => `${r.attempt}:${r.event}`)).toEqual([
      '1:received',
      '1:forwarded',
      '1:answered',
      '1:delivered',
      '2:received',
      '2:forwarded',
      '2:answered',
      '2:delivered',
      '3:received',
      '3:forwarded',
      '3:answered',
      '3:delivered',
    ]);
    expect(calls.find((r) => r.attempt === 1 && r.event === 'answered')).toMatchObject({
      fault: 'F1',
      upstream: 'executed',
      replaced: true,
      operation: 1,
      class: 'write',
    });
    expect(calls.find((r) => r.attempt === 1 && r.event === 'delivered')).toMatchObject({ told: 'timeout' });
    expect(calls.find((r) => r.attempt === 2 && r.event === 'received')).toMatchObject({
      tool: 'get_order',
      class: 'read',
      operation: null,
    });
    expect(contents.records.at(-1)).toMatchObject({ event: 'ended', session: 's1', verdict: 'FAIL', score: 0 });

    // One for one with the report: the operation's id, attempts and executions.
    const doc = documentOf(sinks.get('s1')!);
    const op = doc.report.operations[0]!;
    expect(op).toMatchObject({ id: 1, attempts: 2, executions: 2 });
    expect(calls.filter((r) => r.event === 'received' && r.operation === op.id)).toHaveLength(op.attempts);
    expect(calls.filter((r) => r.event === 'answered' && r.operation === op.id && r.upstream === 'executed')).toHaveLength(
      op.executions,
    );
    expect(calls.filter((r) => r.event === 'received' && r.class === 'read')).toHaveLength(doc.report.coverage.calls.read);
    // Without --journal-payloads no argument value is written.
    expect(text()).not.toContain(SECRET);
    expect(statSync(files!.path('journal.jsonl')).mode & 0o777).toBe(0o600);
  });

  it('--journal-payloads on writes the arguments and the results verbatim', async () => {
    const { service, upstream, agentSide, text } = await setup({ payloads: true });
    const agent = agentSide.connect('s1');
    const call = agent.callTool(
      { name: 'create_order', arguments: JSON.parse(`{"item":"${SECRET}","__proto__":{"polluted":true}}`) },
      { signal },
    );
    (await upstream.received(1))[0]!.answer(okResult('the upstream said so'));
    await call;
    await service.stop('test over');
    const received = parseJournal(text()).records.find((r) => r.event === 'received') as JournalCallRecord;
    expect(received.arguments).toMatchObject({ item: SECRET });
    expect(JSON.stringify(received.arguments)).toContain('__proto__');
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(text()).toContain('the upstream said so');
  });

  it('the HTML timeline from report + journal is exact — times, the read listed, the real order, the duplicate marked', async () => {
    const { service, upstream, agentSide, sinks, clock, text } = await setup();
    const agent = agentSide.connect('s1');
    const first = agent.callTool({ name: 'create_order', arguments: { item: 'pen' } }, { signal });
    clock.advance(1500);
    (await upstream.received(1))[0]!.answer(okResult());
    await first;
    clock.advance(2000);
    const read = agent.callTool({ name: 'get_order', arguments: {} }, { signal });
    (await upstream.received(2))[1]!.answer(okResult());
    await read;
    const again = agent.callTool({ name: 'create_order', arguments: { item: 'pen' } }, { signal });
    (await upstream.received(3))[2]!.answer(okResult());
    await again;
    await service.stop('test over');

    const doc = documentOf(sinks.get('s1')!);
    const sessions = journalSessions(parseJournal(text()).records);
    const session = journalSessionFor(sessions, '/reports/session-1-s1.json', (a, b) => a === b);
    expect(session?.session).toBe('s1');
    const timeline = timelineFromJournal(session!, doc);
    expect(timeline.exact).toBe(true);
    expect(timeline.calls.map((c) => [c.tool, c.toolClass, c.atMs, c.upstream, c.duplicate])).toEqual([
      ['create_order', 'write', 0, 'executed', true],
      ['get_order', 'read', 3500, 'executed', false],
      ['create_order', 'write', 3500, 'executed', true],
    ]);
    expect(timeline.calls[0]!.agentTold).toMatch(/^a timeout \(isError\): MCP error -32001/);
    expect(timeline.calls[2]!).toMatchObject({ operation: 0, attempt: 2, arguments: '{"item":"pen"}' });

    const html = buildHtml(checkResultOf(doc, '/reports/session-1-s1.json'), (_c, d) => timelineFromJournal(session!, d));
    expect(html).toContain('Timeline: 3 call(s)');
    expect(html).toContain('<th>time</th>');
    expect(html).toContain('3.5 s');
    expect(html).toMatch(/get_order<\/b> <span class="muted small">read/);
    expect(html).not.toContain('Not listed:');
    expect(html).not.toContain('Call times, read calls and the order of attempts within one operation are not in the report');
  });
});

describe('forwarded requests that are not tool calls in the journal (R-17)', () => {
  const resource = (text: string): UpstreamCallOutcome => ({
    kind: 'result',
    result: { contents: [{ uri: 'file:///orders/7.json', mimeType: 'application/json', text }] },
  });

  it('one `request` line each — method, uri or name, outcome, duration — written before the agent has the answer; no payload, no ping, not judged', async () => {
    const upstream = new ForwardingUpstream(TOOLS);
    const { service, agentSide, sinks, clock, text } = await setup({ upstream, scenario: { mode: 'none' } });
    const agent = agentSide.connect('s1');
    const forward = (method: string, params: Record<string, unknown>) => agent.forward!(method, params, { signal });

    const read = forward('resources/read', { uri: 'file:///orders/7.json' });
    clock.advance(12.5);
    (await upstream.request(0)).answer(resource(SECRET));
    expect(await read).toMatchObject({ result: { contents: [{ text: SECRET }] } });
    // The line is in the file by the time the agent has the answer.
    expect(text()).toContain('"event":"request"');

    const prompt = forward('prompts/get', { name: 'summarise_order', arguments: { customer: SECRET } });
    clock.advance(3);
    (await upstream.request(1)).answer({
      kind: 'result',
      result: { messages: [{ role: 'user', content: { type: 'text', text: SECRET } }] },
    });
    await prompt;

    const missing = forward('resources/read', { uri: 'file:///orders/404.json' });
    (await upstream.request(2)).answer({ kind: 'protocol-error', code: -32002, message: `Resource not found: ${SECRET}` });
    expect(await missing).toEqual({ error: { code: -32002, message: `Resource not found: ${SECRET}` } });

    const slow = forward('completion/complete', {
      ref: { type: 'ref/prompt', name: 'summarise_order' },
      argument: { name: 'customer', value: 'A' },
    });
    clock.advance(60_000);
    (await upstream.request(3)).answer({ kind: 'timeout', afterMs: 60_000 });
    expect(await slow).toMatchObject({ error: { code: -32001 } });

    const list = forward('resources/list', { cursor: 'page-2' });
    (await upstream.request(4)).answer({ kind: 'result', result: { resources: [] } });
    await list;
    const ping = forward('ping', {});
    (await upstream.request(5)).answer({ kind: 'result', result: {} });
    await ping;

    agentSide.disconnect('s1');
    await service.done;
    const contents = parseJournal(text());
    expect(contents).toMatchObject({ tornLastLine: false, skipped: 0 });
    const requests = contents.records.filter((r): r is JournalRequestRecord => r.event === 'request');
    expect(requests).toEqual([
      {
        v: 1,
        event: 'request',
        at: 1_000_000,
        session: 's1',
        method: 'resources/read',
        uri: 'file:///orders/7.json',
        outcome: 'result',
        durationMs: 12.5,
      },
      {
        v: 1,
        event: 'request',
        at: 1_000_012.5,
        session: 's1',
        method: 'prompts/get',
        name: 'summarise_order',
        outcome: 'result',
        durationMs: 3,
      },
      {
        v: 1,
        event: 'request',
        at: 1_000_015.5,
        session: 's1',
        method: 'resources/read',
        uri: 'file:///orders/404.json',
        outcome: 'error',
        code: -32002,
        durationMs: 0,
      },
      {
        v: 1,
        event: 'request',
        at: 1_000_015.5,
        session: 's1',
        method: 'completion/complete',
        name: 'summarise_order',
        outcome: 'error',
        code: -32001,
        durationMs: 60_000,
      },
      { v: 1, event: 'request', at: 1_060_015.5, session: 's1', method: 'resources/list', outcome: 'result', durationMs: 0 },
    ]);
    // Without --journal-payloads nothing of what was asked or answered is written (not even an error's message).
    expect(text()).not.toContain(SECRET);
    expect(text()).not.toContain('page-2');
    // Never judged: no call, no operation; the timeline has no call for them.
    const doc = documentOf(sinks.get('s1')!);
    expect(doc.report.operations).toEqual([]);
    expect(doc.report.coverage.calls).toMatchObject({ read: 0, write: 0, unclassified: 0 });
    expect(journalSessions(contents.records)[0]!.calls).toEqual([]);
  });

  it('--journal-payloads on adds the params and the result or the error, as they were', async () => {
    const upstream = new ForwardingUpstream(TOOLS);
    const { service, agentSide, text } = await setup({ upstream, payloads: true, scenario: { mode: 'none' } });
    const agent = agentSide.connect('s1');
    const prompt = agent.forward!('prompts/get', { name: 'summarise_order', arguments: { customer: SECRET } }, { signal });
    (await upstream.request(0)).answer({
      kind: 'result',
      result: { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }] },
    });
    await prompt;
    const missing = agent.forward!('resources/read', { uri: 'file:///x' }, { signal });
    (await upstream.request(1)).answer({
      kind: 'protocol-error',
      code: -32002,
      message: 'Resource not found',
      data: { uri: 'file:///x' },
    });
    await missing;
    // The agent cancels: the line says so, with no answer (the agent got none).
    const cancel = new AbortController();
    const cancelled = agent.forward!('resources/read', { uri: 'file:///slow' }, { signal: cancel.signal });
    cancel.abort();
    (await upstream.request(2)).answer({ kind: 'connection-lost', detail: 'cancelled' });
    await cancelled;
    await service.stop('test over');
    const requests = parseJournal(text()).records.filter((r): r is JournalRequestRecord => r.event === 'request');
    expect(requests[0]).toMatchObject({
      method: 'prompts/get',
      params: { name: 'summarise_order', arguments: { customer: SECRET } },
      result: { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }] },
    });
    expect(requests[0]).not.toHaveProperty('error');
    expect(requests[1]).toMatchObject({
      outcome: 'error',
      code: -32002,
      params: { uri: 'file:///x' },
      error: { code: -32002, message: 'Resource not found', data: { uri: 'file:///x' } },
    });
    expect(requests[1]).not.toHaveProperty('result');
    expect(requests[2]).toMatchObject({
      method: 'resources/read',
      uri: 'file:///slow',
      outcome: 'cancelled',
      params: { uri: 'file:///slow' },
    });
    expect(requests[2]).not.toHaveProperty('result');
    expect(requests[2]).not.toHaveProperty('error');
  });
});

describe('the journal after a report that could not be written', () => {
  it('R-9.3: after a full disk the ended line claims no verdict: NOT_TESTED, score null, and why (the report kept is not the final one)', async () => {
    const { service, upstream, agentSide, sinks, text, notices } = await setup({ scenario: { mode: 'none' }, diskCanFill: true });
    const agent = agentSide.connect('s1');
    const first = agent.callTool({ name: 'create_order', arguments: { item: 'pen' } }, { signal });
    (await upstream.received(1))[0]!.answer(okResult());
    await first;
    const sink = sinks.get('s1') as DiskFullSink;
    expect(sink.last).toMatchObject({ verdict: 'PASS', score: { overall: 100 } });
    sink.full = true;
    // The write before forwarding fails: the call never goes upstream, the proxy stops with exit 1.
    void agent.callTool({ name: 'create_order', arguments: { item: 'pen', n: 2 } }, { signal });
    const exit = await service.done;
    expect(exit.code).toBe(1);
    expect(notices.join('\n')).toContain('the disk is full');
    const last = parseJournal(text()).records.at(-1);
    expect(last).toMatchObject({ event: 'ended', session: 's1', verdict: 'NOT_TESTED', score: null });
    expect(last).toHaveProperty('reportError', expect.stringContaining('ENOSPC'));
  });
});

describe('injected faults in the journal', () => {
  it('R-4.4: F2 answers without the upstream (received, injected, delivered); the timeline draws the retry_after window with the real wait', async () => {
    const { service, upstream, agentSide, sinks, clock, text, notices } = await setup({
      scenario: { mode: 'scenario', id: 'F2' },
      logCalls: true,
    });
    const agent = agentSide.connect('s1');
    expect(await agent.callTool({ name: 'create_order', arguments: { item: 'pen' } }, { signal })).toMatchObject({
      isError: true,
    });
    clock.advance(5_000);
    const again = agent.callTool({ name: 'create_order', arguments: { item: 'pen' } }, { signal });
    (await upstream.received(1))[0]!.answer(okResult());
    await again;
    await service.stop('test over');
    const records = parseJournal(text()).records.filter((r): r is JournalCallRecord => 'attempt' in r);
    expect(records.filter((r) => r.attempt === 1).map((r) => r.event)).toEqual(['received', 'injected', 'delivered']);
    expect(records.find((r) => r.attempt === 1 && r.event === 'delivered')).toMatchObject({
      fault: 'F2',
      upstream: null,
      told: 'error',
    });
    expect(notices).toContain('#1 create_order write — F2 rate limit (429): not sent upstream, agent told error');
    const session = journalSessions(parseJournal(text()).records)[0]!;
    const timeline = timelineFromJournal(session, documentOf(sinks.get('s1')!));
    expect(timeline.calls.map((c) => [c.fault, c.upstream, c.atMs])).toEqual([
      ['F2', 'not sent', 0],
      [null, 'executed', 5000],
    ]);
    expect(timeline.calls[0]!.retryAfter).toEqual({ requiredMs: 60_000, waitedMs: 5000 });
    expect(timeline.calls[0]!.agentTold).toMatch(/^an error \(isError\): .*retry_after/);
  });
});

describe('F6 in the journal and the timeline (R-16.1)', () => {
  it('the late write: told a time-out at once, forwarded 3 s later after a read saw nothing; the HTML timeline marks it landed late', async () => {
    const { service, upstream, agentSide, sinks, clock, text } = await setup({
      scenario: { mode: 'scenario', id: 'F6', parameters: { landAfterMs: 3000 } },
      manualClock: true,
    });
    const agent = agentSide.connect('s1');
    const first = await agent.callTool({ name: 'create_order', arguments: { item: 'pen' } }, { signal });
    expect(first.isError).toBe(true);
    clock.advance(1000);
    const read = agent.callTool({ name: 'get_order', arguments: {} }, { signal });
    (await upstream.received(1))[0]!.answer(okResult());
    await read;
    clock.advance(2000);
    // The landing: the write reaches the upstream only now, 3 s after its time-out.
    (await upstream.received(2))[1]!.answer(okResult());
    await service.stop('test over');

    const records = parseJournal(text()).records.filter((r): r is JournalCallRecord => 'attempt' in r);
    const late = records.filter((r) => r.attempt === 1);
    expect(late.map((r) => r.event)).toEqual(['received', 'delivered', 'forwarded', 'answered']);
    expect(late.find((r) => r.event === 'forwarded')!.at - late[0]!.at).toBe(3000);
    const doc = documentOf(sinks.get('s1')!);
    expect(doc.report.timing?.find((t) => t.landedLate !== undefined)).toMatchObject({
      attempt: 1,
      landedLate: { toldAfterMs: 0, forwardedAfterMs: 3000, landedAfterMs: 3000 },
    });
    const session = journalSessions(parseJournal(text()).records)[0]!;
    const timeline = timelineFromJournal(session, doc);
    expect(timeline.calls.map((c) => [c.tool, c.fault, c.upstream, c.atMs, c.landedLate !== null])).toEqual([
      ['create_order', 'F6', 'executed', 0, true],
      ['get_order', null, 'executed', 1000, false],
    ]);
    const html = buildHtml(checkResultOf(doc, '/reports/session-1-s1.json'), (_c, d) => timelineFromJournal(session, d));
    expect(html).toContain('landed late: told a time-out after 0 ms, reached the upstream after 3 s, answered after 3 s');
    // From the report alone the row is marked too.
    const fromReport = buildHtml(checkResultOf(doc, '/reports/session-1-s1.json'));
    expect(fromReport).toContain('landed late: told a time-out after 0 ms, reached the upstream after 3 s');
  });

  it('a re-send while the late write is pending: its received line names the late attempt, each answered line its execution in landing order', async () => {
    const { service, upstream, agentSide, sinks, clock, text } = await setup({
      scenario: { mode: 'scenario', id: 'F6', parameters: { landAfterMs: 3000 } },
      manualClock: true,
    });
    const agent = agentSide.connect('s1');
    expect((await agent.callTool({ name: 'create_order', arguments: { item: 'pen' } }, { signal })).isError).toBe(true);
    clock.advance(1000);
    const resend = agent.callTool({ name: 'create_order', arguments: { item: 'pen' } }, { signal });
    (await upstream.received(1))[0]!.answer(okResult());
    await resend;
    clock.advance(2000);
    (await upstream.received(2))[1]!.answer(okResult());
    await service.stop('test over');

    const records = parseJournal(text()).records.filter((r): r is JournalCallRecord => 'attempt' in r);
    const line = (attempt: number, event: string) => records.find((r) => r.attempt === attempt && r.event === event)!;
    expect(line(2, 'received').besideLate).toBe(1);
    expect(line(1, 'received')).not.toHaveProperty('besideLate');
    expect([line(2, 'answered').execution, line(1, 'answered').execution]).toEqual([1, 2]);
    // The lines as written: the fields are in the file, not only in the reader's records.
    expect(text()).toMatch(/"event":"received"[^\n]*"attempt":2[^\n]*"besideLate":1/);
    expect(text()).toMatch(/"event":"answered"[^\n]*"attempt":1[^\n]*"execution":2/);

    const doc = documentOf(sinks.get('s1')!);
    const session = journalSessions(parseJournal(text()).records)[0]!;
    const timeline = timelineFromJournal(session, doc);
    expect(timeline.calls.map((c) => [c.call, c.fault, c.upstream, c.besideLate, c.execution, c.duplicate])).toEqual([
      [1, 'F6', 'executed', null, 2, true],
      [2, null, 'executed', 1, 1, true],
    ]);
    const html = buildHtml(checkResultOf(doc, '/reports/session-1-s1.json'), (_c, d) => timelineFromJournal(session, d));
    expect(html.match(/duplicate: execution \d of 2/g)).toEqual(['duplicate: execution 2 of 2', 'duplicate: execution 1 of 2']);
    expect(html).toContain('sent while the late write (call #1) of this operation was still waiting to land');
  });
});

describe('what the proxy says', () => {
  it('--log-level info prints one line per call: number, tool, class, fault, what the upstream did, what the agent was told', async () => {
    const { service, upstream, agentSide, notices } = await setup({ logCalls: true });
    const agent = agentSide.connect('s1');
    const first = agent.callTool({ name: 'create_order', arguments: { item: 'pen' } }, { signal });
    (await upstream.received(1))[0]!.answer(okResult());
    await first;
    const read = agent.callTool({ name: 'get_order', arguments: {} }, { signal });
    (await upstream.received(2))[1]!.answer({ kind: 'timeout', afterMs: 60_000 });
    await read;
    agentSide.disconnect('s1');
    const exit = await service.done;
    expect(notices).toContain('#1 create_order write — F1 ghost write: executed upstream, agent told timeout');
    expect(notices).toContain('#2 get_order read — unknown whether executed upstream, agent told timeout');
    expect(exit.endLine).toBe('finished: PASS, score 80/100; report /reports/session-1-s1.json');
    expect(exit.sessions).toHaveLength(1);
  });

  it('(--listen): a line per session as it ends, and one summary line at exit', async () => {
    const { service, upstream, agentSide, notices, text } = await setup({ stdio: false, scenario: { mode: 'none' } });
    const a = agentSide.connect('aaaaaaaa-1');
    const b = agentSide.connect('bbbbbbbb-2');
    const call = a.callTool({ name: 'create_order', arguments: { item: 'pen' } }, { signal });
    (await upstream.received(1))[0]!.answer(okResult());
    await call;
    agentSide.disconnect('aaaaaaaa-1');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(notices).toContain('session 1 (aaaaaaaa) finished: PASS, score 100/100; report /reports/session-1-aaaaaaaa-1.json');
    void b;
    const exit = await service.stop('received SIGTERM');
    expect(notices).toContain('session 2 (bbbbbbbb) finished: NOT_TESTED, no score; report /reports/session-2-bbbbbbbb-2.json');
    expect(exit.endLine).toBe('finished: 2 sessions (1 PASS, 0 FAIL, 1 NOT_TESTED); reports in /reports');
    const sessions = journalSessions(parseJournal(text()).records);
    expect(sessions.map((s: JournalSessionRecords) => [s.session, s.opened?.report])).toEqual([
      ['aaaaaaaa-1', '/reports/session-1-aaaaaaaa-1.json'],
      ['bbbbbbbb-2', '/reports/session-2-bbbbbbbb-2.json'],
    ]);
  });
});
