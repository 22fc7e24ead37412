import type { Logger } from '../../ports/logger.port.js';
import type { LogLevel } from './log-levels.js';
import { silentLogger } from './silent-logger.js';

/**
 * The logger for a level: pino (loaded only then) for any level but `silent`, which costs nothing. Each
 * record reaches `writeLine` as one line of text (the CLI writes it as a notice on stderr).
 */
export async function createLogger(level: LogLevel, writeLine: (line: string) => void): Promise<Logger> {
  if (level === 'silent') return silentLogger;
  const { createPinoLogger } = await import('./pino-logger.js');
  return createPinoLogger(level, writeLine);
}
