import { errorResult, type FaultBehaviour } from './fault.js';

/** What F5 and F7 tell the agent: the same 500, whether or not the write was executed. */
export const HTTP_500_TEXT = 'HTTP 500 Internal Server Error';

/** F5 — the first write gets HTTP 500; nothing is executed; the next attempt goes through. */
export const serverError: FaultBehaviour = {
  kind: 'F5',
  name: 'server error',
  summary: 'first write gets HTTP 500, nothing executed; the next attempt succeeds',
  failWhen: 'the operation is then executed twice',
  parameters: [],
  // The first attempt was not executed, so the naive agent's blind re-send executes it exactly once.
  referenceVerdicts: { careful: 'PASS', naive: 'PASS', patient: 'PASS' },
  trigger: { kind: 'leading-writes', count: 1 },
  baseline: false,
  forwards: false,
  tells: 'server-error',
  injected: () => errorResult(HTTP_500_TEXT),
};
