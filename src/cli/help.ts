/**
 * The help texts: cac prints them, these callbacks rearrange its sections.
 *
 * - The top-level `--help`: cac lists the default command (no name: the demo MCP server) as a command with
 *   an empty name. The usage names a command, the command list holds the named commands, and the demo
 *   server gets its own line.
 * - A command's `--help`: its flags grouped by what they are for (agent, model, faults, upstream, output …),
 *   as `docker run --help` or `gh` do, each group under its own title and all aligned; a flag a command
 *   declares only to refuse it with a reason (`trial --report-file`) is left out (`hiddenOption`).
 */
import type { CAC, Command } from 'cac';
import { parameterFlags } from '../domain/faults/index.js';

/** One section of cac's help output (an optional title and its body). */
export interface HelpSection {
  title?: string;
  body: string;
}

/**
 * Commands the harness runs itself, never a user: left out of the top-level help (they still run, and
 * still answer their own `--help`). `trial-relay` is what `trial --agent-transport stdio` puts in the
 * agent program's MCP config.
 */
export const INTERNAL_COMMANDS: ReadonlySet<string> = new Set(['trial-relay']);

/** A help callback for `cli.help(…)` that fixes the top-level help of `cli`. */
export function topLevelHelp(cli: CAC): (sections: HelpSection[]) => HelpSection[] {
  return (sections) => {
    const named = cli.commands.filter((command) => command.name !== '' && !INTERNAL_COMMANDS.has(command.name));
    const fallback = cli.commands.find((command) => command.name === '');
    // Only the top-level help lists the commands (cac shows them for the default and the global command).
    if (!sections.some((section) => section.title === 'Commands')) {
      const command = cli.matchedCommand;
      return command === undefined ? sections : groupedOptions(sections, command, cli.globalCommand.options);
    }
    const width = Math.max(...named.map((command) => command.rawName.length));
    const out: HelpSection[] = [];
    for (const section of sections) {
      if (section.title === 'Usage') {
        out.push({ title: 'Usage', body: `  $ ${cli.name} <command> [options]` });
        if (fallback !== undefined)
          out.push({ title: 'Without a command', body: `  $ ${cli.name}\n    ${fallback.description}` });
      } else if (section.title === 'Commands') {
        out.push({
          title: 'Commands',
          body: named.map((command) => `  ${command.rawName.padEnd(width)}  ${command.description}`).join('\n'),
        });
      } else if (section.title?.startsWith('For more info') === true) {
        out.push({ title: section.title, body: named.map((command) => `  $ ${cli.name} ${command.name} --help`).join('\n') });
      } else out.push(section);
    }
    return out;
  };
}

/** What a flag is for: the groups of a command's help, in the order they are printed. */
export const HELP_GROUPS = [
  ['agent', 'Agent'],
  ['model', 'Model'],
  ['faults', 'Faults'],
  ['upstream', 'Upstream'],
  ['tools', 'Write tools and keys'],
  ['effects', 'Effects (what the backend holds)'],
  ['probes', 'Probes'],
  ['gates', 'Gates'],
  ['runs', 'Runs'],
  ['output', 'Output'],
] as const;
export type HelpGroup = (typeof HELP_GROUPS)[number][0];

/**
 * The group of each flag, by name, for every command that declares it. A flag not listed goes to the last
 * section, "Options", with `--help`: list a new flag here (or in `COMMAND_GROUPS` where its purpose differs
 * by command). Each fault's parameter flags (F2's `--retry-after`) are the faults' (read from the registry).
 */
const FLAG_GROUPS: Readonly<Record<string, HelpGroup>> = {
  // The agent: who it is, what it is asked, how it reaches the harness.
  'agent-command': 'agent',
  'agent-arg': 'agent',
  'agent-env-var': 'agent',
  'agent-transport': 'agent',
  'agent-timeout': 'agent',
  'system-prompt': 'agent',
  task: 'agent',
  'follow-up': 'agent',
  'task-file': 'agent',
  'max-steps': 'agent',
  honesty: 'agent',
  'honesty-question': 'agent',
  listen: 'agent',
  'max-sessions': 'agent',
  'session-idle-timeout': 'agent',
  'audit-tools': 'agent',
  // The model behind the agent.
  model: 'model',
  'base-url': 'model',
  'api-key-env': 'model',
  temperature: 'model',
  'model-seed': 'model',
  'is-error': 'model',
  'model-retries': 'model',
  'model-timeout': 'model',
  'stub-model': 'model',
  'model-replay': 'model',
  'model-fault': 'model',
  'model-fault-on': 'model',
  'model-gateway': 'model',
  // What the harness does to the agent's calls.
  scenario: 'faults',
  scenarios: 'faults',
  mode: 'faults',
  'error-rate': 'faults',
  'fault-tool': 'faults',
  'fault-on': 'faults',
  latency: 'faults',
  hold: 'faults',
  seed: 'faults',
  // The real MCP server (or its recording).
  'upstream-command': 'upstream',
  'upstream-url': 'upstream',
  'upstream-header': 'upstream',
  'upstream-header-env': 'upstream',
  'upstream-arg': 'upstream',
  'upstream-args': 'upstream',
  'upstream-cwd': 'upstream',
  'upstream-env-var': 'upstream',
  'upstream-env': 'upstream',
  'upstream-replay': 'upstream',
  'upstream-timeout': 'upstream',
  'allow-redacted': 'upstream',
  'reset-command': 'upstream',
  'live-upstream': 'upstream',
  'allow-command': 'runs',
  // Which calls are writes and what makes two of them one operation.
  'write-tools': 'tools',
  'read-tools': 'tools',
  'key-fields': 'tools',
  'idempotent-hint': 'tools',
  'probe-results': 'tools',
  // probe's own.
  tools: 'probes',
  example: 'probes',
  'example-file': 'probes',
  'count-with': 'probes',
  gap: 'probes',
  // check's: what fails the check.
  'fail-on': 'gates',
  'min-score': 'gates',
  'min-pass-rate': 'gates',
  'max-duplicate-rate': 'gates',
  'max-false-success-rate': 'gates',
  'max-lost-transaction-rate': 'gates',
  bound: 'gates',
  // the effects view.
  'effects-tool': 'effects',
  'effects-command': 'effects',
  'effects-arg': 'effects',
  'effects-path': 'effects',
  'effect-key': 'effects',
  'expect-effect': 'effects',
  // How many runs, and how they are split.
  config: 'runs',
  runs: 'runs',
  concurrency: 'runs',
  shard: 'runs',
  patch: 'runs',
  'patch-file': 'runs',
  jitter: 'runs',
  // What is written, and where.
  out: 'output',
  'report-file': 'output',
  'report-dir': 'output',
  'report-html': 'output',
  journal: 'output',
  'journal-payloads': 'output',
  otel: 'output',
  'otel-endpoint': 'output',
  'otel-payloads': 'output',
  redact: 'output',
  json: 'output',
  markdown: 'output',
  html: 'output',
  junit: 'output',
  'log-level': 'output',
  force: 'output',
};

const FLAG_ORDER = Object.keys(FLAG_GROUPS);

/** Where a flag's purpose differs by command. */
const COMMAND_GROUPS: Readonly<Record<string, Readonly<Record<string, HelpGroup>>>> = {
  // probe: --hold is P3's pause between its two calls.
  probe: { hold: 'probes' },
  // replay: the recordings it replays, not an upstream's.
  replay: { 'allow-redacted': 'runs' },
};

/** The group of a command's flag; undefined: the last section ("Options"). */
export function helpGroupOf(command: string, flag: string): HelpGroup | undefined {
  if (parameterFlags().some((entry) => entry.parameter.flag === flag)) return 'faults';
  return COMMAND_GROUPS[command]?.[flag] ?? (Object.hasOwn(FLAG_GROUPS, flag) ? FLAG_GROUPS[flag] : undefined);
}

type CacOption = Command['options'][number];

/** Options declared to cac (so that the command can refuse them with its reason) but left out of `--help`. */
const HIDDEN = new WeakSet<CacOption>();

/**
 * Declares a flag a command does not use but refuses with a reason of its own (`trial --report-file`: "each
 * run writes …"): cac and readArgv accept it, so the command's message explains; `--help` leaves it out.
 */
export function hiddenOption(command: Command, rawName: string, description: string): void {
  command.option(rawName, description, { type: [String] });
  HIDDEN.add(command.options.at(-1)!);
}

/** The flag names of a cac option as typed (`--report-file <value>` → `report-file`; cac's own names are camelCase). */
export function typedNames(rawName: string): string[] {
  return rawName
    .replace(/[<[].*$/, '')
    .split(',')
    .map((name) => name.trim().replace(/^-{1,2}/, ''))
    .filter((name) => name !== '');
}

/**
 * A command's help with cac's one "Options" section replaced by a section per group (empty ones left out),
 * then "Options" with the flags of no group and `--help`; every line aligned to the longest flag shown. In a
 * group the flags come in the order of `FLAG_GROUPS` (the same order in every command).
 */
function groupedOptions(sections: HelpSection[], command: Command, globalOptions: readonly CacOption[]): HelpSection[] {
  // As cac: the global options after the command's, `--version` only on the default command.
  const shown = [...command.options, ...globalOptions].filter(
    (option) => !HIDDEN.has(option) && (command.isDefaultCommand || option.name !== 'version'),
  );
  if (shown.length === 0) return sections;
  const width = Math.max(...shown.map((option) => option.rawName.length));
  const line = (option: CacOption) => `  ${option.rawName.padEnd(width)}  ${option.description}`;
  const byGroup = new Map<HelpGroup | undefined, CacOption[]>();
  for (const option of shown) {
    const group = helpGroupOf(command.name, typedNames(option.rawName)[0] ?? '');
    byGroup.set(group, [...(byGroup.get(group) ?? []), option]);
  }
  // A flag whose group differs for this command comes last in it; a fault's parameter after --error-rate.
  const rank = (option: CacOption) => {
    const flag = typedNames(option.rawName)[0] ?? '';
    if (Object.hasOwn(FLAG_GROUPS, flag) && FLAG_GROUPS[flag] === helpGroupOf(command.name, flag))
      return FLAG_ORDER.indexOf(flag);
    return helpGroupOf(command.name, flag) === 'faults' ? FLAG_ORDER.indexOf('error-rate') + 0.5 : FLAG_ORDER.length;
  };
  const grouped: HelpSection[] = [];
  for (const [group, title] of HELP_GROUPS) {
    const options = byGroup.get(group);
    if (options !== undefined)
      grouped.push({
        title,
        body: [...options]
          .sort((a, b) => rank(a) - rank(b))
          .map(line)
          .join('\n'),
      });
  }
  grouped.push({ title: 'Options', body: (byGroup.get(undefined) ?? []).map(line).join('\n') });
  const takesFlags = shown.some((option) => option.name !== 'help');
  return sections.flatMap((section) =>
    section.title === 'Options'
      ? grouped
      : section.title === 'Usage' && takesFlags
        ? [{ title: 'Usage', body: `${section.body} [options]` }]
        : [section],
  );
}
