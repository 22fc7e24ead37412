import { appendFileSync } from 'node:fs';

/** One executed write, as one JSON line of the ledger file. */
export interface LedgerEntry {
  seq: number;
  tool: string;
  arguments: Record<string, unknown>;
  bookingId: string;
  /** `BOOKING_IDEMPOTENCY=honour`: the call executed but booked nothing (its key was stored already). */
  deduplicated?: true;
  pid: number;
}

/**
 * The ground truth of what this server executed: one JSON line per executed write, appended
 * synchronously before the answer is sent, so a test (or a curious user) can count real executions even
 * when the agent never saw the answer. Without a file path it only counts.
 */
export class Ledger {
  private seq = 0;

  /** @param filePath the file to append to (env `BOOKING_LEDGER`); undefined disables writing. */
  constructor(private readonly filePath: string | undefined) {}

  /** Appends one executed write and answers the entry written. */
  record(tool: string, args: Record<string, unknown>, bookingId: string, deduplicated = false): LedgerEntry {
    const entry: LedgerEntry = {
      seq: ++this.seq,
      tool,
      arguments: args,
      bookingId,
      ...(deduplicated ? { deduplicated: true as const } : {}),
      pid: process.pid,
    };
    if (this.filePath !== undefined) appendFileSync(this.filePath, `${JSON.stringify(entry)}\n`);
    return entry;
  }
}
