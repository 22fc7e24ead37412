/**
 * The composition root's entry: parses argv with cac and runs one command. Returns the exit code; never
 * throws, never prints a stack trace.
 */
import { cac, type CAC } from 'cac';
import { HARNESS_VERSION, PROGRAM_NAME } from '../version.js';
import { readArgv, type OnOffSwitch } from './argv.js';
import { flagSpec, isSwitch } from './flag-spec.js';
import { commandsFor } from './commands.js';
import { EXIT_FAILURE, formatFatal, UsageError } from './errors.js';
import { topLevelHelp, typedNames } from './help.js';
import type { CliIo, CommandContext } from './io.js';

/** Runs the CLI with the given arguments (without `node` and the script path). */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const cli = cac(PROGRAM_NAME);
  const context: CommandContext = { io, values: {} };
  try {
    const commands = await commandsFor(argv);
    for (const define of commands) define(cli, context);
    cli.help(topLevelHelp(cli));
    cli.version(HARNESS_VERSION);
    // The flags are those the loaded commands declare to cac: with a value (`--json <file>`), a switch
    // (`--otel [on|off]`, by its spec) or cac's own (`--help`).
    const declared = cli.commands.flatMap((command) => command.options);
    const onOffSwitches = new Map<string, OnOffSwitch>();
    const valueFlags = new Set<string>();
    const switches = new Set(['help', 'version']);
    for (const option of declared)
      for (const flag of typedNames(option.rawName)) {
        const spec = flagSpec(flag);
        if (option.isBoolean === true) switches.add(flag);
        else if (spec !== undefined && isSwitch(spec))
          onOffSwitches.set(flag, { wordAfterIsArgument: spec.wordAfterIsArgument === true });
        else valueFlags.add(flag);
      }
    // One command loaded: the line named it, and an unknown flag is refused for that command.
    const read = readArgv(argv, valueFlags, switches, commands.length === 1 ? argv[0] : undefined, onOffSwitches);
    context.values = read.values;
    cli.parse(['node', PROGRAM_NAME, ...read.forDispatch], { run: false });
    if (cli.options['help']) return 0;
    if (cli.options['version']) {
      // cac prints the version itself only without a command; `proxy --version` printed nothing.
      if (cli.matchedCommandName !== undefined) cli.outputVersion();
      return 0;
    }
    if (cli.matchedCommand === undefined) {
      throw new UsageError(
        `unknown command "${cli.args[0] ?? ''}"; commands: ${commandNames(cli)} (none = demo MCP server); see --help`,
      );
    }
    refuseStrayArguments(cli);
    const code: unknown = await cli.runMatchedCommand();
    return typeof code === 'number' ? code : 0;
  } catch (error) {
    io.stderr.write(
      `${formatFatal(error instanceof Error && error.name === 'CACError' ? new UsageError(cacMessage(error.message, cli)) : error)}\n`,
    );
    return EXIT_FAILURE;
  }
}

/**
 * cac refuses a flag that another command declares (`proxy --live-upstream`, `proxy --force`) and names it
 * in camelCase (`--liveUpstream`): said here as readArgv says an unknown flag, as typed, with the command.
 */
function cacMessage(message: string, cli: CAC): string {
  const unknown = /^Unknown option `--([^`]+)`$/.exec(message);
  if (unknown === null) return message;
  const flag = unknown[1]!.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
  const command = cli.matchedCommandName;
  return command === undefined || command === ''
    ? `unknown flag --${flag}; see --help`
    : `unknown flag --${flag} for ${command}; see ${command} --help`;
}

/**
 * Positional arguments a command does not declare are refused, for every command (`proxy extra-arg`
 * must not run as if the word were not there), as are words after `--`. A command that declares
 * positional arguments (`<file>`, `[files...]`) gets exactly those.
 */
function refuseStrayArguments(cli: CAC): void {
  const command = cli.matchedCommand;
  if (command === undefined) return;
  const declared = command.args;
  const afterDashes = Array.isArray(cli.options['--']) ? (cli.options['--'] as unknown[]).map(String) : [];
  // `compare A1 A2 -- B1`: the words after `--` are side B (compare-command.ts).
  const dashesTaken = command.name === 'compare' ? [] : afterDashes;
  const stray = declared.some((arg) => arg.variadic) ? dashesTaken : [...cli.args.slice(declared.length), ...dashesTaken];
  if (stray.length === 0) return;
  if (command.name === '')
    throw new UsageError(`unknown command "${stray[0]}"; commands: ${commandNames(cli)} (none = demo MCP server); see --help`);
  const takes =
    declared.length === 0
      ? 'no positional arguments'
      : `${declared.length} positional argument${declared.length === 1 ? '' : 's'}`;
  throw new UsageError(
    `${command.name} takes ${takes}, got "${stray[0]}"; every other value belongs to a flag (see ${command.name} --help)`,
  );
}

function commandNames(cli: CAC): string {
  return cli.commands
    .filter((command) => command.name !== '')
    .map((command) => command.name)
    .join(', ');
}
