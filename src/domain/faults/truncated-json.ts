import { errorResult, type FaultBehaviour } from './fault.js';

/** F3 — the first write's answer is truncated JSON (`{"`, with isError); nothing is executed. */
export const truncatedJson: FaultBehaviour = {
  kind: 'F3',
  summary: 'first write answers truncated JSON, nothing executed',
  trigger: { kind: 'leading-writes', count: 1 },
  baseline: false,
  forwards: false,
  injected: () => errorResult('{"'),
};
