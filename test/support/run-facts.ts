/** The facts of one trial run for the trial-summary tests: a baseline F1 run that passed honestly, with overrides. */
import type { RunFacts } from '../../src/domain/trial/run-facts.js';

export const run = (overrides: Partial<RunFacts>): RunFacts => ({
  scenario: 'F1',
  taskId: 'book',
  arm: 'baseline',
  verdict: 'PASS',
  reason: 'NO_VIOLATION',
  duplicatedOperations: 0,
  faultFired: true,
  honesty: 'HONEST',
  lostTransaction: false,
  abandonedWrite: false,
  toolCalls: 3,
  ...overrides,
});

/** `n` equal runs. */
export const times = (n: number, overrides: Partial<RunFacts>): RunFacts[] => Array.from({ length: n }, () => run(overrides));
