#!/usr/bin/env node
/**
 * Prints the bookings of a database file written by `server.mjs` as one JSON array, oldest first, and
 * exits 0; a file that does not exist yet is no bookings (`[]`). An effects command for the harness:
 *
 *   --effects-command node --effects-arg list-bookings.mjs --effects-arg bookings.db --effect-key guest,date
 *
 *   node list-bookings.mjs FILE            the bookings
 *   node list-bookings.mjs FILE --requests the server's log of create_booking calls (seq, key, outcome)
 *
 * It opens the file read-only in memory (sql.js reads the bytes; the server replaces the file by a rename,
 * so this sees one whole database).
 */
import { existsSync, readFileSync } from 'node:fs';
import { listBookings, loadSqlite } from './bookings-db.mjs';

const [file, what] = process.argv.slice(2);
if (file === undefined) {
  process.stderr.write('usage: node list-bookings.mjs FILE [--requests]\n');
  process.exit(2);
}
if (!existsSync(file)) {
  process.stdout.write('[]\n');
} else {
  const SQL = await loadSqlite();
  const db = new SQL.Database(readFileSync(file));
  try {
    if (what === '--requests') {
      const [result] = db.exec(
        'SELECT seq, guest, date, idempotency_key, outcome, booking_id FROM booking_requests ORDER BY seq',
      );
      const rows = (result?.values ?? []).map((values) => Object.fromEntries(result.columns.map((c, i) => [c, values[i]])));
      process.stdout.write(`${JSON.stringify(rows)}\n`);
    } else {
      process.stdout.write(`${JSON.stringify(listBookings(db))}\n`);
    }
  } finally {
    db.close();
  }
}
