/**
 * `BOOKING_STORE=<file>`: the bookings kept in a file, the example's small database. One JSON line per
 * booking — the table, not a log: after every write the whole table is written to a new file beside it,
 * created exclusively (never through a link someone left there), and renamed over the old one, so a reader
 * (`cat bookings.jsonl`, an effects view) always sees a whole table. Read at start, so the bookings outlive
 * a restart; with `BOOKING_IDEMPOTENCY=honour` a stored `idempotencyKey` is a unique key across restarts too.
 * Node 20 ships no SQL engine (`node:sqlite` needs Node 22) and the example takes no dependency for one: a
 * real database is read the same way, by its own client (docs/effects.md).
 */
import { closeSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import type { Booking } from './booking-store.js';

/** The bookings stored in `path`; none when it does not exist. Throws an Error naming the bad line. */
export function loadBookings(path: string): Booking[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new Error(`BOOKING_STORE ${path} cannot be read: ${(error as Error).message}`);
  }
  const bookings: Booking[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch {
      throw new Error(`BOOKING_STORE ${path}: line ${i + 1} is not JSON`);
    }
    const b = row as Partial<Booking>;
    if (typeof row !== 'object' || row === null || typeof b.id !== 'string' || !/^BK-\d+$/.test(b.id))
      throw new Error(`BOOKING_STORE ${path}: line ${i + 1} is no booking (it needs an id BK-…)`);
    bookings.push(row as Booking);
  });
  return bookings;
}

/** Writes the whole table to `path`: a new file beside it, created exclusively, renamed over it. */
export function saveBookings(path: string, bookings: readonly Booking[]): void {
  const temp = `${path}.${process.pid}.tmp`;
  rmSync(temp, { force: true });
  const fd = openSync(temp, 'wx', 0o644);
  try {
    writeSync(fd, bookings.map((b) => `${JSON.stringify(b)}\n`).join(''));
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
}
