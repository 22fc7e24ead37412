import type { FaultBehaviour } from './fault.js';

/**
 * F4 — nothing is injected: the first two writes pass through unchanged and the harness does not
 * de-duplicate. It shows whether the agent writes twice on its own (a baseline).
 */
export const passThrough: FaultBehaviour = {
  kind: 'F4',
  name: 'pass-through',
  summary: 'first two writes pass through unchanged (baseline)',
  failWhen: 'the same operation is executed twice',
  parameters: [],
  // Both of the naive agent's writes execute; the careful agent's PASS is a baseline.
  referenceVerdicts: { careful: 'PASS', naive: 'FAIL', patient: 'PASS' },
  trigger: { kind: 'leading-writes', count: 2 },
  baseline: true,
  forwards: true,
};
