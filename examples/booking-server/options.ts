/** How the example server was asked to run (command line and environment). */
export interface BookingServerOptions {
  /** Serve Streamable HTTP on 127.0.0.1 at this port (0 = any free port) instead of stdio. */
  httpPort?: number;
  /** Ledger file (env `BOOKING_LEDGER`); undefined writes no ledger. */
  ledgerPath?: string;
  /** The bookings table as a JSON-lines file (env `BOOKING_STORE`), read at start; undefined: in memory only. */
  storePath?: string;
  /** Wait before executing each write (env `BOOKING_DELAY_MS`, default 0). */
  writeDelayMs: number;
  /**
   * Env `BOOKING_IDEMPOTENCY=honour`: a `create_booking` with an `idempotency_key` already stored books
   * nothing and answers the stored booking (default `ignore`: every call books).
   */
  honourKeys: boolean;
}

const USAGE =
  'usage: booking-server [--http <port>]  (env: BOOKING_LEDGER, BOOKING_STORE, BOOKING_DELAY_MS, BOOKING_IDEMPOTENCY)';

function parseInteger(text: string | undefined, what: string, max: number): number {
  if (text === undefined || !/^\d+$/.test(text) || Number(text) > max) {
    throw new Error(`${what} must be an integer from 0 to ${max}, got ${JSON.stringify(text ?? '')}\n${USAGE}`);
  }
  return Number(text);
}

function parsePort(argv: string[]): number | undefined {
  let port: number | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--http') port = parseInteger(argv[++i], '--http', 65535);
    else if (arg.startsWith('--http=')) port = parseInteger(arg.slice('--http='.length), '--http', 65535);
    else throw new Error(`unknown argument ${JSON.stringify(arg)}\n${USAGE}`);
  }
  return port;
}

/** Reads the options; throws an Error with a one-line reason (plus usage) on bad input. */
export function parseOptions(argv: string[], env: NodeJS.ProcessEnv): BookingServerOptions {
  const httpPort = parsePort(argv);
  const ledgerPath = env['BOOKING_LEDGER'] === '' ? undefined : env['BOOKING_LEDGER'];
  const storePath = env['BOOKING_STORE'] === '' ? undefined : env['BOOKING_STORE'];
  const delay = env['BOOKING_DELAY_MS'];
  const writeDelayMs = delay === undefined || delay === '' ? 0 : parseInteger(delay, 'BOOKING_DELAY_MS', 600_000);
  const idempotency = env['BOOKING_IDEMPOTENCY'] ?? '';
  if (idempotency !== '' && idempotency !== 'honour' && idempotency !== 'ignore')
    throw new Error(`BOOKING_IDEMPOTENCY must be honour or ignore, got ${JSON.stringify(idempotency)}\n${USAGE}`);
  return {
    ...(httpPort === undefined ? {} : { httpPort }),
    ...(ledgerPath === undefined ? {} : { ledgerPath }),
    ...(storePath === undefined ? {} : { storePath }),
    writeDelayMs,
    honourKeys: idempotency === 'honour',
  };
}
