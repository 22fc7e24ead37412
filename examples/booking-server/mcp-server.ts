import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { InFlight } from './in-flight.js';
import { bookingTools } from './tool-definitions.js';
import { callBookingTool, type BookingDeps } from './tool-handlers.js';

/** The `serverInfo` this example answers in `initialize`. */
export const SERVER_INFO = { name: 'booking-server', version: '1.0.0' } as const;

const INSTRUCTIONS =
  'Example hotel booking backend for testing agents. Bookings are NOT deduplicated: every create_booking ' +
  'call books a new room. After a failed or timed-out write, use search_bookings before trying again.';
const HONOURING_INSTRUCTIONS =
  'Example hotel booking backend for testing agents. create_booking honours idempotency_key: a repeated ' +
  'key books nothing again. After a failed or timed-out write, retry with the same key or use search_bookings.';

/**
 * One MCP server session (the low-level SDK `Server`, so the tools keep exactly the JSON schemas above).
 * Every session shares `deps`, so in HTTP mode all clients see the same bookings and ledger.
 */
export function createBookingServer(deps: BookingDeps, inFlight: InFlight): Server {
  const honour = deps.honourKeys === true;
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: {} },
    instructions: honour ? HONOURING_INSTRUCTIONS : INSTRUCTIONS,
  });
  const tools = bookingTools(honour);
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, (request) =>
    inFlight.track(callBookingTool(request.params.name, request.params.arguments ?? {}, deps)),
  );
  return server;
}
