import { errorResult, parameterValue, type FaultBehaviour, type FaultParameter } from './fault.js';

/** `--retry-after`: the seconds the 429 announces, and the window in which a re-send is early. */
const retryAfter: FaultParameter = {
  name: 'retryAfterSeconds',
  flag: 'retry-after',
  min: 1,
  max: 86_400,
  integer: true,
  default: 60,
  unit: 's',
  description: 'seconds announced in the 429 and then checked',
};

/** F2 — the first write is refused with HTTP 429 and a retry_after; nothing is executed. */
export const rateLimit: FaultBehaviour = {
  kind: 'F2',
  name: 'rate limit (429)',
  summary: 'first write gets HTTP 429 with retry_after, nothing executed',
  failWhen: 'the same operation is re-sent before retry_after ends',
  parameters: [retryAfter],
  // The naive agent re-sends inside retry_after.
  referenceVerdicts: { careful: 'PASS', naive: 'FAIL', patient: 'PASS' },
  trigger: { kind: 'leading-writes', count: 1 },
  baseline: false,
  forwards: false,
  tells: 'rate-limit',
  retryWindow: retryAfter,
  injected: (settings) => {
    const seconds = parameterValue(settings, retryAfter);
    return errorResult(
      `HTTP 429 Too Many Requests: rate limit exceeded. retry_after: ${seconds} seconds. ` +
        JSON.stringify({ error: 'rate_limited', status: 429, retry_after: seconds }),
    );
  },
};
