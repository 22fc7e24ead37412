import { describe, expect, it } from 'vitest';
import type { ScenarioConfig } from '../../src/domain/faults/fault-plan.js';
import { faultKinds, faultOf, type FaultKind } from '../../src/domain/faults/index.js';
import { Driver, fixedRandom } from '../support/session-driver.js';

const booking = { guest: 'Ada', date: '2026-11-03' };

function configOf(kind: FaultKind): ScenarioConfig {
  return kind === 'chaos' ? { mode: 'chaos', errorRate: 0.5 } : { mode: 'scenario', id: kind };
}

describe('R-4: every fault does at each step what its file declares (the session reads only the hooks)', () => {
  for (const fault of faultKinds().map(faultOf)) {
    it(`R-4: ${fault.kind} (${fault.summary})`, () => {
      const d = new Driver(configOf(fault.kind), undefined, { random: fixedRandom(0.1) });
      const first = d.send('create_booking', booking);
      expect(first.decision.fault).toBe(fault.kind);
      expect(first.decision.forward).toBe(fault.forwards);
      const settings = { parameters: { retryAfterSeconds: 60 } };
      if (!fault.forwards) expect(first.decision.injected).toEqual(fault.injected!(settings));
      d.answer(first, 'ok');
      if (fault.forwards) expect(first.seen).toEqual(fault.replaceExecuted?.(settings) ?? 'ok');
      const trigger = fault.trigger;
      const affected = trigger.kind === 'leading-writes' ? trigger.count : 1;
      for (let i = 1; i < affected; i++) expect(d.call('create_booking', { ...booking, n: i }).decision.fault).toBe(fault.kind);
      if (trigger.kind === 'leading-writes')
        expect(d.send('create_booking', { ...booking, n: 'next' }).decision.fault).toBeNull();
      expect(d.report().baseline).toBe(fault.kind === 'chaos' ? false : fault.baseline);
      expect(d.report().operations[0]).toMatchObject(fault.baseline ? {} : { fault: fault.kind });
      const hasWindow = d.report().operations.some((op) => (op as { retryAfter?: unknown }).retryAfter !== undefined);
      expect(hasWindow).toBe(fault.retryWindow !== undefined);
    });
  }

  it('R-4.2: a chance trigger uses the configured rate: 0 never fires, 1 always does', () => {
    for (const [rate, expected] of [
      [0, null],
      [1, 'chaos'],
    ] as const) {
      const d = new Driver({ mode: 'chaos', errorRate: rate }, undefined, { random: fixedRandom(0) });
      expect(d.send('get_booking', { id: 1 }).decision.fault).toBe(expected);
    }
  });
});
