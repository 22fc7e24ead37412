#!/usr/bin/env node
/**
 * Example upstream: a small, deliberately NON-idempotent hotel booking MCP server. Run it on stdio
 * (default) or with `--http <port>` on Streamable HTTP, put the proxy in front of it and watch the ledger
 * (env `BOOKING_LEDGER`) count every write that really executed. See README.md.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { BookingStore } from './booking-store.js';
import { serveHttp } from './http-mode.js';
import { InFlight } from './in-flight.js';
import { Ledger } from './ledger.js';
import { loadBookings, saveBookings } from './store-file.js';
import { createBookingServer } from './mcp-server.js';
import { parseOptions, type BookingServerOptions } from './options.js';
import type { BookingDeps } from './tool-handlers.js';

function banner(where: string, options: BookingServerOptions): void {
  const ledger = options.ledgerPath ?? 'off';
  const store = options.storePath ?? 'memory';
  process.stderr.write(
    `booking-server: hotel booking example on ${where} (ledger: ${ledger}, store: ${store}, write delay: ${options.writeDelayMs} ms, idempotency keys ${options.honourKeys ? 'honoured' : 'ignored'})\n`,
  );
}

async function runStdio(deps: BookingDeps, options: BookingServerOptions): Promise<void> {
  const inFlight = new InFlight();
  await createBookingServer(deps, inFlight).connect(new StdioServerTransport());
  // The SDK's stdio transport notices neither stdin EOF nor a broken stdout; end cleanly on both.
  // Let running calls answer first: exit after their responses are flushed to stdout.
  const exitWhenFlushed = (): void => void process.stdout.write('', () => process.exit(0));
  const finish = (): void => void inFlight.idle().then(() => setImmediate(exitWhenFlushed));
  process.stdin.once('end', finish).once('close', finish);
  process.stdout.once('error', () => process.exit(0));
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.once(signal, () => process.exit(0));
  banner('stdio', options);
}

async function runHttp(port: number, deps: BookingDeps, options: BookingServerOptions): Promise<void> {
  const inFlight = new InFlight();
  const endpoint = await serveHttp(port, () => createBookingServer(deps, inFlight));
  const stop = (): void => void endpoint.close().finally(() => process.exit(0));
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.once(signal, stop);
  banner(endpoint.url, options);
}

async function main(): Promise<void> {
  let options: BookingServerOptions;
  try {
    options = parseOptions(process.argv.slice(2), process.env);
  } catch (error) {
    process.stderr.write(`booking-server: ${(error as Error).message}\n`);
    process.exit(1);
  }
  const storePath = options.storePath;
  let store = new BookingStore();
  if (storePath !== undefined) {
    try {
      const initial = loadBookings(storePath);
      // Written at once, so the table exists (empty) before the first write: a reader needs no special case.
      saveBookings(storePath, initial);
      store = new BookingStore(initial, (all) => saveBookings(storePath, all));
    } catch (error) {
      process.stderr.write(`booking-server: ${(error as Error).message}\n`);
      process.exit(1);
    }
  }
  const deps: BookingDeps = {
    store,
    ledger: new Ledger(options.ledgerPath),
    writeDelayMs: options.writeDelayMs,
    honourKeys: options.honourKeys,
  };
  if (options.httpPort === undefined) await runStdio(deps, options);
  else await runHttp(options.httpPort, deps, options);
}

main().catch((error: unknown) => {
  process.stderr.write(`booking-server: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
