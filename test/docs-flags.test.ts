/**
 * Every flag a command's `--help` shows is on its page under docs/commands/, and a page whose flag table is
 * made from the help (`<!-- flags: COMMAND -->`, scripts/flag-tables.mjs) holds exactly the table today's
 * help makes: a flag added, renamed or described anew in the CLI and not in its page fails here. The key
 * table of docs/config.md is made from the flags' spec the same way.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configBlock, flagBlock, renderConfigTable, renderFlagTable } from '../scripts/flag-tables.mjs';
import { COMMANDS } from '../src/cli/commands.js';
import { FLAG_SPELLINGS, TRIAL_CONFIG_KEYS } from '../src/cli/trial-config-keys.js';
import { ROOT, runCli } from './support/in-process-cli.js';

/** The commands with a page: not the demo server (''), `init` (README) or the internal `trial-relay`. */
const NAMED = [...COMMANDS.keys()].filter((name) => !['', 'init', 'trial-relay'].includes(name));

async function helpText(command: string): Promise<string> {
  const result = await runCli([command, '--help']);
  expect(result.code).toBe(0);
  return result.stdout;
}

const page = (command: string): string => readFileSync(join(ROOT, 'docs/commands', `${command}.md`), 'utf8');

describe('docs/commands/*.md name every flag of their command (R-8.1)', () => {
  it.each(NAMED)('%s: each flag of the help is on the page', async (command) => {
    const help = await helpText(command);
    const flags = [...help.matchAll(/^ {2}(?:-\w, )?(--[\w-]+)/gm)].map((m) => m[1]!).filter((f) => f !== '--help');
    expect(flags.length).toBeGreaterThan(0);
    const text = page(command);
    expect(flags.filter((flag) => !new RegExp(`\`${flag}(?![\\w-])`).test(text))).toEqual([]);
  });

  it.each(['trial', 'probe'])(
    '%s: the page’s flag table is the one the help makes (node scripts/flag-tables.mjs)',
    async (command) => {
      const block = flagBlock(page(command), command);
      expect(block).not.toBeNull();
      expect(block).toBe(renderFlagTable(command, await helpText(command)));
    },
  );

  it("docs/config.md: the key table is the one the flags' spec makes (node scripts/flag-tables.mjs)", () => {
    const block = configBlock(readFileSync(join(ROOT, 'docs/config.md'), 'utf8'));
    expect(block).not.toBeNull();
    expect(block).toBe(renderConfigTable(TRIAL_CONFIG_KEYS, FLAG_SPELLINGS));
    // A row per key, each other spelling named with the key it sets.
    expect(block!.split('\n').filter((line) => line.startsWith('| `')).length).toBe(TRIAL_CONFIG_KEYS.length);
    expect(block).toContain('| `upstream.args` | `--upstream-arg` (`--upstream-args` is the same key) | list of texts');
    expect(block).toContain('| `tasks` | (what `--task-file` reads) |');
  });

  it('the table: a row per option under its section, a value placeholder kept, a | escaped, Options left out', () => {
    const help = [
      'Usage:',
      '  $ x trial [options]',
      '',
      'Agent:',
      '  --task <value>   The task | a file',
      '  --honesty        Ask the agent',
      '',
      'Options:',
      '  -h, --help  Display this message',
    ].join('\n');
    expect(renderFlagTable('trial', help).split('\n')).toEqual([
      '<!-- flags: trial -->',
      '<!-- made from `trial --help` by scripts/flag-tables.mjs -->',
      '',
      '**Agent**',
      '',
      '| flag | meaning |',
      '|---|---|',
      '| `--task <value>` | The task \\| a file |',
      '| `--honesty` | Ask the agent |',
      '',
      '<!-- /flags -->',
    ]);
  });
});
