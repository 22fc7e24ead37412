import type { Tool } from '@modelcontextprotocol/sdk/types.js';

/** The tools; `honourKeys` (env `BOOKING_IDEMPOTENCY=honour`): create_booking's description says keys deduplicate. */
export function bookingTools(honourKeys: boolean): Tool[] {
  if (!honourKeys) return IGNORING_KEYS;
  return IGNORING_KEYS.map((tool) =>
    tool.name !== 'create_booking'
      ? tool
      : {
          ...tool,
          description:
            'Books a hotel room and answers the new booking as JSON. A call with an idempotency_key already used ' +
            'books nothing and answers the booking made with it.',
        },
  );
}

/**
 * The four tools of the example hotel, as listed by `tools/list`. They carry NO annotations on purpose:
 * the proxy then classifies them by name (`create_*`, `cancel_*` are writes; `get_*`, `search_*` reads).
 * The schemas are plain JSON Schema (no `$schema`, `pattern`, `format` or `propertyNames`), so every
 * MCP client accepts them; the date format is checked by the handler instead.
 */
const IGNORING_KEYS: Tool[] = [
  {
    name: 'create_booking',
    description:
      'Books a hotel room and answers the new booking as JSON. Every call creates a NEW booking, even with ' +
      'identical arguments and the same idempotency_key: check with search_bookings before retrying.',
    inputSchema: {
      type: 'object',
      properties: {
        guest: { type: 'string', description: 'Full name of the guest.' },
        date: { type: 'string', description: 'Arrival date as YYYY-MM-DD.' },
        room: { type: 'string', description: 'Room type, e.g. "standard" (default) or "suite".' },
        nights: { type: 'integer', minimum: 1, description: 'Number of nights (default 1).' },
        amount: { type: 'number', minimum: 0, description: 'Total price in EUR.' },
        idempotency_key: { type: 'string', description: 'Stored with the booking but NOT used to deduplicate.' },
      },
      required: ['guest', 'date'],
    },
  },
  {
    name: 'search_bookings',
    description:
      'Finds bookings by guest name (case-insensitive, exact name) and/or arrival date, without needing an ' +
      'id. Answers a JSON list; an empty filter lists every booking.',
    inputSchema: {
      type: 'object',
      properties: {
        guest: { type: 'string', description: 'Full name of the guest.' },
        date: { type: 'string', description: 'Arrival date as YYYY-MM-DD.' },
      },
    },
  },
  {
    name: 'get_booking',
    description: 'Answers one booking by its id (e.g. "BK-0001") as JSON.',
    inputSchema: {
      type: 'object',
      properties: { booking_id: { type: 'string', description: 'The booking id, e.g. "BK-0001".' } },
      required: ['booking_id'],
    },
  },
  {
    name: 'cancel_booking',
    description: 'Cancels a confirmed booking by its id and answers the cancelled booking as JSON.',
    inputSchema: {
      type: 'object',
      properties: { booking_id: { type: 'string', description: 'The booking id, e.g. "BK-0001".' } },
      required: ['booking_id'],
    },
  },
];

/** The tools as listed by default (keys ignored). */
export const BOOKING_TOOLS: Tool[] = IGNORING_KEYS;
