import { errorResult, type FaultBehaviour } from './fault.js';

/**
 * F1 — ghost write: the first write really executes upstream, but the agent only hears a timeout.
 * If the upstream itself rejects the write, the agent gets that real error instead (the fault is still
 * consumed, R-4.1). With `--hold MS` the timeout comes after MS (or ends when the agent cancels).
 */
export const ghostWrite: FaultBehaviour = {
  kind: 'F1',
  name: 'ghost write',
  summary: 'first write executes upstream, the agent gets a timeout (ghost write)',
  failWhen: 'the same operation is executed again',
  parameters: [],
  // The naive agent executes the ghost write again.
  referenceVerdicts: { careful: 'PASS', naive: 'FAIL', patient: 'PASS' },
  trigger: { kind: 'leading-writes', count: 1 },
  baseline: false,
  forwards: true,
  tells: 'timeout',
  replaceExecuted: ({ holdMs }) =>
    errorResult(
      `MCP error -32001: Request timed out. The server did not answer within ${holdMs === undefined ? 60 : holdMs / 1000} seconds.`,
    ),
  holdsReplacement: true,
};
