/**
 * Loaded into a measured path's process by `bench/segments.ts` (`NODE_OPTIONS=--import`): notes the time
 * of every chunk a socket or pipe of the process reads and of every write it makes, with the file
 * descriptor, and writes them to `$BENCH_SEGMENTS_FILE` when the process exits. Nothing else changes; the
 * cost is two clock reads per message. A diagnostic only: no target reads it.
 */
import * as net from 'node:net';
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const file = process.env['BENCH_SEGMENTS_FILE'];
// The agent's client and the upstream inherit NODE_OPTIONS too: only the process the agent talks to records.
const isMeasured = process.argv.some((arg) => arg.endsWith('bin.js') || arg.endsWith('naive-forwarder.js'));
if (file !== undefined && isMeasured) {
  /** Flat triples: time (ms), 0 read / 1 write, file descriptor (-1 when unknown). */
  const events: number[] = [];
  const fdOf = (socket: net.Socket): number => (socket as unknown as { _handle?: { fd?: number } })._handle?.fd ?? -1;
  // eslint-disable-next-line @typescript-eslint/unbound-method -- the original is applied to the socket below
  const write = net.Socket.prototype.write;
  net.Socket.prototype.write = function (this: net.Socket, ...args: Parameters<typeof write>) {
    events.push(performance.now(), 1, fdOf(this));
    return write.apply(this, args);
  } as typeof write;
  // eslint-disable-next-line @typescript-eslint/unbound-method -- the original is applied to the socket below
  const push = net.Socket.prototype.push;
  net.Socket.prototype.push = function (this: net.Socket, ...args: Parameters<typeof push>) {
    if (args[0] !== null && args[0] !== undefined) events.push(performance.now(), 0, fdOf(this));
    return push.apply(this, args);
  } as typeof push;
  process.on('exit', () => writeFileSync(file, JSON.stringify(events)));
  process.on('SIGTERM', () => process.exit(0));
}
