/**
 * An in-memory booking service behind the `UpstreamSide` port, for the benchmark and tests. Like the
 * bundled example server it is deliberately NOT idempotent: every executed `create_booking` makes a new
 * booking, whatever `idempotency_key` says, so each duplicate write is a real duplicate. It offers a
 * search by content (guest and date, no id needed) and a get by id, so an agent can really verify after
 * a failure. Its ledger records what it executed: the ground truth to compare the harness's count with.
 */
import type { ToolCallRequest, ToolCallResult, ToolDescriptor } from '../../ports/shapes/mcp-shapes.js';
import type { UpstreamCallOptions, UpstreamCallOutcome, UpstreamInfo, UpstreamSide } from '../../ports/upstream-side.port.js';

/** One stored booking, as answered to the agent (JSON). */
export interface SimulatedBooking {
  id: string;
  guest: string;
  date: string;
  room: string;
  nights: number;
  /** Stored only to show it was not used to deduplicate. */
  idempotencyKey: string | null;
}

/** One executed write, in execution order. */
export interface LedgerEntry {
  tool: 'create_booking';
  bookingId: string;
  idempotencyKey: string | null;
}

const text = (value: unknown): ToolCallResult => ({ content: [{ type: 'text', text: JSON.stringify(value) }] });
const failure = (message: string): ToolCallResult => ({ content: [{ type: 'text', text: message }], isError: true });
const stringProperty = (description: string) => ({ type: 'string', description });

/** The three tools, without annotations: the harness classifies them by name like any upstream's. */
export const SIMULATED_TOOLS: readonly ToolDescriptor[] = [
  {
    name: 'create_booking',
    description: 'Books a room. Every call creates a NEW booking, even with the same idempotency_key.',
    inputSchema: {
      type: 'object',
      properties: {
        guest: stringProperty('Full name of the guest.'),
        date: stringProperty('Arrival date as YYYY-MM-DD.'),
        room: stringProperty('Room type (default "standard").'),
        nights: { type: 'integer', minimum: 1, description: 'Number of nights (default 1).' },
        idempotency_key: stringProperty('Stored with the booking but NOT used to deduplicate.'),
      },
      required: ['guest', 'date'],
    },
  },
  {
    name: 'search_bookings',
    description: 'Finds bookings by guest and/or date, without an id. Answers a JSON list.',
    inputSchema: {
      type: 'object',
      properties: { guest: stringProperty('Full name of the guest.'), date: stringProperty('YYYY-MM-DD.') },
    },
  },
  {
    name: 'get_booking',
    description: 'Answers one booking by its id as JSON.',
    inputSchema: {
      type: 'object',
      properties: { booking_id: stringProperty('The booking id, e.g. "BK-0001".') },
      required: ['booking_id'],
    },
  },
];

function argumentsOf(request: ToolCallRequest): Record<string, unknown> {
  const args = request.arguments;
  return typeof args === 'object' && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
}

function optionalString(args: Record<string, unknown>, key: string): string | undefined {
  const value = Object.hasOwn(args, key) ? args[key] : undefined;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The simulated booking service; answers at once (the benchmark runs in virtual time). */
export class SimulatedBackend implements UpstreamSide {
  private readonly bookings = new Map<string, SimulatedBooking>();
  private readonly executed: LedgerEntry[] = [];
  private closed = false;

  /** Every executed write, in order (a copy). */
  get ledger(): LedgerEntry[] {
    return [...this.executed];
  }

  /** How many writes it executed. */
  writesExecuted(): number {
    return this.executed.length;
  }

  /** Nothing to start; answers the server's name. */
  async connect(): Promise<UpstreamInfo> {
    return { serverName: 'simulated-booking-backend', serverVersion: '1.0.0' };
  }

  /** A copy of {@link SIMULATED_TOOLS}. */
  async listTools(): Promise<ToolDescriptor[]> {
    return SIMULATED_TOOLS.map((tool) => structuredClone(tool));
  }

  /**
   * Executes the call at once (so `options.timeoutMs` never applies); an unknown tool is a JSON-RPC
   * error, bad arguments an `isError` result that executes nothing.
   */
  async callTool(request: ToolCallRequest, _options?: UpstreamCallOptions): Promise<UpstreamCallOutcome> {
    if (this.closed) return { kind: 'unavailable', detail: 'the simulated backend was closed' };
    const args = argumentsOf(request);
    switch (request.name) {
      case 'create_booking':
        return { kind: 'result', result: this.create(args) };
      case 'search_bookings':
        return { kind: 'result', result: this.search(args) };
      case 'get_booking':
        return { kind: 'result', result: this.get(args) };
      default:
        return { kind: 'protocol-error', code: -32602, message: `Unknown tool: ${request.name}` };
    }
  }

  /** It never exits on its own. */
  onExit(): void {}

  /** Later calls are answered `unavailable` (not executed). */
  async close(): Promise<void> {
    this.closed = true;
  }

  private create(args: Record<string, unknown>): ToolCallResult {
    const guest = optionalString(args, 'guest');
    const date = optionalString(args, 'date');
    if (guest === undefined || date === undefined) return failure('Invalid arguments: "guest" and "date" are required');
    const nights = Object.hasOwn(args, 'nights') ? args['nights'] : 1;
    if (typeof nights !== 'number' || !Number.isInteger(nights) || nights < 1)
      return failure('Invalid arguments: "nights" must be an integer >= 1');
    const id = `BK-${String(this.executed.length + 1).padStart(4, '0')}`;
    const idempotencyKey = optionalString(args, 'idempotency_key') ?? null;
    const booking: SimulatedBooking = {
      id,
      guest,
      date,
      room: optionalString(args, 'room') ?? 'standard',
      nights,
      idempotencyKey,
    };
    this.bookings.set(id, booking);
    this.executed.push({ tool: 'create_booking', bookingId: id, idempotencyKey });
    return text(booking);
  }

  private search(args: Record<string, unknown>): ToolCallResult {
    const guest = optionalString(args, 'guest')?.trim().toLowerCase();
    const date = optionalString(args, 'date');
    const found = [...this.bookings.values()].filter(
      (b) => (guest === undefined || b.guest.trim().toLowerCase() === guest) && (date === undefined || b.date === date),
    );
    return text(found);
  }

  private get(args: Record<string, unknown>): ToolCallResult {
    const id = optionalString(args, 'booking_id');
    if (id === undefined) return failure('Invalid arguments: "booking_id" is required');
    const booking = this.bookings.get(id);
    return booking === undefined ? failure(`Booking ${id} not found`) : text(booking);
  }
}
