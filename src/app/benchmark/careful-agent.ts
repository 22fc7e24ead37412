/**
 * The careful reference agent, following the GHOST_WRITE patch to the letter: a write with an
 * idempotency key; after any failure it honours a retry_after, then checks with a read that finds the
 * booking WITHOUT an id (search by guest and date) and confirms a hit by id; found → stop; really
 * missing → retry ONCE with the same key; cannot check → stop and report the outcome as unknown.
 */
import type { ToolCallResult } from '../../ports/shapes/mcp-shapes.js';
import type { AgentContext, BookingRequest } from './agent-context.js';

/** What a check after a failed write found (the patient agent checks the same way). */
export type Check = 'found' | 'missing' | 'unknown';

/** The text of the first text block of a result ('' when there is none). */
function textOf(result: ToolCallResult): string {
  for (const block of result.content ?? []) {
    if (typeof block === 'object' && block !== null && 'text' in block && typeof block.text === 'string') return block.text;
  }
  return '';
}

/** The result's text parsed as JSON, or undefined when it is not JSON (truncated, plain text). */
function jsonOf(result: ToolCallResult): unknown {
  try {
    return JSON.parse(textOf(result)) as unknown;
  } catch {
    return undefined;
  }
}

/** The seconds of a `retry_after` announced in a failure, or null. */
export function retryAfterSeconds(result: ToolCallResult): number | null {
  const match = /retry_after"?\s*:\s*(\d+)/.exec(textOf(result));
  return match === null ? null : Number(match[1]);
}

function sameBooking(value: unknown, booking: BookingRequest): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return record['guest'] === booking.guest && record['date'] === booking.date && typeof record['id'] === 'string';
}

/** Searches by guest and date, then confirms the first hit by its id. */
export async function checkBooked(context: AgentContext): Promise<Check> {
  const { guest, date } = context.booking;
  const search = await context.call('search_bookings', { guest, date });
  const hits = jsonOf(search);
  if (search.isError === true || !Array.isArray(hits)) return 'unknown';
  const hit: unknown = hits.find((candidate) => sameBooking(candidate, context.booking));
  if (hit === undefined) return 'missing';
  const confirmed = await context.call('get_booking', { booking_id: (hit as { id: string }).id });
  if (confirmed.isError === true) return 'unknown';
  return sameBooking(jsonOf(confirmed), context.booking) ? 'found' : 'missing';
}

/** Plays one careful run. */
export async function carefulRun(context: AgentContext): Promise<void> {
  const args = { ...context.booking, idempotency_key: context.key };
  const first = await context.call('create_booking', args);
  if (first.isError !== true) return;
  const retryAfter = retryAfterSeconds(first);
  if (retryAfter !== null) await context.wait(retryAfter * 1000);
  if ((await checkBooked(context)) !== 'missing') return;
  await context.call('create_booking', args);
}
