import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { documentText, ReportWriter, serializeDocument, type DocumentMeta } from '../../../src/domain/report/report-document.js';
import { SlotArena } from '../../../src/domain/report/slot-arena.js';
import type { ScenarioConfig } from '../../../src/domain/faults/fault-plan.js';
import { buildReport, coverageOf, evaluate } from '../../../src/domain/report/report.js';
import type { ToolClassification } from '../../../src/domain/judging/classification.js';
import { ToolListBytes } from '../../../src/domain/report/tool-list-bytes.js';
import { Driver, fixedRandom, type Handle, type Upstream } from '../../support/session-driver.js';

const meta: DocumentMeta = { kind: 'proxy', harnessVersion: 't', status: 'running', toolClassification: [] };
const decoder = new TextDecoder();

describe('R-9 incremental report document', () => {
  it('SlotArena: entries that grow, shrink and vanish always give a valid JSON list in the order of their numbers', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 30 }), fc.option(fc.string({ maxLength: 300 }), { nil: null }))),
        (edits) => {
          const arena = new SlotArena<number>();
          const model = new Map<number, string>();
          for (const [key, value] of edits) {
            if (value === null) {
              arena.delete(key);
              model.delete(key);
            } else {
              arena.set(key, key, JSON.stringify(value));
              model.set(key, value);
            }
          }
          const list = JSON.parse(`[${decoder.decode(arena.body())}]`) as string[];
          expect(list).toEqual([...model.entries()].sort(([a], [b]) => a - b).map(([, value]) => value));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('R-9.1: after every call the incremental document equals a from-scratch one and parses', () => {
    const outcomes: Upstream[] = ['ok', 'ok', { ok: 'x' }, 'reject', 'timeout'];
    fc.assert(
      fc.property(
        fc.constantFrom('F1', 'F2', 'F4', 'F5'),
        fc.array(
          fc.tuple(
            fc.constantFrom('create_booking', 'search_bookings', 'sync_ledger'),
            fc.integer({ min: 0, max: 3 }),
            fc.integer({ min: 0, max: 4 }),
            fc.boolean(),
          ),
          { maxLength: 30 },
        ),
        (id, calls) => {
          const d = new Driver({ mode: 'scenario', id, parameters: { retryAfterSeconds: 1 } });
          const writer = new ReportWriter(d.session);
          for (const [tool, n, outcome, keyed] of calls) {
            d.call(tool, { n, note: 'é'.repeat(n * 20), ...(keyed ? { idempotency_key: `k${n}` } : {}) }, outcomes[outcome]);
            const incremental = documentText(writer.document(meta));
            expect(JSON.parse(incremental)).toEqual(JSON.parse(serializeDocument(d.session, meta)));
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('R-9.1/R-10: the file lists operations, violations and observations in the order of get_report (by operation id)', () => {
    const d = new Driver();
    const writer = new ReportWriter(d.session);
    const file = () => (JSON.parse(documentText(writer.document(meta))) as { report: Record<string, unknown> }).report;
    d.call('create_booking', { guest: 'g1' });
    d.call('create_booking', { guest: 'g2' });
    file();
    d.call('create_booking', { guest: 'g2' }); // operation 2 becomes a violation first
    file();
    d.call('create_booking', { guest: 'g1', idempotency_key: 'a-key-long-enough-to-outgrow-the-slot' });
    const report = file();
    const view = JSON.parse(JSON.stringify(buildReport(d.session, 'proxy', []))) as Record<string, unknown>;
    expect((report.operations as Array<{ id: number }>).map((o) => o.id)).toEqual([1, 2]);
    expect((report.violations as Array<{ arguments: string }>).map((v) => v.arguments)).toEqual([
      '{"guest":"g1"}',
      '{"guest":"g2"}',
    ]);
    expect(report).toEqual(view);
  });

  it('R-9.1/R-10: parse(the incremental file) deep-equals buildReport, list order included, after any event sequence, a second writer in the way', () => {
    type Event =
      | { kind: 'send'; tool: string; n: number; keyed: boolean }
      | { kind: 'answer'; pick: number; upstream: number; deliver: boolean }
      | { kind: 'deliver'; pick: number }
      | { kind: 'cancel'; pick: number }
      | { kind: 'wait'; ms: number }
      | { kind: 'other-writer' };
    const upstreams: Upstream[] = ['ok', { ok: 'other' }, 'reject', 'timeout', 'crash', 'unavailable'];
    const event: fc.Arbitrary<Event> = fc.oneof(
      {
        weight: 4,
        arbitrary: fc.record({
          kind: fc.constant('send' as const),
          tool: fc.constantFrom('create_booking', 'pay_invoice', 'search_bookings', 'sync_ledger'),
          n: fc.integer({ min: 0, max: 3 }),
          keyed: fc.boolean(),
        }),
      },
      {
        weight: 4,
        arbitrary: fc.record({
          kind: fc.constant('answer' as const),
          pick: fc.nat(),
          upstream: fc.integer({ min: 0, max: upstreams.length - 1 }),
          deliver: fc.boolean(),
        }),
      },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('deliver' as const), pick: fc.nat() }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancel' as const), pick: fc.nat() }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 0, max: 90_000 }) }) },
      { weight: 1, arbitrary: fc.constant({ kind: 'other-writer' as const }) },
    );
    const scenario = fc.constantFrom<ScenarioConfig>(
      { mode: 'none' },
      { mode: 'chaos', errorRate: 0.5 },
      ...(['F1', 'F2', 'F3', 'F4', 'F5'] as const).map(
        (id) => ({ mode: 'scenario', id, parameters: { retryAfterSeconds: 30 } }) as const,
      ),
      // Aim, latency, hold and seed (the configuration block and report.timing[]).
      {
        mode: 'scenario',
        id: 'F1',
        parameters: { retryAfterSeconds: 30 },
        holdMs: 500,
        latency: { ms: 10, jitterMs: 5 },
        aim: { tools: ['pay_*'], on: 2 },
        seed: 3,
      },
      {
        mode: 'chaos',
        errorRate: 0.5,
        latency: { ms: 0, jitterMs: 0 },
        aim: { tools: ['search_*', 'create_*'], on: 1 },
        seed: 9,
      },
    );
    fc.assert(
      fc.property(scenario, fc.array(event, { maxLength: 40 }), fc.boolean(), (config, events, finish) => {
        const d = new Driver(config, undefined, { random: fixedRandom(0.2, 0.8, 0.4, 0.6) });
        const writer = new ReportWriter(d.session);
        const open: Array<{ h: Handle; answered: boolean; delivered: boolean; cancelled?: boolean }> = [];
        const check = () => {
          const file = JSON.parse(documentText(writer.document(meta))) as Record<string, unknown> & {
            report: Record<string, unknown>;
          };
          const evaluation = evaluate(d.session);
          expect(file.report).toEqual(JSON.parse(JSON.stringify(buildReport(d.session, 'proxy', [], evaluation))));
          expect(file).toMatchObject({
            verdict: evaluation.verdict.verdict,
            score: JSON.parse(JSON.stringify(evaluation.score)),
            patches: JSON.parse(JSON.stringify(evaluation.patches)),
          });
        };
        for (const e of events) {
          if (e.kind === 'send') {
            const h = d.send(e.tool, { n: e.n, ...(e.keyed ? { idempotency_key: `k${e.n}` } : {}) });
            open.push({ h, answered: !h.decision.forward, delivered: false });
          } else if (e.kind === 'wait') d.wait(e.ms);
          else if (e.kind === 'other-writer') new ReportWriter(d.session).document(meta);
          else if (open.length > 0) {
            const index = e.pick % open.length;
            const entry = open[index]!;
            if (e.kind === 'cancel') {
              if (!entry.cancelled && !entry.delivered) entry.h.decision.cancelled();
              entry.cancelled = true;
            } else if (e.kind === 'answer' && !entry.answered) {
              d.answer(entry.h, upstreams[e.upstream], { deliver: e.deliver && !entry.delivered });
              entry.answered = true;
              if (e.deliver) entry.delivered = true;
            } else if (!entry.delivered) {
              entry.h.decision.delivered();
              entry.delivered = true;
            }
            if (entry.answered && entry.delivered) open.splice(index, 1);
          }
          check();
        }
        if (finish) {
          d.session.finish();
          check();
        }
      }),
      { numRuns: 200 },
    );
  });
});
describe('R-9.1/R-10.1: the lists of every listed tool, encoded once per tool list', () => {
  const names = ['a', 'b', 'B', 'sync_ledger', 'z', 'é', '\ud800x', '"q"', 'tool_1', 'tool_10', 'tool_2'];
  const toolList = fc.array(
    fc.record({
      name: fc.constantFrom(...names),
      class: fc.constantFrom('read' as const, 'write' as const, 'unclassified' as const),
      reason: fc.string({ maxLength: 8 }),
      keyFields: fc.array(fc.constantFrom('idempotency_key', 'k\u2028'), { maxLength: 2 }),
    }),
    { maxLength: 12 },
  );

  it('R-10.1: coverage and toolClassification equal buildReport for any tool list and any unclassified tools called (listed or not)', () => {
    fc.assert(
      fc.property(toolList, fc.array(fc.constantFrom(...names, 'other', 'zz', '0'), { maxLength: 10 }), (tools, called) => {
        const d = new Driver({ mode: 'none' }, {});
        const writer = new ReportWriter(d.session);
        const list: readonly ToolClassification[] = tools;
        const withTools = { ...meta, toolClassification: list };
        for (const tool of ['', ...called]) {
          if (tool !== '') d.call(tool, {}, 'ok');
          const file = JSON.parse(documentText(writer.document(withTools))) as {
            report: { coverage: unknown };
            toolClassification: unknown;
          };
          expect(file.report.coverage).toEqual(coverageOf(d.session, list));
          expect(file.toolClassification).toEqual(JSON.parse(JSON.stringify(list)));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('R-10.1: a publish copies the encoded list: the same bytes each time, not encoded again', () => {
    const tools: ToolClassification[] = [
      { name: 'sync_ledger', class: 'unclassified', reason: 'no annotation, no pattern match', keyFields: [] },
      { name: 'create_booking', class: 'write', reason: 'default write pattern', keyFields: ['idempotency_key'] },
    ];
    const d = new Driver({ mode: 'none' });
    const writer = new ReportWriter(d.session);
    const withTools = { ...meta, toolClassification: tools };
    const slabs = (parts: ReturnType<ReportWriter['document']>) => parts.filter((p) => p instanceof Uint8Array);
    const first = slabs(writer.document(withTools)).find((p) => decoder.decode(p).startsWith('[{"name"'));
    expect(first).toBeDefined();
    d.call('create_booking', { n: 1 }, 'ok');
    expect(slabs(writer.document(withTools))).toContain(first);
    expect(new ToolListBytes(tools).unclassifiedBody([]).map((p) => (typeof p === 'string' ? p : decoder.decode(p)))).toEqual([
      '"sync_ledger"',
    ]);
  });
});
