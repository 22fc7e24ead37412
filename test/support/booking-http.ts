/**
 * The bundled booking server (examples/booking-server) in this test process, on Streamable HTTP at
 * 127.0.0.1: its own MCP server, store and ledger code, so every write it executes is counted by the
 * booking server itself. Each MCP session gets a FRESH store and ledger — one `trial` run opens one
 * session (`--upstream-url`: one new connection per run), so a session is what a fresh upstream process
 * per run is over stdio. `sessions` lists them in the order they were opened.
 */
import { BookingStore } from '../../examples/booking-server/booking-store.js';
import { serveHttp } from '../../examples/booking-server/http-mode.js';
import { InFlight } from '../../examples/booking-server/in-flight.js';
import { Ledger, type LedgerEntry } from '../../examples/booking-server/ledger.js';
import { createBookingServer } from '../../examples/booking-server/mcp-server.js';

/** A ledger kept in memory: the entries the booking server recorded, in order. */
class MemoryLedger extends Ledger {
  readonly entries: LedgerEntry[] = [];
  constructor() {
    super(undefined);
  }
  override record(tool: string, args: Record<string, unknown>, bookingId: string): LedgerEntry {
    const entry = super.record(tool, args, bookingId);
    this.entries.push(entry);
    return entry;
  }
}

export interface BookingSession {
  /** Every write this session's booking server executed. */
  ledger: LedgerEntry[];
}

export interface InProcessBooking {
  /** `http://127.0.0.1:<port>/mcp` */
  url: string;
  sessions: BookingSession[];
  close(): Promise<void>;
}

export async function startInProcessBooking(): Promise<InProcessBooking> {
  const sessions: BookingSession[] = [];
  const endpoint = await serveHttp(0, () => {
    const ledger = new MemoryLedger();
    sessions.push({ ledger: ledger.entries });
    return createBookingServer({ store: new BookingStore(), ledger, writeDelayMs: 0 }, new InFlight());
  });
  return { url: endpoint.url, sessions, close: () => endpoint.close() };
}
