/**
 * The commands, in the order `--help` lists them, each loaded only when it is needed: a command line that
 * names its command (`proxy …`) loads that command's definition alone, so the proxy does not pay for the
 * definitions of trial, check or replay (their flag tables and the domain they read, about 35 ms of
 * module loading) before it starts its upstream. The top-level help, `--version` and a line that does not
 * start with a command name load every command.
 */
import type { CAC } from 'cac';
import type { CommandContext } from './io.js';

/** A command's definition and the flags its command line may hold (for `readArgv`). */
export interface CommandDefinition {
  define(cli: CAC, context: CommandContext): void;
  /** The long flags that take a value. */
  valueFlags: readonly string[];
  /** The long flags that take none (besides --help and --version). */
  switches: readonly string[];
}

type Loader = () => Promise<CommandDefinition>;

/** Every command by name; '' is the default command (the demo MCP server). */
export const COMMANDS: ReadonlyMap<string, Loader> = new Map<string, Loader>([
  [
    'proxy',
    async () => {
      const m = await import('./proxy-command.js');
      return { define: m.defineProxyCommand, valueFlags: m.PROXY_VALUE_FLAGS, switches: [] };
    },
  ],
  [
    'benchmark',
    async () => {
      const [m, flags] = await Promise.all([import('./benchmark-command.js'), import('./benchmark-flags.js')]);
      return { define: m.defineBenchmarkCommand, valueFlags: flags.BENCHMARK_VALUE_FLAGS, switches: [] };
    },
  ],
  [
    'check',
    async () => {
      const [m, flags] = await Promise.all([import('./check-command.js'), import('./check-flags.js')]);
      return { define: m.defineCheckCommand, valueFlags: flags.CHECK_VALUE_FLAGS, switches: [] };
    },
  ],
  ['', async () => ({ define: (await import('./demo-command.js')).defineDemoCommand, valueFlags: [], switches: [] })],
  [
    'trial',
    async () => {
      // trial reads the proxy's flags too (and refuses some of them with the reason).
      const [m, proxy] = await Promise.all([import('./trial-command.js'), import('./proxy-flags.js')]);
      return { define: m.defineTrialCommand, valueFlags: [...m.TRIAL_VALUE_FLAGS, ...proxy.PROXY_VALUE_FLAGS], switches: [] };
    },
  ],
  [
    'trial-relay',
    async () => ({ define: (await import('./trial-relay-command.js')).defineTrialRelayCommand, valueFlags: [], switches: [] }),
  ],
  [
    'stats',
    async () => {
      const [m, flags] = await Promise.all([import('./stats-command.js'), import('./stats-flags.js')]);
      return { define: m.defineStatsCommand, valueFlags: flags.STATS_VALUE_FLAGS, switches: [] };
    },
  ],
  [
    'probe',
    async () => {
      // probe refuses the proxy flags it does not take by name ("unknown flag --scenario for probe").
      const [m, proxy] = await Promise.all([import('./probe-command.js'), import('./proxy-flags.js')]);
      return { define: m.defineProbeCommand, valueFlags: [...m.PROBE_VALUE_FLAGS, ...proxy.PROXY_VALUE_FLAGS], switches: [] };
    },
  ],
  [
    'compare',
    async () => {
      const [m, flags] = await Promise.all([import('./compare-command.js'), import('./compare-flags.js')]);
      return { define: m.defineCompareCommand, valueFlags: flags.COMPARE_VALUE_FLAGS, switches: [] };
    },
  ],
  [
    'replay',
    async () => {
      const [m, flags] = await Promise.all([import('./replay-command.js'), import('./replay-flags.js')]);
      return { define: m.defineReplayCommand, valueFlags: flags.REPLAY_VALUE_FLAGS, switches: flags.REPLAY_SWITCHES };
    },
  ],
  [
    'init',
    async () => {
      const m = await import('./init-command.js');
      return { define: m.defineInitCommand, valueFlags: [], switches: m.INIT_SWITCHES };
    },
  ],
]);

/**
 * The definitions a command line needs: the named command's alone when the line starts with a command's
 * name, else every command (the top-level help lists them all, and an unknown word is named with the list).
 */
export async function commandsFor(argv: readonly string[]): Promise<CommandDefinition[]> {
  const first = argv[0];
  const named = first === undefined || first === '' ? undefined : COMMANDS.get(first);
  return Promise.all(named === undefined ? [...COMMANDS.values()].map((load) => load()) : [named()]);
}
