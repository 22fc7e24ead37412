import type { Readable, Writable } from 'node:stream';

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

/** What each command definition receives: the process IO and the flags really given on the command line. */
export interface CommandContext {
  io: CliIo;
  /** Long flag names present in argv (cac cannot tell an absent typed option from the string "undefined"). */
  given: Set<string>;
}
