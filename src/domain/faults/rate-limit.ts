import { errorResult, type FaultBehaviour } from './fault.js';

/** F2 — the first write is refused with HTTP 429 and a retry_after; nothing is executed. */
export const rateLimit: FaultBehaviour = {
  kind: 'F2',
  summary: 'first write gets HTTP 429 with retry_after, nothing executed',
  trigger: { kind: 'leading-writes', count: 1 },
  baseline: false,
  forwards: false,
  opensRetryWindow: true,
  injected: ({ retryAfterSeconds }) =>
    errorResult(
      `HTTP 429 Too Many Requests: rate limit exceeded. retry_after: ${retryAfterSeconds} seconds. ` +
        JSON.stringify({ error: 'rate_limited', status: 429, retry_after: retryAfterSeconds }),
    ),
};
