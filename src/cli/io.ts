import type { Readable, Writable } from 'node:stream';
import { escapeTerminalText } from '../domain/text/terminal-text.js';
import { PROGRAM_NAME } from '../version.js';
import type { FlagValues } from './argv.js';

/** Everything the CLI touches of its process, injected so it can run in-process in tests. */
export interface CliIo {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  env: Record<string, string | undefined>;
  cwd: string;
  /** Registers a handler for SIGINT/SIGTERM/SIGHUP; returns a function that removes it. */
  onSignal(handler: (signal: string) => void): () => void;
}

/** The real process as a CliIo. */
export function processIo(): CliIo {
  return {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    onSignal(handler) {
      const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
      const listener = (signal: string) => handler(signal);
      for (const s of signals) process.on(s, listener);
      return () => {
        for (const s of signals) process.off(s, listener);
      };
    },
  };
}

/** What each command definition receives: the process IO and the raw flag values of the command line. */
export interface CommandContext {
  io: CliIo;
  /** Raw values by flag name, filled in before the command runs (cac's own parse changes values). */
  values: FlagValues;
}

/**
 * One line for the operator on `stream`, with the program prefix. The whole line is escaped for the
 * terminal (see `src/domain/text/terminal-text.ts`): the proxy's own words pass unchanged, while text from
 * outside in it (an upstream's stderr, tool names, error messages) can neither drive the terminal nor
 * forge a line.
 */
export function writeNotice(stream: Writable, line: string): void {
  stream.write(noticeText(line));
}

/** One notice as written on stderr: the program's name, the line escaped for the terminal, a line feed. */
export function noticeText(line: string): string {
  return `[${PROGRAM_NAME}] ${escapeTerminalText(line)}\n`;
}
