/**
 * `replay`'s flags: validated strictly, one clear line (UsageError) for anything wrong. Read by the command
 * definition (`replay-command.ts`) and the wiring (`replay-run.ts`), which do not import each other.
 */
import { resolve } from 'node:path';
import { single } from './argv.js';
import { UsageError } from './errors.js';

export const REPLAY_VALUE_FLAGS = ['out', 'junit', 'allow-redacted'] as const;

export interface ReplayFlags {
  paths: string[];
  /** Where the replayed runs' files are kept (absolute); undefined: nothing is kept. */
  out: string | undefined;
  /** `--junit FILE` (absolute). */
  junit: string | undefined;
  allowRedacted: boolean;
}

export function parseReplayFlags(
  paths: readonly string[],
  values: Readonly<Record<string, readonly string[]>>,
  cwd: string,
): ReplayFlags {
  for (const flag of Object.keys(values))
    if (!(REPLAY_VALUE_FLAGS as readonly string[]).includes(flag))
      throw new UsageError(`flag --${flag} is not a replay flag; see replay --help`);
  if (paths.length === 0)
    throw new UsageError('replay needs at least one run folder (runs/<run>/ of a trial) or a folder of recorded runs');
  const out = single(values, 'out');
  const junit = single(values, 'junit');
  const allow = single(values, 'allow-redacted') ?? 'off';
  if (allow !== 'on' && allow !== 'off') throw new UsageError(`flag --allow-redacted must be on or off, got "${allow}"`);
  return {
    paths: [...paths],
    out: out === undefined ? undefined : resolve(cwd, out),
    junit: junit === undefined ? undefined : resolve(cwd, junit),
    allowRedacted: allow === 'on',
  };
}
