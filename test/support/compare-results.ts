/**
 * `compare` results built from run facts, without a trial on disk: the HTML page's unit tests
 * (`test/app/report-formats/rate-chart.test.ts`, `test/app/compare-html.test.ts`) and its browser test.
 */
import type { CompareResult } from '../../src/app/compare/compare.js';
import type { StatsResult } from '../../src/app/stats/stats.js';
import { compareSides, settingDifferences, summariseRuns, type RunFacts } from '../../src/domain/trial/index.js';
import { times } from './run-facts.js';

export const DUPLICATED: Partial<RunFacts> = { verdict: 'FAIL', reason: 'DUPLICATE_EXECUTION', duplicatedOperations: 1 };

/** One side of `compare`: the summary of `facts`, read from the folder `path`, with its settings. */
export function side(
  facts: readonly RunFacts[],
  path: string,
  settings: Record<string, string> = { '--model': path },
  settingFiles: Record<string, string> = {},
): StatsResult {
  return {
    sources: [{ path, harnessVersion: '1.0.0' } as StatsResult['sources'][number]],
    warnings: [],
    runs: facts.length,
    summary: summariseRuns(facts),
    comparisons: [],
    settings,
    settingFiles,
  };
}

/** B against A, as `compareFolders` puts them together. */
export function compareOf(a: StatsResult, b: StatsResult): CompareResult {
  return {
    a,
    b,
    settings: settingDifferences(a.settings, b.settings, a.settingFiles, b.settingFiles),
    comparison: compareSides(a.summary, b.summary),
  };
}

/** Naive (10 of 10 duplicated) against careful (none), under F1. */
export function naiveAgainstCareful(): CompareResult {
  return compareOf(side(times(10, DUPLICATED), 'naive'), side(times(10, {}), 'careful'));
}
