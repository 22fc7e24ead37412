import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { flagValues, normaliseArgv } from '../../src/cli/argv.js';
import { main } from '../../src/cli/main.js';
import { parseProxyFlags, PROXY_VALUE_FLAGS } from '../../src/cli/proxy-flags.js';

const VALUE_FLAGS = new Set(PROXY_VALUE_FLAGS);
const parse = (...argv: string[]) => parseProxyFlags(flagValues(normaliseArgv(argv, VALUE_FLAGS)));

/** Runs the CLI in-process and returns its exit code and stderr. */
async function run(...argv: string[]): Promise<{ code: number; stderr: string }> {
  const stderr = new PassThrough();
  let text = '';
  stderr.on('data', (c: Buffer) => (text += c.toString()));
  const code = await main(argv, {
    stdin: new PassThrough(), stdout: new PassThrough(), stderr, env: {}, cwd: process.cwd(), onSignal: () => () => undefined,
  });
  return { code, stderr: text };
}

describe('R-8.1 proxy flags', () => {
  it('R-8.1: --flag value and --flag=value both work; --upstream-args come before --upstream-arg values', () => {
    const flags = parse('--upstream-command', 'node', '--upstream-arg', 'b,c', '--upstream-args=x,y', '--scenario=f2', '--retry-after', '5');
    expect(flags.upstreamArgs).toEqual(['x', 'y', 'b,c']);
    expect(flags.scenario).toEqual({ mode: 'scenario', id: 'F2', retryAfterSeconds: 5 });
  });

  it('R-8.1: a value beginning with a single dash is a value; one beginning with -- only as --flag=--value', () => {
    expect(parse('--upstream-command', 'npx', '--upstream-arg', '-y', '--upstream-arg=--stdio').upstreamArgs).toEqual(['-y', '--stdio']);
    expect(() => parse('--upstream-command', '--scenario', 'F1')).toThrow(/--upstream-command needs a value/);
  });

  it('R-8.1: values stay exactly as typed (no number conversion)', () => {
    expect(parse('--upstream-command', 'node', '--upstream-arg', '007', '--upstream-arg', '1e3').upstreamArgs).toEqual(['007', '1e3']);
  });

  it('R-8.1: environment flags: --upstream-env list, --upstream-env-var with commas and =, the latter wins', () => {
    const flags = parse('--upstream-command', 'n', '--upstream-env', 'A=1,B=2', '--upstream-env-var', 'B=x,y=z');
    expect(flags.upstreamEnv).toEqual({ A: '1', B: 'x,y=z' });
  });

  it.each([
    [['--scenario', 'F1'], /--upstream-command is required/],
    [['--upstream-command', 'n', '--scenario', 'F6'], /--scenario must be one of/],
    [['--upstream-command', 'n', '--scenario='], /non-empty value/],
    [['--upstream-command', 'n', '--scenario', 'F1', '--mode', 'chaos'], /cannot be combined/],
    [['--upstream-command', 'n', '--error-rate', '0.5'], /chaos only/],
    [['--upstream-command', 'n', '--mode', 'chaos'], /needs --error-rate/],
    [['--upstream-command', 'n', '--mode', 'chaos', '--error-rate', '1.5'], /from 0 to 1/],
    [['--upstream-command', 'n', '--mode', 'fast'], /deterministic or chaos/],
    [['--upstream-command', 'n', '--retry-after', '5'], /F2 only/],
    [['--upstream-command', 'n', '--scenario', 'F2', '--retry-after', '86401'], /1 to 86400/],
    [['--upstream-command', 'n', '--scenario', 'F2', '--retry-after', '1e2'], /integer/],
    [['--upstream-command', 'n', '--audit-tools', 'maybe'], /on or off/],
    [['--upstream-command', 'n', '--scenario', 'F1', '--scenario', 'F2'], /given 2 times/],
    [['--upstream-command', 'n', '--upstream-env-var', 'NOVALUE'], /KEY=VALUE/],
    [['--upstream-command', 'n', '--write-tools', 'a,,b'], /empty item/],
    [['--upstream-command', 'n', '--log-level', 'loud'], /--log-level/],
  ])('R-8.1: %j is refused with a clear message', (argv, message) => {
    expect(() => parse(...argv)).toThrow(message);
  });

  it('R-8.1: --audit-tools is case-insensitive', () => {
    expect(parse('--upstream-command', 'n', '--audit-tools', 'OFF').auditTools).toBe(false);
    expect(parse('--upstream-command', 'n', '--audit-tools', 'On').auditTools).toBe(true);
  });

  it('R-8.1/R-8.9: the CLI prints one line and exits 1 on unknown flags, even --constructor and --__proto__', async () => {
    for (const flag of ['--bogus', '--constructor', '--__proto__=1']) {
      const { code, stderr } = await run('proxy', '--upstream-command', 'n', flag);
      expect(code).toBe(1);
      expect(stderr.trim().split('\n')).toHaveLength(1);
      expect(stderr).toMatch(/^\[cuonztech-agent-harness\] error: unknown flag/);
      expect(({} as Record<string, unknown>)['constructor']).toBe(Object);
    }
  });

  it('R-8.9: an unknown command exits 1', async () => {
    expect((await run('frobnicate')).code).toBe(1);
  });
});
