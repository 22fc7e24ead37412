/**
 * A command's `--help` (src/cli/help.ts): the flags it uses, grouped by what they are for, each once, all
 * aligned; a flag it declares only to refuse with a reason (trial's `--report-file`) is not shown, and is
 * still refused with that reason.
 */
import { cac } from 'cac';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands.js';
import { HELP_GROUPS } from '../../src/cli/flag-spec.js';
import type { CommandContext } from '../../src/cli/io.js';
import { TRIAL_REFUSED_FLAGS } from '../../src/cli/trial-flag-help.js';
import { runCli } from '../support/in-process-cli.js';

/** Every flag a command declares to cac, as typed (`--report-file`). */
async function declaredFlags(name: string): Promise<string[]> {
  const cli = cac('x');
  (await COMMANDS.get(name)!())(cli, {} as CommandContext);
  return cli.commands.flatMap((command) => command.options).map((option) => option.rawName.replace(/[<[].*$/, '').trim());
}

/** The help's sections by title, each with its option lines' flags (`--agent-command`) and the lines. */
async function helpOf(name: string): Promise<{ text: string; sections: Map<string, { flags: string[]; lines: string[] }> }> {
  const result = await runCli([name, '--help']);
  expect(result.code).toBe(0);
  expect(result.stderr).toBe('');
  const sections = new Map<string, { flags: string[]; lines: string[] }>();
  for (const block of result.stdout.trimEnd().split('\n\n')) {
    const [title, ...lines] = block.split('\n');
    if (title === undefined || !title.endsWith(':') || title === 'Examples:' || title === 'Usage:') continue;
    sections.set(title.slice(0, -1), {
      lines,
      flags: lines.map((line) => /^ {2}(?:-\w, )?(--[\w-]+)/.exec(line)?.[1] ?? `? ${line}`),
    });
  }
  return { text: result.stdout, sections };
}

const NAMED = [...COMMANDS.keys()].filter((name) => name !== '');
const GROUP_TITLES: string[] = HELP_GROUPS.map(([, title]) => title);

describe('R-8.1: --help shows what a command uses, grouped by purpose', () => {
  it('R-8.1: trial --help leaves out the flags trial does not use; given, each is refused with its reason', async () => {
    const { text, sections } = await helpOf('trial');
    expect(text).not.toContain('Not used by trial');
    const shown = [...sections.values()].flatMap((section) => section.flags);
    for (const [flag, why] of TRIAL_REFUSED_FLAGS) {
      expect(shown).not.toContain(`--${flag}`);
      const refused = await runCli(['trial', `--${flag}`, 'x', '--model', 'm', '--task', 't', '--upstream-command', 'node']);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`flag --${flag} is not used by trial: ${why}`);
    }
  });

  it('R-8.1: trial groups its flags: agent, model, faults, upstream, write tools, runs, output, in that order', async () => {
    const { sections } = await helpOf('trial');
    expect([...sections.keys()]).toEqual([
      'Agent',
      'Model',
      'Faults',
      'Upstream',
      'Write tools and keys',
      'Effects (what the backend holds)',
      'Runs',
      'Output',
      'Options',
    ]);
    expect(sections.get('Effects (what the backend holds)')!.flags).toEqual([
      '--effects-tool',
      '--effects-command',
      '--effects-arg',
      '--effects-path',
      '--effect-key',
      '--expect-effect',
    ]);
    expect(sections.get('Agent')!.flags.slice(0, 2)).toEqual(['--agent-command', '--agent-arg']);
    expect(sections.get('Agent')!.flags).toContain('--task');
    // trial's seed goes to the model endpoint (or the program): --model-seed, a model flag (--seed, its older name, is accepted, not shown).
    expect(sections.get('Model')!.flags).toEqual(
      expect.arrayContaining(['--model', '--base-url', '--stub-model', '--model-seed']),
    );
    expect(sections.get('Faults')!.flags).toEqual(
      expect.arrayContaining(['--scenario', '--scenarios', '--mode', '--error-rate', '--retry-after', '--hold']),
    );
    expect(sections.get('Upstream')!.flags).toEqual(expect.arrayContaining(['--upstream-command', '--reset-command']));
    expect(sections.get('Runs')!.flags).toEqual(['--config', '--runs', '--concurrency', '--shard', '--patch', '--patch-file']);
    expect(sections.get('Output')!.flags).toEqual([
      '--out',
      '--otel',
      '--otel-endpoint',
      '--otel-payloads',
      '--redact',
      '--log-level',
    ]);
    expect(sections.get('Options')!.flags).toEqual(['--help']);
  });

  it("R-8.1: proxy's --seed is a fault flag, a fault's parameter sits with the faults; probe's --gap is a probe's", async () => {
    const proxy = (await helpOf('proxy')).sections;
    expect(proxy.get('Faults')!.flags).toEqual([
      '--scenario',
      '--scenarios',
      '--mode',
      '--error-rate',
      '--retry-after',
      '--land-after',
      '--fault-tool',
      '--fault-on',
      '--latency',
      '--hold',
      '--seed',
    ]);
    expect(proxy.get('Agent')!.flags).toEqual(['--listen', '--max-sessions', '--session-idle-timeout', '--audit-tools']);
    expect(proxy.get('Output')!.flags).toContain('--report-file');
    expect(proxy.get('Effects (what the backend holds)')!.flags).toEqual(
      expect.arrayContaining(['--effects-tool', '--effects-command', '--effect-key']),
    );
    expect(proxy.get('Options')!.flags).toEqual(['--help']);
    const probe = (await helpOf('probe')).sections;
    expect(probe.get('Probes')!.flags).toEqual(['--tools', '--example', '--example-file', '--count-with', '--gap']);
    expect(probe.get('Effects (what the backend holds)')!.flags).toEqual([
      '--effects-tool',
      '--effects-command',
      '--effects-arg',
      '--effects-path',
      '--effect-key',
      '--expect-effect',
    ]);
    expect((await helpOf('check')).sections.get('Gates')!.flags).toContain('--min-pass-rate');
  });

  it('R-8.1: every command shows each flag it uses exactly once, in known groups in order, aligned', async () => {
    for (const name of NAMED) {
      const { sections } = await helpOf(name);
      // trial's refused flags, and --seed, the older name of --model-seed; probe's --hold, the older name of
      // --gap (accepted, not shown).
      const hidden =
        name === 'trial'
          ? [...TRIAL_REFUSED_FLAGS.keys(), 'seed'].map((flag) => `--${flag}`)
          : name === 'probe'
            ? ['--hold']
            : [];
      const shown = [...sections.values()].flatMap((section) => section.flags);
      const expected = [...(await declaredFlags(name)).filter((flag) => !hidden.includes(flag)), '--help'];
      expect([...shown].sort(), name).toEqual([...new Set(expected)].sort());
      // The groups come in their fixed order, "Options" (what has no group, and --help) last.
      const titles = [...sections.keys()];
      expect(titles.at(-1), name).toBe('Options');
      const order = titles.slice(0, -1).map((title) => GROUP_TITLES.indexOf(title));
      expect(
        order.every((index) => index >= 0),
        `${name}: ${titles.join(', ')}`,
      ).toBe(true);
      expect(order, name).toEqual([...order].sort((a, b) => a - b));
      // One column for every description, whatever the group; no line ends in a space.
      const lines = [...sections.values()].flatMap((section) => section.lines);
      const columns = new Set(lines.map((line) => /^ {2}\S.*?\S {2,}(?=\S)/.exec(line)![0].length));
      expect(columns.size, name).toBe(1);
      expect(
        lines.filter((line) => line.endsWith(' ')),
        name,
      ).toEqual([]);
    }
  });

  it('R-8.1: the top-level help still lists the commands, unchanged by the grouping', async () => {
    const result = await runCli(['--help']);
    expect(result.stdout).toContain('Commands:');
    expect(result.stdout).toContain('Without a command:');
    expect(result.stdout).toMatch(/Options:\n {2}-h, --help +Display this message *\n {2}-v, --version/);
  });

  it('issue 37 §3: every flag that takes a value says what goes there (`<file>`, `<ms>`, `<on|off>` …), never `<value>`', async () => {
    for (const name of NAMED) {
      const { text } = await helpOf(name);
      expect(
        text.split('\n').filter((line) => /^ {2}(?:-\w, )?--[\w-]+ <value>/.test(line)),
        name,
      ).toEqual([]);
    }
    expect((await helpOf('proxy')).text).toMatch(/^ {2}--report-file <file> /m);
    expect((await helpOf('trial')).text).toMatch(/^ {2}--runs <n> /m);
  });

  it('the top-level help lists every command a user runs, each on one line of at most 80 columns; trial-relay (internal) is not listed and still runs', async () => {
    const result = await runCli(['--help']);
    const commands = /Commands:\n((?: {2}.*\n?)+)/.exec(result.stdout)![1]!.trimEnd().split('\n');
    expect(commands.map((line) => line.trim().split(/\s/)[0])).toEqual(NAMED.filter((name) => name !== 'trial-relay'));
    for (const line of result.stdout.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(result.stdout).not.toContain('trial-relay');
    const relay = await runCli(['trial-relay', '--help']);
    expect(relay.code).toBe(0);
    expect(relay.stdout).toContain('trial-relay <url>');
  });
});
