/**
 * The top-level `--help`: cac lists the default command (no name: the demo MCP server) as a command with
 * an empty name. This rewrites the sections of the top-level help only: the usage names a command, the
 * command list holds the named commands, and the demo server gets its own line.
 */
import type { CAC } from 'cac';

/** One section of cac's help output (an optional title and its body). */
export interface HelpSection {
  title?: string;
  body: string;
}

/** A help callback for `cli.help(…)` that fixes the top-level help of `cli`. */
export function topLevelHelp(cli: CAC): (sections: HelpSection[]) => HelpSection[] {
  return (sections) => {
    const named = cli.commands.filter((command) => command.name !== '');
    const fallback = cli.commands.find((command) => command.name === '');
    // Only the top-level help lists the commands (cac shows them for the default and the global command).
    if (!sections.some((section) => section.title === 'Commands')) return sections;
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
