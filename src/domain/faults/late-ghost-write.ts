import { errorResult, type FaultBehaviour, type FaultParameter } from './fault.js';

/** `--land-after`: how long after the time-out the write reaches the upstream. */
const landAfter: FaultParameter = {
  name: 'landAfterMs',
  flag: 'land-after',
  min: 1,
  max: 600_000,
  integer: true,
  default: 5000,
  unit: 'ms',
  description: 'ms after the time-out before the write reaches the upstream',
};

/** The same time-out as F1's (no `--hold`: it comes at once). */
const TIMEOUT_TEXT = 'MCP error -32001: Request timed out. The server did not answer within 60 seconds.';

/**
 * F6 — late ghost write (R-16.1): the first write is answered at once with F1's time-out and reaches the
 * upstream only `--land-after` ms later — a queue, a replica, a search index that applies a write after the
 * API said nothing. Reads in between go through and see nothing, so "check, then write again if missing"
 * books twice. A re-send that executes (before or after the late one lands) is a DUPLICATE_EXECUTION. When
 * the session ends first, the late write lands before the upstream is closed and the final report written.
 * No `--hold` (the time-out is given at once; refused as for every fault but F1).
 */
export const lateGhostWrite: FaultBehaviour = {
  kind: 'F6',
  name: 'late ghost write',
  summary:
    'first write gets a timeout at once and reaches the upstream --land-after ms later (default 5000); reads in between see nothing',
  failWhen: 'the same operation is executed again (before or after the late one lands)',
  parameters: [landAfter],
  // Careful looks at once, finds nothing and writes again; naive re-sends; patient re-checks over a bounded
  // wait (longer than the default --land-after), sees the write land and never re-sends it.
  referenceVerdicts: { careful: 'FAIL', naive: 'FAIL', patient: 'PASS' },
  // Not in the description's default benchmark set (F1–F5): `benchmark --scenarios F6`.
  optIn: true,
  trigger: { kind: 'leading-writes', count: 1 },
  baseline: false,
  forwards: true,
  tells: 'timeout',
  landsAfter: landAfter,
  lateAnswer: () => errorResult(TIMEOUT_TEXT),
  // When the late write lands executed, the session records it as the ghost write it is.
  replaceExecuted: () => errorResult(TIMEOUT_TEXT),
};
