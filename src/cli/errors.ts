import { errorMessage } from '../domain/error-message.js';
import { escapeTerminalText } from '../domain/text/terminal-text.js';
import { PROGRAM_NAME } from '../version.js';

/** A bad flag or value: one clear line, exit code 1, never a stack trace. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** A fatal condition of a running command (upstream did not start, report file not writable). */
export class FatalError extends Error {
  override readonly name = 'FatalError';
}

/**
 * Exit codes (documented in docs/commands/proxy.md, "Exit codes", and the README):
 *  0  the command ran (the proxy's exit code is never the verdict; benchmark: self-test passed)
 *  1  invalid arguments, upstream did not start, report file not writable, benchmark self-test failed
 */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;

/**
 * The one line printed for any fatal error. Unknown errors keep their message, never their stack; text
 * from outside in it (an upstream's stderr, a flag value) is escaped for the terminal.
 */
export function formatFatal(error: unknown): string {
  const message = errorMessage(error);
  const firstLine = message.split('\n')[0]?.trim() || 'unknown error';
  return `[${PROGRAM_NAME}] error: ${escapeTerminalText(firstLine)}`;
}
