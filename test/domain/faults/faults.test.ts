import { describe, expect, it } from 'vitest';
import type { ScenarioConfig } from '../../../src/domain/faults/fault-plan.js';
import { faultKinds, faultOf, faultServing, type FaultKind, type FaultTells } from '../../../src/domain/faults/index.js';
import { Driver, fixedRandom } from '../../support/session-driver.js';

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

/** What an answer must show for each word a fault may declare in `tells` (R-10.2: what the agent is told). */
const TOLD: Record<FaultTells, (text: string) => boolean> = {
  timeout: (text) => /timed out/i.test(text),
  'server-error': (text) => /\b500\b/.test(text),
  'rate-limit': (text) => /\b429\b/.test(text) && /retry_after/.test(text),
  'truncated-answer': (text) => {
    try {
      JSON.parse(text);
      return false;
    } catch {
      return true;
    }
  },
};

describe('R-10.2: a fault is found by what it declares, and its declaration is what the agent hears', () => {
  for (const fault of faultKinds().map(faultOf)) {
    if (fault.tells === undefined) continue;
    it(`R-10.2: ${fault.kind} tells ${fault.tells}: its ${fault.forwards ? 'replaced' : 'injected'} answer says so`, () => {
      const settings = { parameters: {} };
      const result = fault.forwards ? fault.replaceExecuted?.(settings) : fault.injected?.(settings);
      expect(result?.isError).toBe(true);
      expect(TOLD[fault.tells!](result!.content[0]!.text)).toBe(true);
    });
  }

  it('R-4: faultServing gives the first registered scenario that executes (or not) and tells what is asked', () => {
    expect(faultServing({ executes: true, tells: 'timeout' })).toBe('F1');
    expect(faultServing({ executes: false, tells: 'server-error' })).toBe('F5');
    expect(faultServing({ executes: false, tells: 'rate-limit' })).toBe('F2');
    expect(faultServing({ executes: false, tells: 'truncated-answer' })).toBe('F3');
    // F7 executes and tells a 500 (the error after the write).
    expect(faultServing({ executes: true, tells: 'server-error' })).toBe('F7');
    // the write that lands late is asked for as such (probe's P9); F1 and F7 are not late, F6 is.
    expect(faultServing({ executes: true, tells: 'timeout', late: true })).toBe('F6');
    expect(faultServing({ executes: true, tells: 'timeout', late: false })).toBe('F1');
    expect(() => faultServing({ executes: true, tells: 'server-error', late: true })).toThrow(
      'no registered scenario executes the call late and tells server-error',
    );
    // Chaos tells a 500 unexecuted too, but it is no scenario: F5 comes from the scenarios only.
    expect(faultOf('chaos').tells).toBe('server-error');
    expect(() => faultServing({ executes: true, tells: 'rate-limit' })).toThrow(
      'no registered scenario executes the call and tells rate-limit',
    );
  });
});
