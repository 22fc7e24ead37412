/**
 * The session decides at once what its caller waits for (the fault, the replacement of an answer) and
 * books the rest later (`catchUp`), so the proxy can send a call on before its bookkeeping. The state a
 * reader sees must be exactly what booking every step at once gives: random sessions are driven twice,
 * once caught up after every step and once left to catch up on its own (only when a view is read, at
 * random points), and every report read on the way, and at the end, must be the same.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ScenarioConfig } from '../../../src/domain/faults/fault-plan.js';
import { ModelSide } from '../../../src/domain/judging/attribution.js';
import { Driver, fixedRandom, type Handle } from '../../support/session-driver.js';
import { propertyRuns } from '../../support/property-runs.js';
import { answerAction, sendAction, type AnswerAction, type SendAction } from '../../support/session-actions.js';

type Action =
  | SendAction
  | AnswerAction
  | { kind: 'deliver'; pick: number }
  | { kind: 'cancel'; pick: number }
  | { kind: 'wait'; ms: number }
  | { kind: 'read' }
  | { kind: 'finish' };

const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 4, arbitrary: sendAction(['create_booking', 'pay_invoice', 'search_bookings', 'sync_ledger'], 2) },
  { weight: 4, arbitrary: answerAction(['ok', { ok: 'other' }, 'reject', 'timeout', 'crash', 'unavailable']) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('deliver' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancel' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 0, max: 3_000 }) }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'read' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'finish' as const }) },
);

const scenario: fc.Arbitrary<ScenarioConfig> = fc.oneof(
  fc.constant({ mode: 'none' } as const),
  fc
    .constantFrom('F1', 'F2', 'F3', 'F4', 'F5')
    .map((id) => ({ mode: 'scenario', id, parameters: { retryAfterSeconds: 2 } }) as const),
  fc.constant({ mode: 'chaos', errorRate: 0.5 } as const),
  // Latency and hold: arrivals are booked at once, the later steps still wait for a catch-up.
  fc.constantFrom('F1', 'F4').map((id) => ({ mode: 'scenario', id, latency: { ms: 100, jitterMs: 50 }, holdMs: 500 }) as const),
);

/** Short sessions of one write and one read tool, mostly executed answers and waits: the timed steps come up often. */
const focusedAction: fc.Arbitrary<Action> = fc.oneof(
  sendAction(['create_booking', 'create_booking', 'search_bookings'], 1, [null]),
  answerAction(['ok', 'ok', 'timeout', 'unavailable']),
  fc.record({ kind: fc.constant('deliver' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('cancel' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 1, max: 3_000 }) }),
  fc.constant({ kind: 'read' as const }),
);
const timedScenario: fc.Arbitrary<ScenarioConfig> = fc.oneof(
  fc
    .constantFrom('F1', 'F2', 'F4')
    .map((id) => ({ mode: 'scenario', id, latency: { ms: 100, jitterMs: 50 }, holdMs: 500 }) as const),
  // F6: the first write's time-out at once, its landing later; writes beside it count their executions.
  fc.constant({ mode: 'scenario', id: 'F6', parameters: { landAfterMs: 1000 } } as const),
);

const seed = fc.array(fc.double({ min: 0, max: 0.999, noNaN: true }), { minLength: 1, maxLength: 8 });

interface Input {
  scenario: ScenarioConfig;
  actions: Action[];
  seed: number[];
}

/** Drives one session; `eager`: catch up after every step. Returns every report read, then the final one. */
function drive(input: Input, eager: boolean): string[] {
  const d = new Driver(input.scenario, undefined, {
    random: fixedRandom(...input.seed),
    keyTools: ['pay_invoice'],
    idempotentTools: ['pay_invoice'],
  });
  const reads: string[] = [];
  const open: Array<{ h: Handle; answered: boolean; delivered: boolean; cancelled: boolean }> = [];
  let finished = false;
  const lateWrites = input.scenario.mode === 'scenario' && input.scenario.id === 'F6';
  for (const a of input.actions) {
    if (a.kind === 'wait') d.wait(a.ms);
    else if (a.kind === 'read') reads.push(JSON.stringify(d.report()));
    else if (a.kind === 'finish') {
      d.session.finish();
      finished = true;
    } else if (a.kind === 'send') {
      if (finished) continue;
      const h = d.send(a.tool, { n: a.n, ...(a.key ? { idempotency_key: a.key } : {}) });
      open.push({ h, answered: !h.decision.forward, delivered: false, cancelled: false });
    } else if (open.length > 0) {
      const index = a.pick % open.length;
      const entry = open[index]!;
      // F6: a late write is delivered (its time-out) before the upstream answers it.
      const late = entry.h.decision.landAfterMs > 0;
      if (a.kind === 'cancel') {
        if (!entry.cancelled && !entry.delivered) entry.h.decision.cancelled();
        entry.cancelled = true;
      } else if (a.kind === 'answer' && !entry.answered) {
        const deliver = a.deliver && !entry.delivered;
        d.answer(entry.h, a.upstream, { deliver });
        entry.answered = true;
        entry.delivered ||= deliver;
        // The execution number an answer tells under F6 is read as the pipeline reads it: at once (only
        // there, since reading it catches up, and the other scenarios must show what waits for a view).
        if (lateWrites) {
          if (eager) d.session.catchUp();
          reads.push(`execution ${entry.h.decision.execution}`);
        }
        if (entry.delivered) open.splice(index, 1);
      } else if ((entry.answered || late) && !entry.delivered) {
        entry.h.decision.delivered();
        entry.delivered = true;
        if (entry.answered) open.splice(index, 1);
      }
    }
    if (eager) d.session.catchUp();
  }
  reads.push(JSON.stringify(d.report()));
  return reads;
}

describe('deferred bookkeeping', () => {
  it('R-9.2/R-4.1/R-16.1: a session left to catch up on its own reads exactly as one caught up after every step (reports, fault decisions, F6 execution numbers)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          { weight: 1, arbitrary: fc.record({ scenario, actions: fc.array(action, { maxLength: 40 }), seed }) },
          {
            weight: 2,
            arbitrary: fc.record({ scenario: timedScenario, actions: fc.array(focusedAction, { maxLength: 12 }), seed }),
          },
        ),
        (input) => {
          expect(drive(input, false)).toEqual(drive(input, true));
        },
      ),
      { numRuns: propertyRuns(1000) },
    );
  });

  /** Arguments that count how often the session looks into them. */
  function watchedArgs(): { args: Record<string, unknown>; looks: () => number } {
    let looks = 0;
    const args = new Proxy<Record<string, unknown>>(
      { n: 1, note: 'x' },
      {
        ownKeys: (target) => {
          looks++;
          return Reflect.ownKeys(target);
        },
      },
    );
    return { args, looks: () => looks };
  }

  it('the arguments of a forwarded write are not looked into until the session catches up (the proxy sends them on first)', () => {
    const d = new Driver();
    const { args, looks } = watchedArgs();
    const h = d.send('create_booking', args);
    expect(h.decision.forward).toBe(true);
    expect(looks()).toBe(0);
    d.session.catchUp();
    expect(looks()).toBeGreaterThan(0);
    // The decision's operation is the bookkeeping's: reading it catches up too.
    const second = d.send('create_booking', { n: 2 });
    expect(second.decision.operation).toBe(2);
  });

  it('with the model side seen (R-14), every step is booked at once', () => {
    const d = new Driver({ mode: 'none' }, undefined, { modelSide: new ModelSide() });
    const { args, looks } = watchedArgs();
    d.send('create_booking', args);
    expect(looks()).toBeGreaterThan(0);
  });
});
