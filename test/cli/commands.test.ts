/**
 * The command table (`src/cli/commands.ts`): a command line that names its command loads that command's
 * definition alone, and that command then reads every flag it declares exactly as when every command is
 * loaded; an unknown flag is refused for the command named.
 */
import { cac } from 'cac';
import { describe, expect, it } from 'vitest';
import { COMMANDS, commandsFor } from '../../src/cli/commands.js';
import type { CommandContext } from '../../src/cli/io.js';
import { runCli } from '../support/in-process-cli.js';

/** Every flag a command declares to cac, as typed, with whether it takes a value. */
async function declaredFlags(name: string): Promise<Array<{ flag: string; takesValue: boolean }>> {
  const cli = cac('x');
  const define = await COMMANDS.get(name)!();
  define(cli, {} as CommandContext);
  return cli.commands
    .flatMap((command) => command.options)
    .map((option) => ({ flag: option.rawName.replace(/[<[].*$/, '').trim(), takesValue: option.isBoolean !== true }));
}

describe('the command table', () => {
  it('R-8.1: a line naming a command loads that command alone; the top-level help and other lines load all', async () => {
    expect(await commandsFor(['proxy', '--scenario', 'F1'])).toHaveLength(1);
    expect(await commandsFor(['replay', 'runs/'])).toHaveLength(1);
    expect(await commandsFor(['--help'])).toHaveLength(COMMANDS.size);
    expect(await commandsFor([])).toHaveLength(COMMANDS.size);
    expect(await commandsFor(['frobnicate'])).toHaveLength(COMMANDS.size);
  });

  it('R-8.1: loaded alone, every command reads every flag it declares (none is taken for unknown)', async () => {
    const named = [...COMMANDS.keys()].filter((name) => name !== '');
    for (const name of named) {
      for (const { flag, takesValue } of await declaredFlags(name)) {
        // --help wins over everything but an unknown flag: exit 0 means the flag was known.
        const result = await runCli([name, ...(takesValue ? [`${flag}=x`] : [flag]), '--help']);
        expect(result.stderr, `${name} ${flag}`).toBe('');
        expect(result.code, `${name} ${flag}`).toBe(0);
      }
    }
  });

  it('R-8.1: an unknown flag after a command is refused for that command, before the command reads its flags', async () => {
    for (const name of [...COMMANDS.keys()].filter((command) => command !== '')) {
      const result = await runCli([name, '--bogus', 'x']);
      expect(result.code, name).toBe(1);
      expect(result.stderr.trim()).toBe(`[cuonztech-agent-harness] error: unknown flag --bogus for ${name}; see ${name} --help`);
    }
    // A flag of another command, given before the command, is cac's to refuse: named as typed, for the command.
    const before = await runCli(['--runs', '3', 'stats', 'x']);
    expect(before.code).toBe(1);
    expect(before.stderr.trim()).toBe('[cuonztech-agent-harness] error: unknown flag --runs for stats; see stats --help');
  });
});
