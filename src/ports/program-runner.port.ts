/**
 * Running the user's own agent program (`trial --agent-command`) and the reset command: the boundary the
 * trial needs to start a process, wait for it and end its whole process group on time-out.
 */

export interface ProgramSpec {
  command: string;
  args: readonly string[];
  /** Added to the harness's own environment. */
  env: Readonly<Record<string, string>>;
  /** Names taken out of the harness's environment for the program (forward mode: the real key's variable). */
  withoutEnv?: readonly string[];
  cwd: string;
  timeoutMs: number;
  /** Where the program's stdout and stderr are kept (`agent.stdout.log`, `agent.stderr.log`). */
  logDir: string;
  /** When aborted (the trial is stopped at once), the group is ended as on a time-out. */
  signal?: AbortSignal;
}

export interface ProgramExit {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  /** Set when the program could not be started at all. */
  spawnError?: string;
  stderrTail: string;
  durationMs: number;
}

/** Starts a program (its own process group), waits for it, kills the group on time-out. */
export interface ProgramRunner {
  run(spec: ProgramSpec): Promise<ProgramExit>;
  /** Runs a shell command line (the reset command). */
  shell(commandLine: string, cwd: string, timeoutMs: number): Promise<ProgramExit>;
}
