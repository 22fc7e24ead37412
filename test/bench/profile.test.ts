import { describe, expect, it } from 'vitest';
import { summariseProfile } from '../../bench/profile.js';

/**
 * A profile of 10 ms: 4 samples of start-up code (`load`, 1 ms each), an idle ms, then 5 samples of call
 * code (`call`, 1 ms each). A sample's time is the delta after it (the next sample's `timeDeltas`).
 */
function profile() {
  const frame = (id: number, functionName: string, url: string) => ({ id, callFrame: { functionName, url, lineNumber: 0 } });
  return {
    nodes: [frame(1, 'load', '/x/start.js'), frame(2, '(idle)', ''), frame(3, 'call', '/x/call.js')],
    samples: [1, 1, 1, 1, 2, 3, 3, 3, 3, 3],
    timeDeltas: [0, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000],
    startTime: 0,
    endTime: 10_000,
  };
}

describe('bench profile: self time of the whole profile and after start-up', () => {
  it('the whole profile counts every non-idle sample; its last 60 % only the samples taken in it', () => {
    const whole = summariseProfile(profile());
    expect(whole.totalMs).toBe(9);
    expect(whole.topFunctions.map((f) => [f.name, f.selfMs])).toEqual([
      ['call /x/call.js:1', 5],
      ['load /x/start.js:1', 4],
    ]);
    // Samples at 0–3 ms are start-up; from 4 ms on (the last 60 % of 10 ms) the idle one and the calls.
    const after = summariseProfile(profile(), 10, 0.6);
    expect(after.totalMs).toBe(5);
    expect(after.topFiles.map((f) => [f.name, f.percent])).toEqual([['/x/call.js', 100]]);
  });
});
