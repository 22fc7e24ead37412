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
import { flagRank, groupOf, helpOf, HELP_GROUPS, olderNamesIn, refusedBy, withValue, type HelpGroup } from './flag-spec.js';

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

/**
 * Declares `flags` to cac for `command`, each once, as its spec says (placeholder, help line); a command may
 * name the flag families it takes whole (trial: its own, the proxy's, the effects', the traces'). A flag the
 * spec says the command refuses (with its reason) or takes as an older name of another is declared too,
 * so the command can say so, and left out of `--help`. A command's flags are named in its lists; everything
 * said about them is the spec's.
 */
export function declareFlags(command: Command, flags: readonly string[]): void {
  const hidden = new Set([...refusedBy(command.name).keys(), ...olderNamesIn(command.name).keys()]);
  for (const flag of new Set(flags))
    if (!hidden.has(flag)) command.option(withValue(flag), helpOf(command.name, flag), { type: [String] });
  for (const flag of hidden) hiddenOption(command, withValue(flag), helpOf(command.name, flag));
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
 * group the flags come in the order of `FLAG_SPECS` (the same order in every command).
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
    const group = groupOf(command.name, typedNames(option.rawName)[0] ?? '');
    byGroup.set(group, [...(byGroup.get(group) ?? []), option]);
  }
  const grouped: HelpSection[] = [];
  for (const [group, title] of HELP_GROUPS) {
    const options = byGroup.get(group);
    if (options !== undefined)
      grouped.push({
        title,
        body: [...options]
          .sort((a, b) => flagRank(typedNames(a.rawName)[0] ?? '') - flagRank(typedNames(b.rawName)[0] ?? ''))
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
