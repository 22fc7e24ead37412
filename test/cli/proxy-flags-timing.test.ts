/** the flags: --fault-tool, --fault-on, --latency, --hold — opt-in, strictly validated. */
import { describe, expect, it } from 'vitest';
import { readArgv } from '../../src/cli/argv.js';
import { parseProxyFlags, PROXY_FLAGS } from '../../src/cli/proxy-flags.js';
import { runCli as runMain } from '../support/in-process-cli.js';

const VALUE_FLAGS = new Set(PROXY_FLAGS);
const parse = (...argv: string[]) =>
  parseProxyFlags(readArgv(['--upstream-command', 'n', ...argv], VALUE_FLAGS, new Set()).values);

const run = (...argv: string[]) => runMain(['proxy', '--upstream-command', 'node', ...argv]);

describe('timing and aim flags', () => {
  it('without the new flags the scenario is exactly as before (defaults unchanged)', () => {
    expect(parse('--scenario', 'F1').scenario).toEqual({ mode: 'scenario', id: 'F1' });
    expect(parse().scenario).toEqual({ mode: 'none' });
  });

  it('--fault-tool (comma-separated globs) and --fault-on make the aim; --latency MS[:JITTER]; --hold for F1', () => {
    expect(
      parse('--scenario', 'F1', '--fault-tool', 'pay_*,refund_*', '--fault-on', '2', '--latency', '100:20', '--hold', '5000')
        .scenario,
    ).toEqual({
      mode: 'scenario',
      id: 'F1',
      aim: { tools: ['pay_*', 'refund_*'], on: 2 },
      latency: { ms: 100, jitterMs: 20 },
      holdMs: 5000,
    });
    expect(parse('--scenario', 'F2', '--fault-on', '3').scenario).toMatchObject({ aim: { tools: null, on: 3 } });
    expect(parse('--scenario', 'F6', '--land-after', '1500').scenario).toMatchObject({
      id: 'F6',
      parameters: { landAfterMs: 1500 },
    });
    // aimed like any scenario.
    expect(parse('--scenario', 'F6', '--fault-tool', 'pay_*', '--fault-on', '2').scenario).toEqual({
      mode: 'scenario',
      id: 'F6',
      aim: { tools: ['pay_*'], on: 2 },
    });
    expect(parse('--scenario', 'f7', '--fault-tool', 'pay_*', '--fault-on', '2').scenario).toEqual({
      mode: 'scenario',
      id: 'F7',
      aim: { tools: ['pay_*'], on: 2 },
    });
    expect(parse('--latency', '40').scenario).toEqual({ mode: 'none', latency: { ms: 40, jitterMs: 0 } });
    expect(parse('--mode', 'chaos', '--error-rate', '0.5', '--fault-tool', 'get_*', '--latency', '0').scenario).toMatchObject({
      mode: 'chaos',
      aim: { tools: ['get_*'], on: 1 },
      latency: { ms: 0, jitterMs: 0 },
    });
  });

  it('R-8.1: --seed is valid with --latency (it seeds the jitter)', () => {
    expect(parse('--latency', '100:50', '--seed', '7').seed).toBe(7);
  });

  const refused: Array<[string[], RegExp]> = [
    [['--latency', '-5'], /^flag --latency must be an integer from 0 to 3600000, got "-5"$/],
    [['--latency', '1.5'], /^flag --latency must be an integer/],
    [['--latency', '100:-1'], /^flag --latency \(jitter\) must be an integer/],
    [['--latency', '100:2.5'], /^flag --latency \(jitter\) must be an integer/],
    [['--latency', '10:20'], /^flag --latency: the jitter \(20 ms\) must not exceed the latency \(10 ms\)/],
    [['--latency', '1:2:3'], /^flag --latency must be MS or MS:JITTER_MS/],
    [['--latency', ''], /^flag --latency/],
    [['--scenario', 'F1', '--hold', '-1'], /^flag --hold must be an integer from 1 to 3600000, got "-1"$/],
    [['--scenario', 'F1', '--hold', '2.5'], /^flag --hold must be an integer/],
    [['--scenario', 'F1', '--hold', '0'], /^flag --hold must be an integer from 1/],
    [['--hold', '5000'], /^--hold is for --scenario F1 only/],
    [['--scenario', 'F5', '--hold', '5000'], /^--hold is for --scenario F1 only/],
    [['--scenario', 'F7', '--hold', '5000'], /^--hold is for --scenario F1 only/],
    [['--scenario', 'F6', '--hold', '5000'], /^--hold is for --scenario F1 only/],
    [['--scenario', 'F6', '--land-after', '0'], /^flag --land-after must be an integer from 1 to 600000, got "0"$/],
    [['--scenario', 'F6', '--land-after', '600001'], /^flag --land-after must be an integer from 1 to 600000, got "600001"$/],
    [['--scenario', 'F6', '--land-after', '1.5'], /^flag --land-after must be an integer from 1 to 600000, got "1.5"$/],
    [['--scenario', 'F1', '--land-after', '5'], /^--land-after is for --scenario F6 only$/],
    [['--scenario', 'F7', '--mode', 'chaos', '--error-rate', '0.5'], /cannot be combined/],
    [['--scenario', 'F6', '--mode', 'chaos', '--error-rate', '0.5'], /cannot be combined/],
    [['--mode', 'chaos', '--error-rate', '0.5', '--land-after', '100'], /^--land-after is for --scenario F6 only$/],
    [['--land-after', '100'], /^--land-after is for --scenario F6 only$/],
    [['--scenario', 'F1', '--fault-on', '0'], /^flag --fault-on must be an integer from 1 to 1000000, got "0"$/],
    [['--scenario', 'F1', '--fault-on', '1.5'], /^flag --fault-on must be an integer/],
    [['--fault-on', '2'], /^--fault-on is for a deterministic --scenario \(no scenario given\)$/],
    [
      ['--mode', 'chaos', '--error-rate', '0.1', '--fault-on', '2'],
      /^--fault-on is for a deterministic --scenario \(chaos picks calls by chance\)$/,
    ],
    [['--fault-tool', 'pay_*'], /^--fault-tool aims a fault: give --scenario or --mode chaos too$/],
    [['--scenario', 'F1', '--fault-tool', ''], /fault-tool/],
  ];
  for (const [argv, message] of refused) {
    it(`${argv.join(' ')} is refused with one clear line`, () => {
      expect(() => parse(...argv)).toThrow(message);
    });
  }

  it('bad input through the CLI: one line on stderr, exit 1, no stack trace', async () => {
    for (const argv of [
      ['--latency', '-5'],
      ['--hold', '5000'],
      ['--scenario', 'F1', '--fault-on', '0'],
      ['--latency', '2.5'],
    ]) {
      const { code, stderr } = await run(...argv);
      expect(code).toBe(1);
      expect(stderr.trim().split('\n')).toHaveLength(1);
      expect(stderr).not.toMatch(/\bat .*\.js:\d+/);
    }
  });
});
