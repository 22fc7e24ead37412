import { pino } from 'pino';
import type { Logger } from '../../ports/logger.port.js';
import type { LogLevel } from './log-levels.js';

/** pino's numeric levels by name, as this project uses them. */
const LEVEL_NAMES: Readonly<Record<number, string>> = {
  10: 'trace',
  20: 'debug',
  30: 'info',
  40: 'warn',
  50: 'error',
  60: 'fatal',
};

/**
 * One pino record (a JSON line) as the text of one operator line: `info: agent session ended (kind:
 * disconnected, detail: agent closed its input)`. The level's name, the message, then every field but
 * pino's own (`level`, `time`, `pid`), strings as they are, other values as JSON. Escaping for the
 * terminal (a field may carry an upstream's bytes, a line feed included) is the writer's.
 */
export function recordText(json: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.trimEnd();
  }
  const { level, time: _time, pid: _pid, msg, ...fields } = record;
  const name = typeof level === 'number' ? (LEVEL_NAMES[level] ?? `level ${level}`) : 'log';
  const details = Object.entries(fields).map(
    ([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`,
  );
  return `${name}: ${typeof msg === 'string' ? msg : JSON.stringify(msg ?? '')}${details.length > 0 ? ` (${details.join(', ')})` : ''}`;
}

/**
 * A pino Logger whose records reach `writeLine` one at a time, synchronously (nothing is lost when the
 * process exits), as text lines ({@link recordText}): stderr carries one format, plain lines, whatever the
 * level (docs/logging.md). Never stdout: the CLI writes the lines as notices on stderr.
 */
export function createPinoLogger(level: LogLevel, writeLine: (line: string) => void): Logger {
  const log = pino({ level, base: null, timestamp: false }, { write: (json: string) => writeLine(recordText(json)) });
  return {
    debug: (fields, message) => log.debug(fields, message),
    info: (fields, message) => log.info(fields, message),
    warn: (fields, message) => log.warn(fields, message),
    error: (fields, message) => log.error(fields, message),
  };
}
