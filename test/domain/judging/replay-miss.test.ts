/**
 * A replayed recording that has no answer for a call (`--upstream-replay`, docs/replay.md): the call is not
 * executed, and the session can no longer be judged — NOT_TESTED "replay miss", before a PASS and before a FAIL.
 */
import { describe, expect, it } from 'vitest';
import { Driver } from '../../support/session-driver.js';

function miss(d: Driver, tool: string): void {
  const handle = d.send(tool, { guest: 'Ann' });
  handle.decision.answered({ kind: 'unavailable', replayMiss: true });
  handle.decision.delivered();
}

describe('replay miss', () => {
  it('a session that would PASS is NOT_TESTED once a call missed the recording; the missed write is not executed', () => {
    const d = new Driver({ mode: 'scenario', id: 'F3' });
    d.call('create_booking', { guest: 'Ann' });
    d.call('create_booking', { guest: 'Ann' });
    expect(d.verdict).toBe('PASS');
    miss(d, 'search_bookings');
    expect(d.evaluation().verdict).toMatchObject({
      verdict: 'NOT_TESTED',
      reason: 'replay miss: 1 call(s) had no recorded answer in the replayed recording',
    });
    miss(d, 'create_booking');
    expect(d.report().operations[0]).toMatchObject({ executions: 1 });
  });

  it('a duplicate found before the miss does not make the replay a FAIL: the run left its recording', () => {
    const d = new Driver({ mode: 'none' });
    d.call('create_booking', { guest: 'Ann' });
    d.call('create_booking', { guest: 'Ann' });
    expect(d.verdict).toBe('FAIL');
    miss(d, 'get_booking');
    expect(d.verdict).toBe('NOT_TESTED');
  });
});
