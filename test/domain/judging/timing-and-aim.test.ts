/**
 * Timing and aim in the domain: aimed faults (`--fault-tool`, `--fault-on`), the latency drawn per forwarded call,
 * F1's hold and the agent's cancellations as the report records them, and the configuration block.
 */
import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../../../src/adapters/time/seeded-random.js';
import type { ScenarioConfig } from '../../../src/domain/faults/fault-plan.js';
import { serializeDocument } from '../../../src/domain/report/report-document.js';
import { buildReport, runConfiguration } from '../../../src/domain/report/report.js';
import { drawLatency } from '../../../src/domain/judging/timing.js';
import { Driver, fixedRandom } from '../../support/session-driver.js';

const F = (id: 'F1' | 'F2' | 'F4' | 'F5' | 'F7', extra: Partial<ScenarioConfig> = {}): ScenarioConfig =>
  ({ mode: 'scenario', id, ...extra }) as ScenarioConfig;

describe('aimed faults (--fault-tool, --fault-on)', () => {
  it('R-4: --fault-tool pay_* puts F1 on pay_invoice; create_booking before it is forwarded and judged normally', () => {
    const d = new Driver(F('F1', { aim: { tools: ['pay_*'], on: 1 } }));
    const create = d.call('create_booking', { guest: 'Ada' });
    expect(create.decision.fault).toBeNull();
    expect(create.seen).toBe('ok');
    const pay = d.call('pay_invoice', { invoice: 7 });
    expect(pay.decision.fault).toBe('F1');
    expect(pay.seen).toMatchObject({ isError: true });
    const ops = d.report().operations;
    expect(ops.map((op) => [op.tool, op.fault ?? null, op.executions])).toEqual([
      ['create_booking', null, 1],
      ['pay_invoice', 'F1', 1],
    ]);
    // The scenario was applied, so the run is judged; create_booking counts like any other write.
    expect(d.report().scenario).toMatchObject({ triggered: true, faultsApplied: 1 });
    d.call('create_booking', { guest: 'Ada' });
    expect(d.verdict).toBe('FAIL');
  });

  it('R-4: --fault-on 2 faults the second matching write only; the first and third go through', () => {
    const d = new Driver(F('F5', { aim: { tools: null, on: 2 } }));
    expect([1, 2, 3].map((n) => d.call('create_booking', { n }).decision.fault)).toEqual([null, 'F5', null]);
  });

  it('R-4: with --fault-tool, --fault-on counts only matching writes (reads and other tools do not count)', () => {
    const d = new Driver(F('F5', { aim: { tools: ['pay_*'], on: 2 } }));
    const faults = [
      d.call('pay_invoice', { n: 1 }),
      d.call('create_booking', { n: 1 }),
      d.call('get_booking', { n: 1 }),
      d.call('create_booking', { n: 2 }),
      d.call('pay_invoice', { n: 2 }),
      d.call('pay_invoice', { n: 3 }),
    ].map((h) => h.decision.fault);
    expect(faults).toEqual([null, null, null, null, 'F5', null]);
  });

  it('R-16.1: F7 aimed with --fault-tool and --fault-on: the second pay_invoice executes and gets the 500; the others go through', () => {
    const d = new Driver(F('F7', { aim: { tools: ['pay_*'], on: 2 } }));
    const calls = [
      d.call('pay_invoice', { n: 1 }),
      d.call('create_booking', { n: 1 }),
      d.call('pay_invoice', { n: 2 }),
      d.call('pay_invoice', { n: 3 }),
    ];
    expect(calls.map((h) => h.decision.fault)).toEqual([null, null, 'F7', null]);
    expect(calls[2]!.seen).toMatchObject({ isError: true });
    expect(calls.filter((h, i) => i !== 2).map((h) => h.seen)).toEqual(['ok', 'ok', 'ok']);
    // The aimed write was executed once, despite the 500; the run is judged.
    const paid = d.report().operations.filter((op) => op.tool === 'pay_invoice');
    expect(paid.map((op) => [op.fault ?? null, op.executions])).toEqual([
      [null, 1],
      ['F7', 1],
      [null, 1],
    ]);
    expect(d.report().scenario).toMatchObject({ triggered: true, faultsApplied: 1 });
    d.call('pay_invoice', { n: 2 });
    expect(d.verdict).toBe('FAIL');
  });

  it("R-4: F4's two pass-through writes become the N-th matching write and the one after it", () => {
    const d = new Driver(F('F4', { aim: { tools: ['create_*'], on: 2 } }));
    const faults = [1, 2, 3, 4].map((n) => d.call(n === 3 ? 'pay_invoice' : 'create_booking', { n }).decision.fault);
    expect(faults).toEqual([null, 'F4', null, 'F4']);
  });

  it('R-4.3: of parallel writes exactly one is the N-th (decided on arrival)', () => {
    const d = new Driver(F('F1', { aim: { tools: null, on: 2 } }));
    const open = [1, 2, 3, 4].map((n) => d.send('create_booking', { n }));
    expect(open.map((h) => h.decision.fault)).toEqual([null, 'F1', null, null]);
    for (const h of open) d.answer(h);
    expect(d.report().scenario.faultsApplied).toBe(1);
  });

  it('R-4.2: chaos aimed with --fault-tool draws only for matching tools', () => {
    const d = new Driver({ mode: 'chaos', errorRate: 1, aim: { tools: ['get_*'], on: 1 } });
    expect(['create_booking', 'get_booking', 'search_bookings'].map((t) => d.call(t).decision.fault)).toEqual([
      null,
      'chaos',
      null,
    ]);
  });

  it('the defaults are unchanged: no aim means the first write of any tool', () => {
    const d = new Driver(F('F1'));
    expect(d.call('get_booking').decision.fault).toBeNull();
    expect(d.call('pay_invoice').decision.fault).toBe('F1');
    expect(d.report().configuration).toBeUndefined();
    expect(d.report().timing).toBeUndefined();
  });
});

describe('latency drawn per forwarded call', () => {
  it('MS:JITTER gives whole milliseconds in [MS − JITTER, MS + JITTER]; no jitter draws nothing', () => {
    expect(drawLatency({ ms: 100, jitterMs: 20 }, fixedRandom(0))).toBe(80);
    expect(drawLatency({ ms: 100, jitterMs: 20 }, fixedRandom(0.999999))).toBe(120);
    let draws = 0;
    expect(drawLatency({ ms: 50, jitterMs: 0 }, { next: () => (draws++, 0.5) })).toBe(50);
    expect(draws).toBe(0);
  });

  it('every forwarded call (read, write, unclassified) gets a latency; an injected fault does not; the report lists them per attempt', () => {
    const d = new Driver(F('F5', { latency: { ms: 100, jitterMs: 0 } }));
    const calls = [
      d.call('get_booking'),
      d.call('create_booking', { n: 1 }),
      d.call('create_booking', { n: 2 }),
      d.call('sync_ledger'),
    ];
    expect(calls.map((h) => h.decision.delayMs)).toEqual([100, 0, 100, 100]);
    expect(d.report().timing).toEqual([
      { attempt: 1, tool: 'get_booking', latencyMs: 100, outcome: 'executed' },
      { attempt: 3, tool: 'create_booking', latencyMs: 100, outcome: 'executed' },
      { attempt: 4, tool: 'sync_ledger', latencyMs: 100, outcome: 'executed' },
    ]);
  });

  it('the same seed gives the same latencies, call for call', () => {
    const run = () => {
      const d = new Driver({ mode: 'none', latency: { ms: 200, jitterMs: 150 }, seed: 7 }, undefined, {
        random: SeededRandom.fromSeed(7),
      });
      for (let n = 0; n < 20; n++) d.call(n % 2 === 0 ? 'get_booking' : 'create_booking', { n });
      return d.report().timing!.map((t) => t.latencyMs);
    };
    const first = run();
    expect(first).toEqual(run());
    expect(new Set(first).size).toBeGreaterThan(1);
    for (const ms of first) {
      expect(ms).toBeGreaterThanOrEqual(50);
      expect(ms).toBeLessThanOrEqual(350);
    }
  });

  it('the configuration block records seed, latency, aim and hold (the report file and the view agree)', () => {
    const scenario = F('F1', { latency: { ms: 10, jitterMs: 5 }, aim: { tools: ['pay_*'], on: 2 }, holdMs: 5000, seed: 42 });
    expect(runConfiguration(scenario)).toEqual({
      seed: 42,
      latency: { ms: 10, jitterMs: 5 },
      aim: { tools: ['pay_*'], on: 2 },
      holdMs: 5000,
    });
    const d = new Driver(scenario);
    d.call('get_booking');
    const view = buildReport(d.session, 'proxy', []);
    const file = JSON.parse(
      serializeDocument(d.session, { kind: 'proxy', harnessVersion: 't', status: 'running', toolClassification: [] }),
    ) as { report: Record<string, unknown> };
    expect(file.report.configuration).toEqual(view.configuration);
    expect(file.report.timing).toEqual(view.timing);
  });
});

describe('hold and cancellation as the session records them', () => {
  it('F1 with --hold: the decision carries the hold, the timeout text names it, the report the time held', () => {
    const d = new Driver(F('F1', { holdMs: 5000 }));
    const ghost = d.send('create_booking', { n: 1 });
    expect(ghost.decision.holdMs).toBe(5000);
    d.answer(ghost, 'ok', { deliver: false });
    expect(ghost.seen).toMatchObject({ content: [{ text: expect.stringContaining('within 5 seconds') }] });
    d.wait(5000);
    ghost.decision.delivered();
    expect(d.report().timing).toEqual([{ attempt: 1, tool: 'create_booking', heldMs: 5000, outcome: 'executed' }]);
    // A later write is not held.
    expect(d.send('create_booking', { n: 2 }).decision.holdMs).toBe(0);
  });

  it('a cancellation during the hold: executed (the ghost write), cancelled after the time held', () => {
    const d = new Driver(F('F1', { holdMs: 5000 }));
    const ghost = d.send('create_booking', { n: 1 });
    d.wait(30);
    d.answer(ghost, 'ok', { deliver: false });
    d.wait(2000);
    ghost.decision.cancelled();
    ghost.decision.delivered();
    expect(d.report().timing).toEqual([
      { attempt: 1, tool: 'create_booking', heldMs: 2000, cancelledAfterMs: 2030, outcome: 'executed' },
    ]);
    expect(d.report().operations[0]).toMatchObject({ executions: 1, fault: 'F1' });
  });

  it('a cancelled forwarded call without an answer stays EXECUTION_UNKNOWN; the report records the cancellation without any flag', () => {
    const d = new Driver();
    const call = d.send('create_booking', { n: 1 });
    d.wait(700);
    call.decision.cancelled();
    d.answer(call, 'crash');
    expect(d.report().timing).toEqual([{ attempt: 1, tool: 'create_booking', cancelledAfterMs: 700, outcome: 'unknown' }]);
    expect(d.report().operations[0]).toMatchObject({ executions: 0, outcome: 'EXECUTION_UNKNOWN' });
    expect(() => call.decision.cancelled()).toThrow(/out of order/);
  });
});

describe('start-up warning for an aim that can never hit', () => {
  it('R-8.4: --fault-tool matching no write tool warns; matching one does not', async () => {
    const { classificationWarnings } = await import('../../../src/domain/judging/classification-warnings.js');
    const tools = [
      { name: 'create_draft', class: 'write' },
      { name: 'pay_invoice', class: 'write' },
      { name: 'get_invoice', class: 'read' },
    ] as const;
    const scenario = (tools: string[]): ScenarioConfig => F('F1', { aim: { tools, on: 1 } });
    expect(classificationWarnings({}, scenario(['pay_*']), tools as never)).toEqual([]);
    expect(classificationWarnings({}, scenario(['get_*']), tools as never)).toEqual([
      'WARNING: --fault-tool "get_*" matches no write tool of the upstream, so the fault can never trigger; every run will be NOT_TESTED.',
    ]);
  });
});
