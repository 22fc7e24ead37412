import { errorResult, type FaultBehaviour } from './fault.js';

/**
 * Chaos — any read or write call fails with a generic server error with probability `--error-rate`;
 * the call is not executed. Chaos never produces ghost writes.
 */
export const chaosError: FaultBehaviour = {
  kind: 'chaos',
  name: 'error',
  summary: 'every call fails with probability p with a generic server error, not executed',
  failWhen: 'an operation is executed more than once',
  parameters: [],
  // Calls fail by chance: the benchmark does not run it.
  referenceVerdicts: null,
  trigger: { kind: 'chance' },
  baseline: false,
  forwards: false,
  tells: 'server-error',
  injected: () => errorResult('HTTP 500 Internal Server Error: the server encountered an error.'),
};
