/**
 * The `proxy` command line through `main(argv, io)` in-process: every invalid
 * invocation ends with exit 1 and ONE line on stderr (no stack trace), and the accepted forms really
 * reach the upstream, a real process (`argv-echo.mjs` answers with its own argv, cwd and environment; the
 * counting fixture keeps a ledger). `e2e/proxy-cli.e2e.test.ts` keeps one spawned check per family.
 */
import { existsSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { HARNESS_VERSION } from '../../src/version.js';
import {
  COUNTING as UPSTREAM,
  FIXTURES,
  ROOT,
  runCli,
  startCliProxy,
  textOf,
  type CliProxy,
  type CliResult,
} from '../support/h4-in-process-cli.js';

const COUNTING_SERVER = join(FIXTURES, 'counting-server.mjs');
const ARGV_ECHO = join(FIXTURES, 'argv-echo.mjs');
const PREFIX = '[cuonztech-agent-harness] error:';

/** Exit 1, nothing on stdout, exactly one stderr line with the error prefix, no stack trace. */
function expectOneLineError(result: CliResult, pattern: RegExp): void {
  expect(result.code, result.stderr).toBe(1);
  expect(result.stdout).toBe('');
  const lines = result.stderr.split('\n').filter((line) => line !== '');
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]!.startsWith(PREFIX)).toBe(true);
  expect(lines[0]).toMatch(pattern);
  expect(result.stderr).not.toMatch(/^\s+at /m);
}

interface ProcessInfo {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
}

async function processInfo(run: CliProxy): Promise<ProcessInfo> {
  return JSON.parse(textOf(await run.call('get_process_info'))) as ProcessInfo;
}

/** Proxy flags with node as the upstream command, then `rest`. */
const echoFlags = (...rest: string[]): string[] => ['--upstream-command', process.execPath, ...rest];

describe('R-8.1 / R-8.9: invalid invocations end with exit 1 and one clear line (in-process)', () => {
  const cases: Array<[string, string[], RegExp]> = [
    ['missing --upstream-command', ['proxy', '--scenario', 'F1'], /--upstream-command is required/],
    ['unknown flag', ['proxy', ...UPSTREAM, '--bogus-flag', 'x'], /unknown (option|flag).*bogus/i],
    ['unknown short flag', ['proxy', ...UPSTREAM, '-x'], /-x/],
    ['bad --scenario value', ['proxy', ...UPSTREAM, '--scenario', 'F9'], /--scenario.*F9/],
    ['--scenario as the last token (no value)', ['proxy', ...UPSTREAM, '--scenario'], /--scenario needs a value/],
    [
      'a value beginning with -- is never a value',
      ['proxy', '--upstream-command', '--scenario', 'F1'],
      /--upstream-command needs a value/,
    ],
    ['--upstream-arg followed by a flag', ['proxy', ...UPSTREAM, '--upstream-arg', '--stdio'], /--upstream-arg needs a value/],
    [
      '--scenario with --mode chaos',
      ['proxy', ...UPSTREAM, '--scenario', 'F1', '--mode', 'chaos', '--error-rate', '0.5'],
      /--scenario.*chaos/,
    ],
    ['--error-rate without chaos', ['proxy', ...UPSTREAM, '--error-rate', '0.5'], /--error-rate.*chaos/],
    ['chaos without --error-rate', ['proxy', ...UPSTREAM, '--mode', 'chaos'], /chaos needs --error-rate/],
    ['--error-rate above 1', ['proxy', ...UPSTREAM, '--mode', 'chaos', '--error-rate', '1.5'], /--error-rate.*1\.5/],
    ['--retry-after without F2', ['proxy', ...UPSTREAM, '--scenario', 'F1', '--retry-after', '10'], /--retry-after.*F2/],
    ['--retry-after without any scenario', ['proxy', ...UPSTREAM, '--retry-after', '10'], /--retry-after.*F2/],
    ['--retry-after above 86400', ['proxy', ...UPSTREAM, '--scenario', 'F2', '--retry-after', '86401'], /--retry-after.*86400/],
    ['--audit-tools maybe', ['proxy', ...UPSTREAM, '--audit-tools', 'maybe'], /--audit-tools.*on or off/],
    ['--mode fast', ['proxy', ...UPSTREAM, '--mode', 'fast'], /--mode.*fast/],
    ['a non-repeatable flag given twice', ['proxy', ...UPSTREAM, '--scenario', 'F1', '--scenario', 'F2'], /--scenario.*2 times/],
    ['--upstream-env-var without =', ['proxy', ...UPSTREAM, '--upstream-env-var', 'NOVALUE'], /--upstream-env-var.*KEY=VALUE/],
    ['--upstream-env with an empty item', ['proxy', ...UPSTREAM, '--upstream-env', 'A=1,,B=2'], /--upstream-env.*empty item/],
    ['--report-file /dev/null', ['proxy', ...UPSTREAM, '--report-file', '/dev/null'], /report file.*\/dev\/null.*device/],
    ['--report-file a folder', ['proxy', ...UPSTREAM, '--report-file', ROOT], /report file.*folder/],
    [
      '--report-file in a missing folder',
      ['proxy', ...UPSTREAM, '--report-file', '/nonexistent-e2e/dir/r.json'],
      /report file folder does not exist/,
    ],
    [
      '--upstream-cwd a missing folder',
      ['proxy', ...UPSTREAM, '--upstream-cwd', '/nonexistent-e2e/dir'],
      /upstream did not start/,
    ],
    ['unknown command', ['frobnicate'], /unknown command "frobnicate"/],
    // cac/mri would read an empty value as the string "true" (`--upstream-command=` would run `true`).
    ['an empty value (--scenario=)', ['proxy', ...UPSTREAM, '--scenario='], /--scenario.*(empty|needs a)/],
    ['an empty value (--scenario "")', ['proxy', ...UPSTREAM, '--scenario', ''], /--scenario.*(empty|needs a)/],
    ['an empty value (--upstream-command=)', ['proxy', '--upstream-command='], /--upstream-command.*(empty|needs a)/],
    ['an empty value (--upstream-arg "")', ['proxy', ...UPSTREAM, '--upstream-arg', ''], /--upstream-arg.*(empty|needs a)/],
    // issue 11: friction a new user met.
    [
      '--seed without chaos (it would seed nothing)',
      ['proxy', ...UPSTREAM, '--scenario', 'F1', '--seed', '7'],
      /--seed seeds nothing here: it is for --mode chaos/,
    ],
    [
      'a stray positional argument (proxy extra-arg)',
      ['proxy', 'extra-arg', ...UPSTREAM],
      /proxy takes no positional arguments, got "extra-arg"/,
    ],
    ['a stray argument after the flags', ['proxy', ...UPSTREAM, 'F1'], /proxy takes no positional arguments, got "F1"/],
    ['--listen without --report-dir', ['proxy', ...UPSTREAM, '--listen', '127.0.0.1:0'], /--listen needs --report-dir/],
    ['--max-sessions without --listen', ['proxy', ...UPSTREAM, '--max-sessions', '5'], /--max-sessions is for --listen only/],
    [
      '--session-idle-timeout 0',
      ['proxy', ...UPSTREAM, '--listen', ':0', '--report-dir', '/tmp', '--session-idle-timeout', '0'],
      /--session-idle-timeout must be a number/,
    ],
  ];
  for (const [name, args, pattern] of cases) {
    it(`R-8.1: ${name} → exit 1, one line, no stack trace`, async () => {
      expectOneLineError(await runCli(args), pattern);
    });
  }
});

describe('R-8.1: --version and --help (in-process)', () => {
  it('R-8.1: --version prints the version of package.json, exit 0', async () => {
    const result = await runCli(['--version']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(HARNESS_VERSION);
  });

  it('R-8.1: --help shows usage with the commands, exit 0; no command is listed with an empty name (issue 11)', async () => {
    const result = await runCli(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Usage/);
    const commands = result.stdout.split('Commands:\n')[1]!.split('\n\n')[0]!.split('\n');
    // Each line: two spaces, the command's name (its arguments may follow), two or more spaces, its summary.
    const names = commands.map((line) => /^ {2}([a-z][a-z-]*)(?= )[^\n]*? {2,}\S/.exec(line)?.[1]);
    expect(names.slice(0, 2)).toEqual(['proxy', 'benchmark']);
    expect(names).toEqual(expect.arrayContaining(['check']));
    for (const name of names) expect(name).toMatch(/^[a-z][a-z-]*$/);
    expect(result.stdout).toMatch(/Without a command:\n {2}\$ cuonztech-agent-harness\n {4}Demo MCP server/);
  });

  it('R-8.1: proxy --help shows the proxy flags, exit 0', async () => {
    const result = await runCli(['proxy', '--help']);
    expect(result.code).toBe(0);
    for (const flag of ['--upstream-command', '--upstream-arg', '--scenario', '--mode', '--audit-tools', '--report-file'])
      expect(result.stdout).toContain(flag);
  });
});

describe('R-8.1 / R-8.7: accepted forms reach the upstream (in-process proxy, real upstream process)', () => {
  it('R-8.1: --scenario=F1 (equals form) and --scenario F1 (space form) both select F1', async () => {
    for (const form of [['--scenario=F1'], ['--scenario', 'F1']]) {
      const run = await startCliProxy([...UPSTREAM, ...form]);
      try {
        await run.call('get_order', { order_id: 'o-1' }); // the report is written before this answer
        expect(run.report()['report']).toMatchObject({ scenario: { id: 'F1' } });
      } finally {
        expect(await run.stop()).toBe(0);
      }
    }
  });

  it('R-8.1: --upstream-arg=--stdio, --upstream-arg -y reach the upstream as values; --upstream-args a,b goes before the --upstream-arg values, which keep their commas', async () => {
    const run = await startCliProxy(
      echoFlags('--upstream-arg', 'c,d', '--upstream-args', `${ARGV_ECHO},a,b`, '--upstream-arg=--stdio', '--upstream-arg', '-y'),
    );
    try {
      expect((await processInfo(run)).argv).toEqual(['a', 'b', 'c,d', '--stdio', '-y']);
    } finally {
      await run.stop();
    }
  });

  it('R-8.1: --audit-tools is case-insensitive (ON lists the audit tools, Off hides them)', async () => {
    const on = await startCliProxy([...UPSTREAM, '--audit-tools', 'ON']);
    try {
      expect((await on.client.listTools()).tools.map((t) => t.name)).toContain('cuonztech__get_report');
    } finally {
      await on.stop();
    }
    const off = await startCliProxy([...UPSTREAM, '--audit-tools=Off']);
    try {
      expect((await off.client.listTools()).tools.map((t) => t.name)).not.toContain('cuonztech__get_report');
    } finally {
      await off.stop();
    }
  });

  it('R-8.7: the upstream inherits the environment plus --upstream-env-var and --upstream-env', async () => {
    vi.stubEnv('H4_ONLY_IN_PROXY_ENV', 'inherited');
    try {
      const run = await startCliProxy(
        echoFlags(
          '--upstream-arg',
          ARGV_ECHO,
          '--upstream-env-var',
          'E2E_A=x,y',
          '--upstream-env',
          'E2E_B=1,E2E_C=2',
          '--upstream-env-var',
          'E2E_D=p=q',
        ),
      );
      try {
        const { env } = await processInfo(run);
        expect(env).toMatchObject({ H4_ONLY_IN_PROXY_ENV: 'inherited', E2E_A: 'x,y', E2E_B: '1', E2E_C: '2', E2E_D: 'p=q' });
        expect(env['PATH']).toBe(process.env['PATH']);
      } finally {
        await run.stop();
      }
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('R-8.1: --upstream-cwd sets the upstream working folder (absolute, or relative to the proxy cwd)', async () => {
    const absolute = await startCliProxy(echoFlags('--upstream-arg', ARGV_ECHO, '--upstream-cwd', FIXTURES));
    try {
      expect(realpathSync((await processInfo(absolute)).cwd)).toBe(realpathSync(FIXTURES));
    } finally {
      await absolute.stop();
    }
    const relative = await startCliProxy(echoFlags('--upstream-arg', ARGV_ECHO, '--upstream-cwd', '..'));
    try {
      expect(realpathSync((await processInfo(relative)).cwd)).toBe(realpathSync(dirname(relative.dir)));
    } finally {
      await relative.stop();
    }
  });
});

describe('R-8.9 (issue 11): a listening proxy that cannot start leaves nothing behind (in-process)', () => {
  it('R-8.9: a busy --listen port → exit 1, one line naming the port, the upstream never started, no report folder created', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'h4-busy-'));
    const busy = createServer();
    try {
      await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
      const { port } = busy.address() as AddressInfo;
      const marker = join(dir, 'upstream-started');
      const result = await runCli([
        'proxy',
        '--upstream-command',
        'sh',
        '--upstream-arg',
        '-c',
        '--upstream-arg',
        `echo started > "${marker}"; exec "${process.execPath}" "${COUNTING_SERVER}"`,
        '--listen',
        `127.0.0.1:${port}`,
        '--report-dir',
        join(dir, 'out', 'reports'),
      ]);
      expectOneLineError(
        result,
        new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}: the port is already in use \\(EADDRINUSE\\)`),
      );
      expect(result.stderr).not.toMatch(/upstream did not start/);
      expect(existsSync(marker)).toBe(false);
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      busy.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('R-8.9: an upstream that does not start with --listen → exit 1, and the report folder it created is removed again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'h4-nostart-'));
    try {
      const result = await runCli([
        'proxy',
        '--upstream-command',
        'cuonztech-no-such-command-e2e',
        '--listen',
        '127.0.0.1:0',
        '--report-dir',
        join(dir, 'out', 'reports'),
      ]);
      expectOneLineError(result, /upstream did not start/);
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('R-8.9: an existing report folder is never removed, even when the upstream does not start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'h4-keep-'));
    try {
      const result = await runCli([
        'proxy',
        '--upstream-command',
        'cuonztech-no-such-command-e2e',
        '--listen',
        '127.0.0.1:0',
        '--report-dir',
        dir,
      ]);
      expectOneLineError(result, /upstream did not start/);
      expect(existsSync(dir)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
