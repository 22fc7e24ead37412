/**
 * The `proxy` command line (R-8.1, R-8.9, R-9.4) through the compiled CLI, one spawned check per family:
 * an invalid invocation ends with exit 1 and ONE line on stderr (no stack trace) and a real exit code,
 * and the accepted forms really reach the upstream, checked with `argv-echo.mjs`, an upstream that
 * answers with its own argv, cwd and environment (all the upstream forms in one real process). Every
 * invalid invocation, --help, --scenario's two forms, --audit-tools' case and an absolute --upstream-cwd
 * run in-process in `test/integration/proxy/in-process.test.ts`.
 */
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { execa, type Result } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, cleanup, FIXTURES, requireBuild, ROOT, startProxy, textOf, type ProxyRun } from '../test/support/proxy-harness.js';

const COUNTING = join(FIXTURES, 'counting-server.mjs');
const ARGV_ECHO = join(FIXTURES, 'argv-echo.mjs');
const UPSTREAM = ['--upstream-command', process.execPath, '--upstream-arg', COUNTING];
const PREFIX = '[cuonztech-agent-harness] error:';

/** Runs the CLI to its end (stdin closed at once); never rejects. */
async function runCli(args: string[]): Promise<Result> {
  requireBuild();
  return execa(process.execPath, [BIN, ...args], { reject: false, timeout: 20_000, stdin: 'ignore', cwd: ROOT });
}

/** Exit 1, nothing on stdout, exactly one stderr line with the error prefix, no stack trace. */
function expectOneLineError(result: Result, pattern: RegExp): void {
  const stderr = String(result.stderr);
  expect(result.timedOut, `timed out; stderr: ${stderr}`).toBe(false);
  expect(result.exitCode, stderr).toBe(1);
  expect(String(result.stdout)).toBe('');
  const lines = stderr.split('\n').filter((line) => line !== '');
  expect(lines, stderr).toHaveLength(1);
  expect(lines[0]!.startsWith(PREFIX)).toBe(true);
  expect(lines[0]).toMatch(pattern);
  expect(stderr).not.toMatch(/^\s+at /m);
}

/** How argv-echo.mjs was started, as seen by itself. */
interface ProcessInfo {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
}

async function processInfo(run: ProxyRun): Promise<ProcessInfo> {
  return JSON.parse(textOf(await run.call('get_process_info'))) as ProcessInfo;
}

/** Proxy flags with node as the upstream command, then `rest`. */
const echoFlags = (...rest: string[]): string[] => ['--upstream-command', process.execPath, ...rest];

// One case per family (a flag refused while parsing, a report file refused when opened); each is one
// short-lived process: run them concurrently.
describe.concurrent('R-8.1 / R-8.9: invalid invocations end with exit 1 and one clear line', () => {
  const cases: Array<[string, string[], RegExp]> = [
    ['unknown flag', ['proxy', ...UPSTREAM, '--bogus-flag', 'x'], /unknown (option|flag).*bogus/i],
    ['--report-file a folder', ['proxy', ...UPSTREAM, '--report-file', ROOT], /report file.*folder/],
  ];
  for (const [name, args, pattern] of cases) {
    it(`R-8.1: ${name} → exit 1, one line, no stack trace`, async () => {
      expectOneLineError(await runCli(args), pattern);
    });
  }
});

describe('R-8.1: --version', () => {
  it('R-8.1: --version prints the version of package.json, exit 0', async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const result = await runCli(['--version']);
    expect(result.exitCode).toBe(0);
    expect(String(result.stdout)).toContain(version);
  });
});

describe('R-8.1 / R-8.7: accepted forms reach the upstream', () => {
  let run: ProxyRun | undefined;
  afterEach(async () => {
    await run?.stop();
    cleanup(run);
    run = undefined;
  });

  it('R-8.1 / R-8.7: --upstream-arg=--stdio, -y, --upstream-args (first), commas kept, the full environment plus --upstream-env-var and --upstream-env, and --upstream-cwd relative to the proxy cwd reach a real upstream process', async () => {
    run = await startProxy({
      flags: echoFlags(
        '--upstream-arg',
        'c,d',
        '--upstream-args',
        `${ARGV_ECHO},a,b`,
        '--upstream-arg=--stdio',
        '--upstream-arg',
        '-y',
        '--upstream-env-var',
        'E2E_A=x,y',
        '--upstream-env',
        'E2E_B=1,E2E_C=2',
        '--upstream-env-var',
        'E2E_D=p=q',
        '--upstream-cwd',
        '..',
      ),
      env: { E2E_ONLY_IN_PROXY_ENV: 'inherited' },
    });
    const info = await processInfo(run);
    expect(info.argv).toEqual(['a', 'b', 'c,d', '--stdio', '-y']);
    expect(info.env).toMatchObject({ E2E_ONLY_IN_PROXY_ENV: 'inherited', E2E_A: 'x,y', E2E_B: '1', E2E_C: '2', E2E_D: 'p=q' });
    expect(info.env['PATH']).toBe(process.env['PATH']);
    expect(realpathSync(info.cwd)).toBe(realpathSync(dirname(run.dir)));
  });
});

describe('R-8.9: a listening proxy whose upstream cannot start leaves nothing behind', () => {
  it('R-8.9: an upstream that does not start with --listen → exit 1, and the report folder it created is removed again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'harness-nostart-'));
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
});
