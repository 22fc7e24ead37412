import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { FileJournal } from '../../../src/adapters/files/file-journal.js';
import { parseJournal } from '../../../src/adapters/files/report-files/journal-reader.js';
import { EffectsRun, OVERLAP_REASON } from '../../../src/app/effects/effects-run.js';
import { ProxyService } from '../../../src/app/proxy/proxy-service.js';
import type { ExecutionFacts } from '../../../src/domain/effects/disagreement.js';
import type { EffectsViewSettings } from '../../../src/domain/effects/effects-settings.js';
import type { ToolCallRequest } from '../../../src/ports/shapes/mcp-shapes.js';
import type { UpstreamCallOutcome } from '../../../src/ports/upstream-side.port.js';
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

let files: ReturnType<typeof tempFiles> | undefined;
afterEach(() => files?.remove());

const view: EffectsViewSettings = {
  tool: 'list_orders',
  arguments: {},
  path: [],
  keyFields: ['item'],
  expectations: [],
};
const facts = (verdict: ExecutionFacts['verdict']): ExecutionFacts => ({
  verdict,
  unknownRepeated: 0,
  resentAfterRejection: 0,
  nearDuplicates: 0,
  otherWritesAfterUncertain: 0,
});

/** A backend whose listing the test changes; every listing call is counted. */
function backend(records: Array<Record<string, unknown>> = []) {
  const calls: ToolCallRequest[] = [];
  return {
    records,
    calls,
    side: {
      callTool: (request: ToolCallRequest): Promise<UpstreamCallOutcome> => {
        calls.push(request);
        return Promise.resolve({ kind: 'result', result: { content: [{ type: 'text', text: JSON.stringify(records) }] } });
      },
    },
  };
}

describe('EffectsRun: the snapshot before and after one run (R-15.1)', () => {
  it('R-15.2: lists before, lists after, and judges the difference against the execution verdict', async () => {
    const b = backend([{ item: 'old' }]);
    const run = new EffectsRun({ upstream: b.side }, view, null, 1_000);
    await run.ready;
    expect(run.isReady).toBe(true);
    b.records.push({ item: 'pen' }, { item: 'pen' });
    const report = await run.finish(facts('PASS'));
    expect(b.calls.map((c) => c.name)).toEqual(['list_orders', 'list_orders']);
    expect(report.verdict).toBe('DUPLICATE_EFFECT');
    expect(report.explanation).toMatch(/^PASS by executions but DUPLICATE_EFFECT by effects/);
    expect(report.snapshots.before).toMatchObject({ ok: true, count: 1 });
    expect(report.snapshots.after).toMatchObject({ ok: true, count: 3 });
    expect(report.keys).toEqual([
      { key: { item: 'pen' }, before: 0, after: 2, created: 2, removed: 0, changed: 0, expected: [] },
    ]);
  });

  it('R-15.1: a refused view never calls the upstream and is EFFECTS_UNKNOWN with the refusal', async () => {
    const b = backend();
    const run = new EffectsRun({ upstream: b.side }, view, 'the effects tool list_orders is not listed by the upstream', 1_000);
    const report = await run.finish(facts('FAIL'));
    expect(b.calls).toEqual([]);
    expect(report).toMatchObject({
      verdict: 'EFFECTS_UNKNOWN',
      reason: 'the effects tool list_orders is not listed by the upstream',
      explanation: null,
    });
  });

  it('R-15.1: an overlapped run keeps its snapshots but is EFFECTS_UNKNOWN', async () => {
    const b = backend();
    const run = new EffectsRun({ upstream: b.side }, view, null, 1_000);
    run.overlapped();
    b.records.push({ item: 'pen' });
    const report = await run.finish(facts('PASS'));
    expect(report.verdict).toBe('EFFECTS_UNKNOWN');
    expect(report.reason).toBe(OVERLAP_REASON);
    expect(report.snapshots.after).toMatchObject({ ok: true, count: 1 });
  });

  it('R-15.1: a listing that throws is a reason, never a throw', async () => {
    const side = { callTool: () => Promise.reject(new Error('socket \u001b[31mgone')) };
    const report = await new EffectsRun({ upstream: side }, view, null, 1_000).finish(facts('PASS'));
    expect(report.verdict).toBe('EFFECTS_UNKNOWN');
    expect(report.reason).toContain('the effects tool list_orders failed: socket');
    expect(report.reason).not.toContain('\u001b');
  });
});

describe('ProxyService with an effects view (R-15.1)', () => {
  const TOOLS = [
    { name: 'create_order', inputSchema: { type: 'object' } },
    { name: 'list_orders', inputSchema: { type: 'object' } },
  ];

  function setup(stdio: boolean, effects: EffectsViewSettings = view, journal?: FileJournal) {
    const upstream = new HeldUpstream(TOOLS);
    const b = backend();
    const agentSide = new InMemoryAgentSide();
    const sinks: MemorySink[] = [];
    const notices: string[] = [];
    const service = new ProxyService(
      {
        upstream,
        effectsUpstream: b.side,
        agentSide,
        reportTarget: memoryTarget(() => {
          const sink = new MemorySink();
          sinks.push(sink);
          return sink;
        }),
        clock: new TestClock(),
        random: fixedRandom(0.5),
        logger: SILENT_LOGGER,
        notice: (line) => notices.push(line),
        ...(journal !== undefined ? { journal } : {}),
      },
      {
        scenario: { mode: 'none' },
        keyFields: ['idempotency_key'],
        classification: {},
        auditTools: false,
        callTimeoutMs: 60_000,
        drainMs: 20,
        harnessVersion: 'test',
        serverName: 'harness',
        stopWhenSessionEnds: stdio,
        effects,
      },
    );
    return { service, upstream, b, agentSide, sinks, notices };
  }
  const signal = new AbortController().signal;

  it('R-15.2: the final report carries effects; the listing is no agent call; the end line names the verdict', async () => {
    const { service, upstream, b, agentSide, sinks, notices } = setup(true);
    await service.start();
    const agent = agentSide.connect();
    const answer = agent.callTool({ name: 'create_order', arguments: { item: 'pen' } }, { signal });
    const [held] = await upstream.received(1);
    b.records.push({ item: 'pen' });
    held!.answer(okResult());
    await answer;
    agentSide.disconnect('session-1');
    const exit = await service.done;
    expect(b.calls).toHaveLength(2);
    const last = sinks[0]!.last as { effects: { verdict: string }; report: { operations: Array<{ tool: string }> } };
    expect(last.effects.verdict).toBe('EXACTLY_ONCE');
    expect(last.report.operations.map((op) => op.tool)).toEqual(['create_order']);
    // Only the final report carries effects.
    expect(sinks[0]!.documents.slice(0, -1).some((d) => (d as { effects?: unknown }).effects !== undefined)).toBe(false);
    expect(notices).toContain('effects view: list_orders, effect key item');
    expect(notices.some((n) => n.startsWith('effects: EXACTLY_ONCE: 1 new record'))).toBe(true);
    expect(exit.endLine).toMatch(/^finished: PASS, .*; effects EXACTLY_ONCE; no report file$/);
  });

  it('R-15.1: with --listen, two sessions open at the same time are both EFFECTS_UNKNOWN; a later one alone is judged', async () => {
    const { service, agentSide, sinks } = setup(false);
    await service.start();
    agentSide.connect('a');
    agentSide.connect('b');
    agentSide.disconnect('a');
    agentSide.disconnect('b');
    await new Promise((resolve) => setTimeout(resolve, 50));
    agentSide.connect('c');
    agentSide.disconnect('c');
    await new Promise((resolve) => setTimeout(resolve, 50));
    await service.stop('test');
    const verdicts = sinks.map((s) => (s.last as { effects: { verdict: string; reason: string } }).effects);
    expect(verdicts.map((e) => e.verdict)).toEqual(['EFFECTS_UNKNOWN', 'EFFECTS_UNKNOWN', 'NO_EFFECT']);
    expect(verdicts[0]!.reason).toBe(OVERLAP_REASON);
  });

  it('R-15.1: an effects tool classified as a write is never called: a warning, and EFFECTS_UNKNOWN', async () => {
    const { service, b, agentSide, sinks, notices } = setup(true, { ...view, tool: 'create_order' });
    await service.start();
    agentSide.connect();
    agentSide.disconnect('session-1');
    await service.done;
    expect(b.calls).toEqual([]);
    expect(notices.some((n) => n.startsWith('warning: the effects tool create_order is classified as a write'))).toBe(true);
    expect((sinks[0]!.last as { effects: { verdict: string } }).effects.verdict).toBe('EFFECTS_UNKNOWN');
  });

  async function journalled(payloads: boolean, redact: string[] = []) {
    files = tempFiles();
    const path = files.path('journal.jsonl');
    const journal = await FileJournal.open(path, {
      payloads,
      redact,
      harnessVersion: 'test',
      now: () => 1,
      notice: () => undefined,
    });
    const expecting: EffectsViewSettings = {
      ...view,
      keyFields: ['item'],
      expectations: [{ text: 'item=pen', values: ['pen'] }],
    };
    const { service, upstream, b, agentSide } = setup(true, expecting, journal);
    b.records.push({ item: 'old' });
    await service.start();
    const agent = agentSide.connect();
    const answer = agent.callTool({ name: 'create_order', arguments: { item: 'pen' } }, { signal });
    const [held] = await upstream.received(1);
    b.records.push({ item: 'pen', n: 1 }, { item: 'pen', n: 2 });
    held!.answer(okResult());
    await answer;
    agentSide.disconnect('session-1');
    await service.done;
    journal.close();
    const read = parseJournal(readFileSync(path, 'utf8'));
    expect(read.skipped).toBe(0);
    return read.records.filter((r) => r.event !== 'journal' && r.event !== 'received' && r.event !== 'forwarded');
  }

  it('R-15: the journal has a snapshot line before the first call and after the end, then the effects line, then ended', async () => {
    const lines = await journalled(false);
    expect(lines.map((r) => r.event)).toEqual(['opened', 'snapshot', 'answered', 'delivered', 'snapshot', 'effects', 'ended']);
    const [before, after] = lines.filter((r) => r.event === 'snapshot');
    expect(before).toMatchObject({
      phase: 'before',
      view: 'the effects tool list_orders',
      keyFields: ['item'],
      ok: true,
      records: 1,
      keys: 1,
    });
    expect(after).toMatchObject({ phase: 'after', ok: true, records: 3, keys: 2 });
    expect((before as { hash: string }).hash).not.toBe((after as { hash: string }).hash);
    // Without payloads: the verdict and the totals, never the backend's values.
    const effects = lines.find((r) => r.event === 'effects')!;
    expect(effects).toEqual({
      v: 1,
      event: 'effects',
      at: 1,
      session: 'session-1',
      verdict: 'DUPLICATE_EFFECT',
      explanation: expect.stringMatching(/DUPLICATE_EFFECT by effects/) as unknown,
      keyCount: 1,
      created: 2,
      removed: 0,
      changed: 0,
    });
  });

  it('R-15: with --journal-payloads on the effects line has the reason and the keys; --redact hides a key field and the reason', async () => {
    const shown = (await journalled(true)).find((r) => r.event === 'effects')!;
    expect(shown).toMatchObject({
      reason: expect.stringContaining('item=pen (2 new)') as unknown,
      keys: [{ key: { item: 'pen' }, before: 0, after: 2, created: 2, removed: 0, changed: 0, expected: ['item=pen'] }],
    });
    const redacted = (await journalled(true, ['item'])).find((r) => r.event === 'effects')!;
    expect(redacted).toMatchObject({ keys: [{ key: { item: '[REDACTED]' }, created: 2 }] });
    expect(redacted).not.toHaveProperty('reason');
  });

  it('R-15: a snapshot that fails is a snapshot line with its reason', async () => {
    files = tempFiles();
    const path = files.path('journal.jsonl');
    const journal = await FileJournal.open(path, {
      payloads: false,
      harnessVersion: 'test',
      now: () => 1,
      notice: () => undefined,
    });
    const { service, agentSide } = setup(true, { ...view, tool: 'create_order' }, journal);
    await service.start();
    agentSide.connect();
    agentSide.disconnect('session-1');
    await service.done;
    journal.close();
    const snapshots = parseJournal(readFileSync(path, 'utf8')).records.filter((r) => r.event === 'snapshot');
    expect(snapshots).toHaveLength(2);
    expect(snapshots[0]).toMatchObject({
      phase: 'before',
      ok: false,
      reason: expect.stringContaining('create_order') as unknown,
    });
  });
});
