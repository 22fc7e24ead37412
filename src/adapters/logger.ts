import type { Writable } from 'node:stream';
import type { Logger } from '../ports/logger.port.js';
import type { LogLevel } from './pino-logger.js';
import { silentLogger } from './silent-logger.js';

/** The logger for a level: pino (loaded only then) for any level but `silent`, which costs nothing. */
export async function createLogger(level: LogLevel, destination: number | Writable = 2): Promise<Logger> {
  if (level === 'silent') return silentLogger;
  const { createPinoLogger } = await import('./pino-logger.js');
  return createPinoLogger(level, destination);
}
