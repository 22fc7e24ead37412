import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isLoopbackHost } from '../../src/adapters/http-agent/index.js';
import { DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_TIMEOUT_MS } from '../../src/adapters/http-agent/session-limits.js';
import { listenWarning } from '../../src/cli/listen-warning.js';
import { readArgv } from '../../src/cli/argv.js';
import { parseProxyFlags, PROXY_FLAGS } from '../../src/cli/proxy-flags.js';
import { runCli as runMain } from '../support/in-process-cli.js';

const VALUE_FLAGS = new Set(PROXY_FLAGS);
const parse = (...argv: string[]) => parseProxyFlags(readArgv(argv, VALUE_FLAGS, new Set()).values);

const run = (...argv: string[]) => runMain(argv);

describe('R-8.1 proxy flags', () => {
  it('R-8.1: --flag value and --flag=value both work; --upstream-args come before --upstream-arg values', () => {
    const flags = parse(
      '--upstream-command',
      'node',
      '--upstream-arg',
      'b,c',
      '--upstream-args=x,y',
      '--scenario=f2',
      '--retry-after',
      '5',
    );
    expect(flags.upstreamArgs).toEqual(['x', 'y', 'b,c']);
    expect(flags.scenario).toEqual({ mode: 'scenario', id: 'F2', parameters: { retryAfterSeconds: 5 } });
  });

  it('R-8.1: a value beginning with a single dash is a value; one beginning with -- only as --flag=--value', () => {
    expect(parse('--upstream-command', 'npx', '--upstream-arg', '-y', '--upstream-arg=--stdio').upstreamArgs).toEqual([
      '-y',
      '--stdio',
    ]);
    expect(() => parse('--upstream-command', '--scenario', 'F1')).toThrow(/--upstream-command needs a value/);
  });

  it('R-8.1: values stay exactly as typed (no number conversion)', () => {
    expect(parse('--upstream-command', 'node', '--upstream-arg', '007', '--upstream-arg', '1e3').upstreamArgs).toEqual([
      '007',
      '1e3',
    ]);
  });

  it('R-8.1: environment flags: --upstream-env list, --upstream-env-var with commas and =, the latter wins', () => {
    const flags = parse('--upstream-command', 'n', '--upstream-env', 'A=1,B=2', '--upstream-env-var', 'B=x,y=z');
    expect(flags.upstreamEnv).toEqual({ A: '1', B: 'x,y=z' });
  });

  it.each([
    [['--scenario', 'F1'], /--upstream-command is required/],
    [['--upstream-command', 'n', '--scenario', 'F8'], /--scenario must be one of/],
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
    [['--upstream-command', 'n', '--scenario', 'F1', '--scenarios', 'F1'], /give --scenario or --scenarios, not both/],
    [['--upstream-command', 'n', '--scenarios', 'F1,F3'], /the proxy runs one scenario per start.*trial --scenarios/],
    [['--upstream-command', 'n', '--scenarios', 'F9'], /must be one of/],
    [['--upstream-command', 'n', '--upstream-env-var', 'NOVALUE'], /KEY=VALUE/],
    [['--upstream-command', 'n', '--write-tools', 'a,,b'], /empty item/],
    [['--upstream-command', 'n', '--log-level', 'loud'], /--log-level/],
  ])('R-8.1: %j is refused with a clear message', (argv, message) => {
    expect(() => parse(...argv)).toThrow(message);
  });

  it('issue 37 §3: --scenarios with one id is --scenario (the name benchmark and trial take), its parameters included', () => {
    const bySingle = parse('--upstream-command', 'n', '--scenario', 'F2', '--retry-after', '7').scenario;
    const byList = parse('--upstream-command', 'n', '--scenarios', 'f2', '--retry-after', '7').scenario;
    expect(byList).toEqual(bySingle);
    expect(byList).toEqual({ mode: 'scenario', id: 'F2', parameters: expect.any(Object) });
  });

  it('R-8.3.1: --idempotent-hint honour (default) or ignore, case-insensitive; anything else is one line and exit 1', async () => {
    expect(parse('--upstream-command', 'n').idempotentHint).toBe('honour');
    expect(parse('--upstream-command', 'n', '--idempotent-hint', 'IGNORE').idempotentHint).toBe('ignore');
    expect(parse('--upstream-command', 'n', '--idempotent-hint=honour').idempotentHint).toBe('honour');
    const { code, stderr } = await run('proxy', '--upstream-command', 'n', '--idempotent-hint', 'trust');
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toContain('--idempotent-hint must be honour or ignore, got "trust"');
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

  it("R-8.1: a flag of another command is refused as typed, naming the command (not cac's camelCase)", async () => {
    for (const [flag, typed] of [
      ['--live-upstream', '--live-upstream'],
      ['--force', '--force'],
    ]) {
      const { code, stderr } = await run('proxy', '--upstream-command', 'n', flag!);
      expect(code).toBe(1);
      expect(stderr.trim().split('\n')).toHaveLength(1);
      expect(stderr.trim()).toBe(`[cuonztech-agent-harness] error: unknown flag ${typed} for proxy; see proxy --help`);
    }
  });

  it('R-8.9: an unknown command exits 1', async () => {
    expect((await run('frobnicate')).code).toBe(1);
  });
});

describe('CLI friction', () => {
  it('R-8.1: --seed without anything random to seed is refused like --error-rate outside chaos; with chaos it is kept', () => {
    expect(() => parse('--upstream-command', 'n', '--seed', '42')).toThrow(
      /^--seed seeds nothing here: it is for --mode chaos or --latency$/,
    );
    expect(() => parse('--upstream-command', 'n', '--scenario', 'F1', '--seed', '42')).toThrow(/--seed seeds nothing/);
    expect(parse('--upstream-command', 'n', '--mode', 'chaos', '--error-rate', '0.5', '--seed', '42').seed).toBe(42);
  });

  it('R-8.1: --listen without --report-dir is refused (the verdicts would be written nowhere)', () => {
    expect(() => parse('--upstream-command', 'n', '--listen', '127.0.0.1:0')).toThrow(/^--listen needs --report-dir <folder>/);
    expect(parse('--upstream-command', 'n', '--listen', '127.0.0.1:0', '--report-dir', 'out').listen).toBe('127.0.0.1:0');
  });

  it("R-8.1: --max-sessions and --session-idle-timeout: the agent side's defaults (100 sessions, 30 min), bounds, --listen only", () => {
    const listen = ['--upstream-command', 'n', '--listen', ':0', '--report-dir', 'out'];
    expect(parse(...listen)).toMatchObject({
      maxSessions: DEFAULT_MAX_SESSIONS,
      sessionIdleTimeoutMs: DEFAULT_SESSION_IDLE_TIMEOUT_MS,
    });
    expect([DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_TIMEOUT_MS]).toEqual([100, 1_800_000]);
    expect(parse(...listen, '--max-sessions', '7', '--session-idle-timeout', '0.5')).toMatchObject({
      maxSessions: 7,
      sessionIdleTimeoutMs: 500,
    });
    expect(() => parse(...listen, '--max-sessions', '0')).toThrow(/--max-sessions must be an integer from 1 to 10000/);
    expect(() => parse(...listen, '--max-sessions', '2.5')).toThrow(/--max-sessions must be an integer/);
    expect(() => parse(...listen, '--session-idle-timeout', '0')).toThrow(
      /--session-idle-timeout must be a number from 0.001 to 86400/,
    );
    expect(() => parse('--upstream-command', 'n', '--max-sessions', '5')).toThrow(/^--max-sessions is for --listen only$/);
    expect(() => parse('--upstream-command', 'n', '--session-idle-timeout', '5')).toThrow(
      /^--session-idle-timeout is for --listen only$/,
    );
  });

  it.each([
    [
      ['proxy', '--upstream-command', 'n', 'extra-arg'],
      /^\[cuonztech-agent-harness\] error: proxy takes no positional arguments, got "extra-arg"/,
    ],
    [['proxy', 'extra-arg', '--upstream-command', 'n'], /proxy takes no positional arguments, got "extra-arg"/],
    [['proxy', '--upstream-command', 'n', '--', 'after-dashes'], /proxy takes no positional arguments, got "after-dashes"/],
    [['benchmark', 'F1'], /benchmark takes no positional arguments, got "F1"/],
    [['frobnicate'], /unknown command "frobnicate"; commands: proxy, benchmark/],
  ])('R-8.9: stray positional arguments are refused for every command: %j → exit 1, one line', async (argv, message) => {
    const { code, stderr } = await run(...argv);
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(message);
  });

  it('R-8.1: the top-level --help lists no command with an empty name; the demo server has its own line', async () => {
    const result = await run('--help');
    expect(result.code).toBe(0);
    const help = result.stdout;
    const commands = help.split('Commands:\n')[1]!.split('\n\n')[0]!.split('\n');
    const names = commands.map((line) => line.trim().split(/\s+/)[0]);
    expect(names.slice(0, 2)).toEqual(['proxy', 'benchmark']);
    for (const name of names) expect(name).toMatch(/^[a-z][a-z-]*$/);
    expect(help).toMatch(/Usage:\n {2}\$ cuonztech-agent-harness <command> \[options\]/);
    expect(help).toMatch(/Without a command:\n {2}\$ cuonztech-agent-harness\n {4}Demo MCP server on stdio/);
    expect(help).not.toMatch(/^\s*\$ cuonztech-agent-harness --help$/m);
  });

  it('a non-loopback --listen gets a warning; loopback binds do not', () => {
    for (const host of ['127.0.0.1', 'localhost', '::1', '127.1.2.3'])
      expect(listenWarning(`${host}:0`, isLoopbackHost(host))).toBeUndefined();
    for (const host of ['0.0.0.0', '::', '192.168.1.5', 'myhost.example']) {
      expect(listenWarning(`${host}:3000`, isLoopbackHost(host))).toMatch(
        /^WARNING: --listen \S+:3000 is reachable from other machines\. The proxy has no authentication/,
      );
    }
  });
});

describe('proxy --journal flags', () => {
  it('--journal FILE, --journal-payloads on|off (off by default, only with --journal), its own file', () => {
    expect(parse('--upstream-command', 'n', '--journal', 'j.jsonl')).toMatchObject({
      journal: 'j.jsonl',
      journalPayloads: false,
    });
    expect(parse('--upstream-command', 'n', '--journal', 'j.jsonl', '--journal-payloads', 'ON')).toMatchObject({
      journalPayloads: true,
    });
    expect(() => parse('--upstream-command', 'n', '--journal-payloads', 'on')).toThrow('--journal-payloads is for --journal');
    expect(() => parse('--upstream-command', 'n', '--journal', 'j', '--journal-payloads', 'yes')).toThrow(
      'flag --journal-payloads must be on or off, got "yes"',
    );
    expect(() => parse('--upstream-command', 'n', '--journal', 'r.json', '--report-file', 'r.json')).toThrow(
      '--journal must name its own file',
    );
    expect(() =>
      parse('--upstream-command', 'n', '--journal', './h.html', '--report-file', 'r.json', '--report-html', 'h.html'),
    ).toThrow('--journal must name its own file');
  });

  it('R-8.9: --report-html naming the report file is refused at start-up, not found out at exit after the session', () => {
    for (const html of ['r.json', './r.json', 'out/../r.json'])
      expect(() => parse('--upstream-command', 'n', '--report-file', 'r.json', '--report-html', html)).toThrow(
        '--report-html must name its own file: it would replace the report file it is built from',
      );
    expect(parse('--upstream-command', 'n', '--report-file', 'r.json', '--report-html', 'r.html')).toMatchObject({
      reportHtml: 'r.html',
    });
  });
});

describe('proxy --journal: the report file by a link', () => {
  it('R-9.4: --report-file a link to the --journal file → one line, exit 1, the file untouched', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'harness-journal-link-'));
    try {
      writeFileSync(join(dir, 'r.json'), '{}\n');
      symlinkSync('r.json', join(dir, 'link.json'));
      const counting = join(fileURLToPath(new URL('../../e2e/fixtures/', import.meta.url)), 'counting-server.mjs');
      const upstream = ['--upstream-command', process.execPath, '--upstream-arg', counting];
      const result = await runMain(['proxy', ...upstream, '--report-file', 'link.json', '--journal', 'r.json'], { cwd: dir });
      expect(result.code).toBe(1);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toContain('journal file is the same file as');
      expect(readFileSync(join(dir, 'r.json'), 'utf8')).toBe('{}\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
