/**
 * The programs `replay` starts for a recorded run, and `--allow-command` (docs/replay.md, "A recording is
 * code"): a run file names the agent program to start again (and, with `--live-upstream`, the upstream's
 * command line), so replaying a recording someone else made runs their program. `replay` prints each
 * command line before it starts it; with an allow-list, a run whose recorded program is not on it is
 * refused (REFUSED, exit 1) before anything runs. A program given on `replay`'s own command line
 * (`--upstream-command`) is the operator's, never checked.
 */
import { commandLineText } from '../../domain/text/command-line.js';

/** One program a replayed run starts. */
export interface StartedCommand {
  role: 'agent program' | 'upstream';
  command: string;
  args: readonly string[];
  /** True when the command line comes from the recording (false: from `replay`'s own flags). */
  recorded: boolean;
}

/** The longest program name quoted back in a refusal (a recording may hold anything). */
const MAX_QUOTED = 120;

/** `<role>: <command line>`, for the line printed before the run starts. */
export function startedCommandText(started: StartedCommand): string {
  return `${started.role}: ${commandLineText(started.command, started.args)}`;
}

/**
 * Why `--allow-command` refuses the run: the first recorded program that is not on the list (matched
 * exactly, as recorded: `node` allows `node`, not `/tmp/x/node`); null when every one is on it, or when no
 * list was given (replays without the flag behave as before).
 */
export function commandNotAllowed(commands: readonly StartedCommand[], allowed: readonly string[] | undefined): string | null {
  if (allowed === undefined) return null;
  const refused = commands.find((started) => started.recorded && !allowed.includes(started.command));
  if (refused === undefined) return null;
  const name = refused.command.length > MAX_QUOTED ? `${refused.command.slice(0, MAX_QUOTED)}…` : refused.command;
  return (
    `its ${refused.role} ${JSON.stringify(name)} is not on --allow-command (${allowed.map((a) => JSON.stringify(a)).join(', ')}): ` +
    'a recording is code; replay it only if you trust that program, by adding it with --allow-command'
  );
}
