import { describe, expect, it } from 'vitest';
import { cutSegments } from '../../bench/segments.js';

/** One event of the hook: at `ms`, a read (0) or a write (1) on `fd`. */
const at = (ms: number, kind: 0 | 1, fd: number) => [ms, kind, fd];

describe('bench segments: one call cut into its three stretches', () => {
  it('agent read → upstream write → upstream read → agent write, in µs; stray events between calls are ignored', () => {
    const events = [
      // Start-up: the upstream's handshake, before any agent line.
      ...at(0, 1, 21),
      ...at(0.2, 0, 22),
      // Call 1: a log write to stderr (fd 2) on the way counts for nothing.
      ...at(1, 0, 0),
      ...at(1.05, 1, 2),
      ...at(1.1, 1, 21),
      ...at(1.3, 0, 22),
      ...at(1.35, 1, 1),
      // Call 2: the agent side's write without a known descriptor still ends the call.
      ...at(2, 0, 0),
      ...at(2.08, 1, 21),
      ...at(2.2, 0, 22),
      ...at(2.25, 1, -1),
      // Call 3 never got its answer: not counted.
      ...at(3, 0, 0),
      ...at(3.1, 1, 21),
    ];
    const cut = cutSegments(events);
    expect(cut.toUpstream.map(Math.round)).toEqual([100, 80]);
    expect(cut.upstream.map(Math.round)).toEqual([200, 120]);
    expect(cut.toAgent.map(Math.round)).toEqual([50, 50]);
  });
});
