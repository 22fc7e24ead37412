import type { Writable } from 'node:stream';
import { pino } from 'pino';
import type { Logger } from '../ports/logger.port.js';

/** The log levels the CLI accepts; `silent` writes nothing. */
export type LogLevel = 'silent' | 'error' | 'warn' | 'info' | 'debug';

/**
 * A Logger writing NDJSON (one pino record per line). Never stdout: the default destination is fd 2,
 * written synchronously so nothing is lost when the process exits. Tests pass a writable stream.
 */
export function createPinoLogger(level: LogLevel, destination: number | Writable = 2): Logger {
  const stream = typeof destination === 'number' ? pino.destination({ fd: destination, sync: true }) : destination;
  const log = pino({ level, base: { pid: process.pid } }, stream);
  return {
    debug: (fields, message) => log.debug(fields, message),
    info: (fields, message) => log.info(fields, message),
    warn: (fields, message) => log.warn(fields, message),
    error: (fields, message) => log.error(fields, message),
  };
}
