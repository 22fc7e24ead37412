import { describe, expect, it } from 'vitest';
import { PARALLEL_WRITES, TARGETS, checkLateWrites, targetLine } from '../../bench/targets.js';

describe('npm run bench:late: its target line (R-16.1)', () => {
  it('R-16.1: 10 000 F6 sessions within the 10 000-parallel RSS limit are met, above it not met; the line names limit and figure', () => {
    expect(PARALLEL_WRITES).toBe(10_000);
    const within = checkLateWrites({ sessions: PARALLEL_WRITES, rounds: 3, peakRssMb: TARGETS.peakRssMbParallel });
    expect(within).toMatchObject({ met: true, value: TARGETS.peakRssMbParallel, limit: TARGETS.peakRssMbParallel });
    expect(targetLine(within)).toBe(
      `target: peak RSS, 10000 parallel F6 sessions with a write waiting to land ≤ ${TARGETS.peakRssMbParallel} MB (the 10000-parallel case's limit) — measured ${TARGETS.peakRssMbParallel} MB (median of 3): met`,
    );
    const above = checkLateWrites({ sessions: PARALLEL_WRITES, rounds: 3, peakRssMb: TARGETS.peakRssMbParallel + 0.6 });
    expect(above.met).toBe(false);
    expect(targetLine(above)).toMatch(/ — measured 301 MB \(median of 3\): not met$/);
  });

  it('R-16.1: another number of sessions, or no figure, says nothing about the limit: n/a', () => {
    const fewer = checkLateWrites({ sessions: 500, rounds: 1, peakRssMb: 90 });
    expect(fewer.met).toBeNull();
    expect(targetLine(fewer)).toMatch(/measured n\/a \(90 MB \(median of 1\) with 500 sessions\): n\/a$/);
    expect(checkLateWrites({ sessions: PARALLEL_WRITES, rounds: 3, peakRssMb: null }).met).toBeNull();
    expect(checkLateWrites({ sessions: 500, rounds: 1, peakRssMb: 999 }).met).toBeNull();
  });
});
