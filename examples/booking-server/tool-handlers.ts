import { setTimeout as sleep } from 'node:timers/promises';
import { ErrorCode, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ArgumentError, readDate, readNumber, readString } from './arguments.js';
import type { BookingStore } from './booking-store.js';
import type { Ledger } from './ledger.js';

/** What the tool handlers work on; one instance is shared by every session. */
export interface BookingDeps {
  store: BookingStore;
  ledger: Ledger;
  /** Wait before executing each write (env `BOOKING_DELAY_MS`), to provoke client timeouts. */
  writeDelayMs: number;
  /** Env `BOOKING_IDEMPOTENCY=honour`: a stored idempotency key books nothing again (absent: ignored). */
  honourKeys?: boolean;
}

/** A JSON-RPC error -32602 for an unknown tool (a plain message: `McpError` would prefix "MCP error"). */
export class ToolNotFoundError extends Error {
  /** The JSON-RPC error code the SDK `Server` sends. */
  readonly code = ErrorCode.InvalidParams;

  constructor(name: string) {
    super(`Unknown tool: ${name}`);
  }
}

type Handler = (args: Record<string, unknown>, deps: BookingDeps) => Promise<CallToolResult>;

const json = (value: unknown): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(value, null, 2) }],
});
const failure = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true });

async function createBooking(args: Record<string, unknown>, deps: BookingDeps): Promise<CallToolResult> {
  const input = {
    guest: readString(args, 'guest', true),
    date: readDate(args, 'date', true) ?? '',
    room: readString(args, 'room'),
    nights: readNumber(args, 'nights', { integer: true, min: 1 }),
    amount: readNumber(args, 'amount', { integer: false, min: 0 }),
    idempotencyKey: readString(args, 'idempotency_key'),
  };
  await sleep(deps.writeDelayMs);
  const stored =
    deps.honourKeys === true && input.idempotencyKey !== undefined ? deps.store.findByKey(input.idempotencyKey) : undefined;
  if (stored !== undefined) {
    deps.ledger.record('create_booking', args, stored.id, true);
    return json(stored);
  }
  const booking = deps.store.create(input);
  deps.ledger.record('create_booking', args, booking.id);
  return json(booking);
}

async function searchBookings(args: Record<string, unknown>, deps: BookingDeps): Promise<CallToolResult> {
  const query = { guest: readString(args, 'guest'), date: readDate(args, 'date', false) };
  return json(deps.store.search(query));
}

async function getBooking(args: Record<string, unknown>, deps: BookingDeps): Promise<CallToolResult> {
  const id = readString(args, 'booking_id', true);
  const booking = deps.store.get(id);
  return booking === undefined ? failure(`Booking ${id} not found`) : json(booking);
}

async function cancelBooking(args: Record<string, unknown>, deps: BookingDeps): Promise<CallToolResult> {
  const id = readString(args, 'booking_id', true);
  await sleep(deps.writeDelayMs);
  const result = deps.store.cancel(id);
  if (result === 'not-found') return failure(`Booking ${id} not found`);
  if (result === 'already-cancelled') return failure(`Booking ${id} is already cancelled`);
  deps.ledger.record('cancel_booking', args, id);
  return json(result);
}

const HANDLERS: Record<string, Handler> = {
  create_booking: createBooking,
  search_bookings: searchBookings,
  get_booking: getBooking,
  cancel_booking: cancelBooking,
};

/**
 * Runs one `tools/call`. Bad arguments answer an `isError` result (nothing executed); an unknown tool is
 * a JSON-RPC error -32602, as the MCP specification asks for protocol errors.
 */
export async function callBookingTool(name: string, args: Record<string, unknown>, deps: BookingDeps): Promise<CallToolResult> {
  const handler = Object.hasOwn(HANDLERS, name) ? HANDLERS[name] : undefined;
  if (handler === undefined) throw new ToolNotFoundError(name);
  try {
    return await handler(args, deps);
  } catch (error) {
    if (error instanceof ArgumentError) return failure(`Invalid arguments for ${name}: ${error.message}`);
    throw error;
  }
}
