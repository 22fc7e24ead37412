import { errorResult, type FaultBehaviour } from './fault.js';
import { HTTP_500_TEXT } from './server-error.js';

/**
 * F7 — executed, then 500: the first write really executes upstream, and the agent gets the same HTTP 500
 * as under F5 (`isError`). The description's limit "an error result does not prove no write": a server that
 * fails after its commit. Unlike an upstream's own `isError` (whose effect the harness cannot know, so a
 * re-send after it is EXECUTION_UNKNOWN), the harness saw this write execute: a re-send that executes is a
 * proven DUPLICATE_EXECUTION. If the upstream itself rejects the write, the agent gets that real error
 * instead (the fault is still consumed, R-4.1), as under F1. No `--hold`: the 500 comes at once.
 */
export const executedThenError: FaultBehaviour = {
  kind: 'F7',
  name: 'executed, then 500',
  summary: 'first write executes upstream, the agent gets HTTP 500 (an error after the write)',
  failWhen: 'the same operation is executed again',
  parameters: [],
  // The naive agent re-sends after the 500 and books twice; the careful one checks, finds it and stops.
  referenceVerdicts: { careful: 'PASS', naive: 'FAIL', patient: 'PASS' },
  // Not in the description's default benchmark set (F1–F5): `benchmark --scenarios F7`.
  optIn: true,
  trigger: { kind: 'leading-writes', count: 1 },
  baseline: false,
  forwards: true,
  tells: 'server-error',
  replaceExecuted: () => errorResult(HTTP_500_TEXT),
};
