/**
 * Reading the command line (`src/cli/argv.ts`): `node:util` `parseArgs` tokenises it; the project's own
 * rules sit on top: values stay the strings typed, a value beginning with `--` is taken only when
 * written `--flag=--value`, an unknown flag is refused before cac sees it, help and version win over a
 * missing value.
 */
import { describe, expect, it } from 'vitest';
import { readArgv } from '../../src/cli/argv.js';

const VALUE_FLAGS = new Set(['upstream-arg', 'runs', 'scenario']);
const SWITCHES = new Set(['force', 'help', 'version']);
const read = (...argv: string[]) => readArgv(argv, VALUE_FLAGS, SWITCHES);

describe('readArgv (R-8.1)', () => {
  it('R-8.1: --flag value and --flag=value alike, repeated values in order, numbers kept as typed', () => {
    const { values, forDispatch } = read('proxy', '--runs', '007', '--upstream-arg=1e3', '--upstream-arg', '-y');
    expect(values).toEqual({ runs: ['007'], 'upstream-arg': ['1e3', '-y'] });
    expect(forDispatch).toEqual(['proxy', '--runs=007', '--upstream-arg=1e3', '--upstream-arg=-y']);
  });

  it('R-8.1: a value beginning with -- is taken only as --flag=--value', () => {
    expect(read('--upstream-arg=--stdio').values).toEqual({ 'upstream-arg': ['--stdio'] });
    expect(() => read('--upstream-arg', '--stdio')).toThrow(
      'flag --upstream-arg needs a value (write --upstream-arg=<value>; a value beginning with -- must be written --upstream-arg=--value)',
    );
    expect(() => read('--scenario', 'F1', '--runs')).toThrow('flag --runs needs a value');
  });

  it('R-8.1: an unknown flag is refused, names of Object.prototype included, and pollutes nothing', () => {
    expect(() => read('--runs', '1', '--rnus', '2')).toThrow('unknown flag --rnus; see --help');
    // Read for one command: the refusal names it.
    expect(() => readArgv(['proxy', '--rnus', '2'], VALUE_FLAGS, SWITCHES, 'proxy')).toThrow(
      'unknown flag --rnus for proxy; see proxy --help',
    );
    expect(() => read('--__proto__=x')).toThrow('unknown flag --__proto__');
    expect(() => read('--constructor', 'x')).toThrow('unknown flag --constructor');
  });

  it('help and version win over a missing value; -h after a value flag is its value', () => {
    expect(read('--runs', '--help').forDispatch).toEqual(['--runs', '--help']);
    expect(read('--runs', '--version').forDispatch).toEqual(['--runs', '--version']);
    expect(read('proxy', '-h', '--runs').forDispatch).toEqual(['proxy', '-h', '--runs']);
    expect(() => read('--runs', '--rnus')).toThrow('flag --runs needs a value');
    expect(read('--upstream-arg', '-h').values).toEqual({ 'upstream-arg': ['-h'] });
  });

  it('switches take no value; words after -- are positionals, passed on as typed', () => {
    expect(read('init', '--force').values).toEqual({ force: [] });
    const { values, forDispatch } = read('compare', 'a', '--', 'b', '--runs');
    expect(values).toEqual({});
    expect(forDispatch).toEqual(['compare', 'a', '--', 'b', '--runs']);
  });
});
