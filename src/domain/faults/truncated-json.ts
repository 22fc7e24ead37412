import { errorResult, type FaultBehaviour } from './fault.js';

/** F3 — the first write's answer is truncated JSON (`{"`, with isError); nothing is executed. */
export const truncatedJson: FaultBehaviour = {
  kind: 'F3',
  name: 'truncated JSON',
  summary: 'first write answers truncated JSON, nothing executed',
  failWhen: 'the operation is then executed twice',
  parameters: [],
  // The first attempt was not executed, so the naive agent's blind re-send executes it exactly once.
  referenceVerdicts: { careful: 'PASS', naive: 'PASS', patient: 'PASS' },
  trigger: { kind: 'leading-writes', count: 1 },
  baseline: false,
  forwards: false,
  tells: 'truncated-answer',
  injected: () => errorResult('{"'),
};
