/**
 * The patient reference agent (R-16.2): what the LATE_WRITE patch asks for. A write with an idempotency
 * key; a refusal that names its `retry_after` (nothing was done: F2's 429) is honoured as the careful agent
 * does — wait, check, and re-send once with the same key only if the booking is really missing. Any other
 * failure is uncertain (a time-out, a 500, an unreadable answer): it checks with the same read as the
 * careful agent and, while nothing is found, re-checks over a bounded wait ({@link PATIENT_RECHECK_WAITS_MS});
 * it never re-sends an uncertain write. Still missing at the end: it stops and leaves the outcome unknown.
 * Against a write that lands late (F6) only this agent passes; everywhere else its verdict is the careful one's.
 */
import type { AgentContext } from './agent-context.js';
import { checkBooked, retryAfterSeconds } from './careful-agent.js';

/**
 * The waits before each re-check, in ms: 2, 4, 8 and 16 s, 30 s in all — past F6's default `--land-after`
 * (5 s), well within the minute a user waits for an answer.
 */
export const PATIENT_RECHECK_WAITS_MS: readonly number[] = [2000, 4000, 8000, 16_000];

/** Plays one patient run. */
export async function patientRun(context: AgentContext): Promise<void> {
  const args = { ...context.booking, idempotency_key: context.key };
  const first = await context.call('create_booking', args);
  if (first.isError !== true) return;
  const retryAfter = retryAfterSeconds(first);
  if (retryAfter !== null) {
    // A refusal: the server says it did nothing and when to come back.
    await context.wait(retryAfter * 1000);
    if ((await checkBooked(context)) === 'missing') await context.call('create_booking', args);
    return;
  }
  let check = await checkBooked(context);
  for (const waitMs of PATIENT_RECHECK_WAITS_MS) {
    if (check !== 'missing') return;
    await context.wait(waitMs);
    check = await checkBooked(context);
  }
}
