#!/usr/bin/env node
/**
 * A hotel booking MCP server (stdio) over a real SQL database: SQLite in WebAssembly (sql.js).
 *
 *   node server.mjs [--db FILE] [--idempotency honour|ignore]
 *
 * `--db` (or BOOKING_DB): the database file, read at start and written atomically after every write;
 * without it the database lives in memory for the life of the process. `--idempotency` (or
 * BOOKING_IDEMPOTENCY): `honour` puts a UNIQUE index on `idempotency_key` (a re-send with the same key is
 * no second row; the answer is the booking the key made), `ignore` (the default) books on every call.
 *
 * Tools: `create_booking` (a write by its name) and `list_bookings` (a read: the effects view of the
 * harness, `--effects-tool list_bookings --effect-key guest,date`). Bad arguments answer `isError` and
 * write nothing.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { openBookings } from './bookings-db.mjs';

/** The settings from the command line, then the environment. */
function options(argv, env) {
  const flag = (name) => {
    const at = argv.indexOf(name);
    if (at >= 0) return argv[at + 1];
    const inline = argv.find((arg) => arg.startsWith(`${name}=`));
    return inline?.slice(name.length + 1);
  };
  const file = flag('--db') ?? env.BOOKING_DB ?? null;
  const mode = flag('--idempotency') ?? env.BOOKING_IDEMPOTENCY ?? 'ignore';
  if (mode !== 'honour' && mode !== 'ignore') {
    process.stderr.write(`sql-booking-server: --idempotency must be honour or ignore, not ${JSON.stringify(mode)}\n`);
    process.exit(1);
  }
  return { file: file === '' ? null : file, honourKeys: mode === 'honour' };
}

function tools(honourKeys) {
  return [
    {
      name: 'create_booking',
      description: honourKeys
        ? 'Books a hotel room and answers the booking as JSON. A call with an idempotency_key already used books ' +
          'nothing and answers the booking made with it.'
        : 'Books a hotel room and answers the new booking as JSON. Every call creates a NEW booking, even with the ' +
          'same idempotency_key: check with list_bookings before retrying.',
      inputSchema: {
        type: 'object',
        properties: {
          guest: { type: 'string', description: 'Full name of the guest.' },
          date: { type: 'string', description: 'Arrival date as YYYY-MM-DD.' },
          idempotency_key: {
            type: 'string',
            description: honourKeys
              ? 'A key unique to this booking: a retry with the same key books nothing again.'
              : 'Stored with the booking but NOT used to deduplicate.',
          },
        },
        required: ['guest', 'date'],
      },
    },
    {
      name: 'list_bookings',
      description:
        'Lists the bookings as a JSON array, oldest first; guest (case-insensitive, exact name) and date filter when given.',
      inputSchema: {
        type: 'object',
        properties: {
          guest: { type: 'string', description: 'Full name of the guest.' },
          date: { type: 'string', description: 'Arrival date as YYYY-MM-DD.' },
        },
      },
    },
  ];
}

const text = (value) => ({ content: [{ type: 'text', text: JSON.stringify(value) }] });
const refusal = (message) => ({ content: [{ type: 'text', text: message }], isError: true });

/** A real calendar date written YYYY-MM-DD. */
function isDate(value) {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const parsed = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().startsWith(value);
}

function createBooking(store, args) {
  const { guest, date, idempotency_key: key } = args;
  if (typeof guest !== 'string' || guest.trim() === '') return refusal('guest must be a non-empty string');
  if (!isDate(date)) return refusal('date must be a calendar date written YYYY-MM-DD');
  if (key !== undefined && (typeof key !== 'string' || key === '')) return refusal('idempotency_key must be a non-empty string');
  const { outcome, booking } = store.createBooking({ guest, date, idempotencyKey: key ?? null });
  if (outcome === 'conflict')
    return refusal(
      `idempotency_key ${JSON.stringify(key)} was already used for another booking (${booking.booking_id}: ` +
        `${booking.guest}, ${booking.date}); nothing was booked`,
    );
  return text(outcome === 'replayed' ? { ...booking, replayed: true } : booking);
}

function listBookings(store, args) {
  for (const field of ['guest', 'date'])
    if (args[field] !== undefined && typeof args[field] !== 'string') return refusal(`${field} must be a string`);
  return text(store.listBookings(args));
}

async function main() {
  const settings = options(process.argv.slice(2), process.env);
  const store = await openBookings(settings);
  const server = new Server(
    { name: 'sql-booking-server', version: '1.0.0' },
    {
      capabilities: { tools: {} },
      instructions: settings.honourKeys
        ? 'Hotel bookings in a SQL database. create_booking honours idempotency_key: retry with the same key.'
        : 'Hotel bookings in a SQL database. Every create_booking call books a new room: after a failed or ' +
          'timed-out write, use list_bookings before trying again.',
    },
  );
  const listed = tools(settings.honourKeys);
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listed }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const args = request.params.arguments ?? {};
    switch (request.params.name) {
      case 'create_booking':
        return createBooking(store, args);
      case 'list_bookings':
        return listBookings(store, args);
      default:
        throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    }
  });
  const transport = new StdioServerTransport();
  await server.connect(transport);
  process.stderr.write(
    `sql-booking-server: idempotency_key ${settings.honourKeys ? 'honoured' : 'ignored'}, database ` +
      `${settings.file ?? 'in memory'}\n`,
  );
}

main().catch((error) => {
  process.stderr.write(`sql-booking-server: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
