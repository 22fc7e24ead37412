import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../bench/drive.js';
import type { PathName } from '../../bench/scenarios.js';
import { roundRatios, sizeTargetFigures, type Round } from '../../bench/summary.js';

/** A run of `path` whose mean per call is `meanMs` (the other figures do not matter here). */
function run(path: PathName, meanMs: number): RunResult {
  return { path, pid: 1, medianMs: meanMs, p99Ms: meanMs, meanMs, peakRssMb: 80, report: null, cpuMs: null } as RunResult;
}

function round(means: Partial<Record<PathName, number>>): Round {
  const runs: Round['runs'] = {};
  for (const [path, mean] of Object.entries(means) as Array<[PathName, number]>) runs[path] = run(path, mean);
  return { order: Object.keys(means) as PathName[], runs };
}

describe('bench summary: the round-by-round ratios', () => {
  it('each round its own added(path) ÷ added(base), against its own direct path; a round without the base is left out', () => {
    const rounds = [
      round({ direct: 0.1, floorWrites: 1.1, proxy: 1.3 }),
      round({ direct: 0.2, floorWrites: 1.2, proxy: 1.7 }),
      round({ direct: 0.1, proxy: 1.0 }),
      // A base that adds nothing measurable gives no ratio.
      round({ direct: 0.5, floorWrites: 0.5, proxy: 1.0 }),
    ];
    expect(roundRatios(rounds, 'proxy', 'floorWrites').map((r) => r.toFixed(2))).toEqual(['1.20', '1.50']);
  });

  it('the target figures carry both spreads', () => {
    const rounds = [round({ direct: 0.1, floor: 0.6, floorWrites: 1.1, proxy: 1.3, proxyNoFile: 0.8 })];
    const figures = sizeTargetFigures(undefined, rounds);
    expect(figures.roundRatios?.file.map((r) => r.toFixed(2))).toEqual(['1.20']);
    expect(figures.roundRatios?.noFile.map((r) => r.toFixed(2))).toEqual(['1.40']);
  });
});
