/**
 * `replay`'s flags: validated strictly, one clear line (UsageError) for anything wrong (a flag the command
 * does not declare is refused before, by `readArgv` and cac). Read by the command definition
 * (`replay-command.ts`) and the wiring (`replay-run.ts`), which do not import each other.
 */
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { commaList, onOff, repeated, single } from './argv.js';
import { UsageError } from './errors.js';
import { parseOtelFlags, type OtelSettings } from './otel-flags.js';

export interface ReplayFlags {
  paths: string[];
  /** Where the replayed runs' files are kept (absolute); undefined: nothing is kept. */
  out: string | undefined;
  /** `--junit FILE` (absolute). */
  junit: string | undefined;
  allowRedacted: boolean;
  /** `--live-upstream`: only the model's side is replayed; the real upstream answers. */
  liveUpstream: boolean;
  /** `--upstream-command` / `--upstream-arg` (with `--live-upstream`): in place of the recorded command line. */
  upstream: { command: string; args: string[] } | undefined;
  /** `--allow-command PROGRAM` (repeatable): only recordings whose programs are on it are replayed; undefined: no list. */
  allowCommands: string[] | undefined;
  /** `--otel` (docs/traces.md): the replayed runs' spans; null without it. */
  otel: OtelSettings | null;
}

export function parseReplayFlags(
  paths: readonly string[],
  values: Readonly<Record<string, readonly string[]>>,
  cwd: string,
  env: Readonly<Record<string, string | undefined>> = {},
): ReplayFlags {
  const liveUpstream = onOff(single(values, 'live-upstream'), 'live-upstream', false);
  const command = single(values, 'upstream-command');
  // As proxy and trial take them: the comma list first, then each --upstream-arg.
  const argsList = single(values, 'upstream-args');
  const args = [...(argsList === undefined ? [] : commaList(argsList, 'upstream-args')), ...repeated(values, 'upstream-arg')];
  const argsFlag = argsList !== undefined ? '--upstream-args' : '--upstream-arg';
  if ((command !== undefined || args.length > 0) && !liveUpstream)
    throw new UsageError(
      `--upstream-command and ${argsFlag} name the real upstream of --live-upstream: give --live-upstream too`,
    );
  if (args.length > 0 && command === undefined) throw new UsageError(`${argsFlag} needs --upstream-command`);
  if (paths.length === 0)
    throw new UsageError('replay needs at least one run folder (runs/<run>/ of a trial) or a folder of recorded runs');
  const out = single(values, 'out');
  const junit = single(values, 'junit');
  const allowRedacted = onOff(single(values, 'allow-redacted'), 'allow-redacted', false);
  // Kept inside a folder being replayed, the replayed runs would join the suite the next time; kept in a
  // folder that holds one being replayed, they would be written beside (or into) the recorded runs.
  if (out !== undefined) {
    const within = (inner: string, outer: string): boolean => {
      const rel = relative(resolve(cwd, outer), resolve(cwd, inner));
      return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
    };
    const inside = paths.find((folder) => within(out, folder));
    if (inside !== undefined)
      throw new UsageError(`--out ${out} is inside ${inside}, a folder being replayed; keep it elsewhere`);
    const holds = paths.find((folder) => within(folder, out));
    if (holds !== undefined)
      throw new UsageError(
        `--out ${out} holds ${holds}, a folder being replayed: the replayed runs would be kept among the recorded ones and join the suite; keep it elsewhere`,
      );
  }
  const allowCommands = Object.hasOwn(values, 'allow-command') ? repeated(values, 'allow-command') : undefined;
  return {
    paths: [...paths],
    out: out === undefined ? undefined : resolve(cwd, out),
    junit: junit === undefined ? undefined : resolve(cwd, junit),
    allowRedacted,
    liveUpstream,
    upstream: command === undefined ? undefined : { command, args },
    allowCommands,
    otel: parseOtelFlags(values, env),
  };
}
