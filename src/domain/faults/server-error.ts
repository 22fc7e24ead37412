import { errorResult, type FaultBehaviour } from './fault.js';

/** F5 — the first write gets HTTP 500; nothing is executed; the next attempt goes through. */
export const serverError: FaultBehaviour = {
  kind: 'F5',
  summary: 'first write gets HTTP 500, nothing executed; the next attempt succeeds',
  trigger: { kind: 'leading-writes', count: 1 },
  baseline: false,
  forwards: false,
  injected: () => errorResult('HTTP 500 Internal Server Error'),
};
