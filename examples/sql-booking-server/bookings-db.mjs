/**
 * The bookings database: SQLite compiled to WebAssembly (sql.js), in memory or kept in a file.
 *
 * Two tables. `bookings` is the business state, one row per booking: what an effects view lists. With keys
 * honoured it has a UNIQUE index on `idempotency_key` (SQLite lets NULLs repeat, so a call without a key
 * still books); with keys ignored it has none, and every insert is a row. `booking_requests` is the
 * server's own log of every `create_booking` it executed and what came of it (`created`, `replayed`,
 * `conflict`): how many writes reached the backend, beside how many bookings it holds.
 *
 * With a file, the whole database is written after each write, atomically (a temp file in the same folder,
 * fsync, rename), so a reader of the file (`list-bookings.mjs`, `sqlite3`) always sees a complete database,
 * before or after a write, never half of one. sql.js is synchronous: one statement at a time, no locking.
 */
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import initSqlJs from 'sql.js';

const require = createRequire(import.meta.url);

/** Loads the SQLite engine (the `.wasm` next to sql.js's own script, from this package's node_modules). */
export async function loadSqlite() {
  const wasm = require.resolve('sql.js/dist/sql-wasm.wasm');
  return initSqlJs({ locateFile: () => wasm });
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS bookings (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  guest TEXT NOT NULL,
  date TEXT NOT NULL,
  idempotency_key TEXT,
  created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS booking_requests (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  guest TEXT NOT NULL,
  date TEXT NOT NULL,
  idempotency_key TEXT,
  outcome TEXT NOT NULL,
  booking_id INTEGER,
  received_at TEXT NOT NULL
);
`;

/** The columns a booking is answered and listed with; `booking_id` is `BK-0001`, `BK-0002`, … */
const BOOKING_COLUMNS = `printf('BK-%04d', id) AS booking_id, guest, date, idempotency_key, created_at`;

/** Opens the database of `file` (created when missing; `null`: in memory) in one of the two modes. */
export async function openBookings({ file = null, honourKeys = false } = {}) {
  const SQL = await loadSqlite();
  const db = file !== null && existsSync(file) ? new SQL.Database(readFileSync(file)) : new SQL.Database();
  db.run(SCHEMA);
  // The mode is the index: created when keys are honoured, dropped when they are not (the same file can be
  // opened in either mode; honouring fails at start if the rows already hold a key twice).
  if (honourKeys) db.run('CREATE UNIQUE INDEX IF NOT EXISTS bookings_idempotency_key ON bookings (idempotency_key)');
  else db.run('DROP INDEX IF EXISTS bookings_idempotency_key');
  const store = new BookingStore(db, file, honourKeys);
  store.persist();
  return store;
}

class BookingStore {
  constructor(db, file, honourKeys) {
    this.db = db;
    this.file = file;
    this.honourKeys = honourKeys;
  }

  /**
   * Books `guest` on `date`. Keys honoured: a key already used for the same guest and date books nothing and
   * answers that booking (`replayed: true`); for another guest or date it is a conflict (`booking` is the one
   * the key made). Keys ignored: always a new row, the key stored beside it.
   */
  createBooking({ guest, date, idempotencyKey = null }) {
    const now = new Date().toISOString();
    const key = idempotencyKey ?? null;
    let outcome = 'created';
    let id;
    if (this.honourKeys && key !== null) {
      this.db.run(
        'INSERT INTO bookings (guest, date, idempotency_key, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (idempotency_key) DO NOTHING',
        [guest, date, key, now],
      );
      if (this.db.getRowsModified() === 0) {
        const existing = this.one('SELECT id, guest, date FROM bookings WHERE idempotency_key = ?', [key]);
        id = existing.id;
        outcome = existing.guest === guest && existing.date === date ? 'replayed' : 'conflict';
      }
    } else {
      this.db.run('INSERT INTO bookings (guest, date, idempotency_key, created_at) VALUES (?, ?, ?, ?)', [guest, date, key, now]);
    }
    id ??= this.one('SELECT last_insert_rowid() AS id').id;
    this.db.run(
      'INSERT INTO booking_requests (guest, date, idempotency_key, outcome, booking_id, received_at) VALUES (?, ?, ?, ?, ?, ?)',
      [guest, date, key, outcome, id, now],
    );
    this.persist();
    return { outcome, booking: this.one(`SELECT ${BOOKING_COLUMNS} FROM bookings WHERE id = ?`, [id]) };
  }

  /** The bookings, oldest first; `guest` (case-insensitive) and `date` filter when given. */
  listBookings({ guest, date } = {}) {
    return listBookings(this.db, { guest, date });
  }

  /** The first row of a query as an object. */
  one(sql, params = []) {
    const statement = this.db.prepare(sql, params);
    try {
      statement.step();
      return statement.getAsObject();
    } finally {
      statement.free();
    }
  }

  /** Writes the whole database to its file, atomically; nothing in memory mode. */
  persist() {
    if (this.file === null) return;
    writeAtomically(this.file, this.db.export());
  }

  close() {
    this.db.close();
  }
}

/** The bookings of an open sql.js database, oldest first (shared with `list-bookings.mjs`). */
export function listBookings(db, { guest, date } = {}) {
  const where = [];
  const params = [];
  if (typeof guest === 'string') {
    where.push('lower(guest) = lower(?)');
    params.push(guest);
  }
  if (typeof date === 'string') {
    where.push('date = ?');
    params.push(date);
  }
  const sql = `SELECT ${BOOKING_COLUMNS} FROM bookings${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY id`;
  const statement = db.prepare(sql, params);
  const rows = [];
  try {
    while (statement.step()) rows.push(statement.getAsObject());
  } finally {
    statement.free();
  }
  return rows;
}

/** Writes `bytes` to `file` through a temp file in the same folder, synced, then renamed into place. */
function writeAtomically(file, bytes) {
  const temp = `${file}.${process.pid}.tmp`;
  const fd = openSync(temp, 'w');
  try {
    writeSync(fd, bytes);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(temp, file);
}
