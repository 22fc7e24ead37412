/**
 * The commands, in the order `--help` lists them, each loaded only when it is needed: a command line that
 * names its command (`proxy …`) loads that command's definition alone, so the proxy does not load the
 * definitions of trial, check or replay (their flag tables and the domain they read) before it starts its
 * upstream. The top-level help, `--version` and a line that does not start with a command name load every
 * command.
 */
import type { CAC } from 'cac';
import type { CommandContext } from './io.js';

/** Defines one command on the cac instance. */
export type DefineCommand = (cli: CAC, context: CommandContext) => void;

type Loader = () => Promise<DefineCommand>;

/**
 * Every command by name; '' is the default command (the demo MCP server). The flags a command line may
 * hold are those its command declares to cac (`main.ts` reads them from there).
 */
export const COMMANDS: ReadonlyMap<string, Loader> = new Map<string, Loader>([
  ['proxy', async () => (await import('./proxy-command.js')).defineProxyCommand],
  ['benchmark', async () => (await import('./benchmark-command.js')).defineBenchmarkCommand],
  ['check', async () => (await import('./check-command.js')).defineCheckCommand],
  ['', async () => (await import('./demo-command.js')).defineDemoCommand],
  ['trial', async () => (await import('./trial-command.js')).defineTrialCommand],
  ['trial-relay', async () => (await import('./trial-relay-command.js')).defineTrialRelayCommand],
  ['stats', async () => (await import('./stats-command.js')).defineStatsCommand],
  ['probe', async () => (await import('./probe-command.js')).defineProbeCommand],
  ['compare', async () => (await import('./compare-command.js')).defineCompareCommand],
  ['replay', async () => (await import('./replay-command.js')).defineReplayCommand],
  ['init', async () => (await import('./init-command.js')).defineInitCommand],
]);

/**
 * The definitions a command line needs: the named command's alone when the line starts with a command's
 * name, else every command (the top-level help lists them all, and an unknown word is named with the list).
 */
export async function commandsFor(argv: readonly string[]): Promise<DefineCommand[]> {
  const first = argv[0];
  const named = first === undefined || first === '' ? undefined : COMMANDS.get(first);
  return Promise.all(named === undefined ? [...COMMANDS.values()].map((load) => load()) : [named()]);
}
