/**
 * The `proxy` command through `main(argv, io)` in-process, in front of real upstream processes:
 *
 * - its command line (R-8.1, R-8.7, R-8.9, R-9.4): every invalid invocation ends with exit 1 and ONE line
 *   on stderr (no stack trace), and the accepted forms really reach the upstream (`argv-echo.mjs` answers
 *   with its own argv, cwd and environment). `e2e/proxy-cli.e2e.test.ts` keeps one spawned check per family.
 * - timing and aim (`proxy` flags → session → report file), against upstreams that count what they executed
 *   (the raw counting fixtures' ledger): aimed faults, latency repeated from a seed, an agent that re-sends
 *   after its own time-out, and cancellations. The wall-clock sides (a real client time-out against a real
 *   hold, over stdio and over HTTP) stay in `e2e/timing-and-aim.e2e.test.ts`; the step-by-step timing is
 *   proven with a manual clock in `test/app/pipeline/call-pipeline-timing.test.ts`.
 * - the journal and end line after a normal end (stdin EOF); after SIGKILL, SIGTERM and with
 *   --listen they are proven with real processes in `e2e/journal.e2e.test.ts`.
 */
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { HARNESS_VERSION } from '../../../src/version.js';
import {
  COUNTING as UPSTREAM,
  FIXTURES,
  ROOT,
  runCli,
  startCliProxy,
  textOf,
  waitUntil,
  withCliProxy,
  type CliProxy,
  type CliResult,
} from '../../support/in-process-cli.js';
import { expectMatchesReport, journalOf, type JournalReport } from '../../support/journal-check.js';

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
    // Friction a new user met.
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

  it('R-8.1: --version and -v after a command print the version too (they printed nothing and ran nothing)', async () => {
    for (const args of [
      ['proxy', '--version'],
      ['check', '-v'],
      ['proxy', '--upstream-command', 'node', '--version'],
    ]) {
      const result = await runCli(args);
      expect(result.code, args.join(' ')).toBe(0);
      expect(result.stdout, args.join(' ')).toContain(HARNESS_VERSION);
    }
  });

  it('R-8.1: -h and -v as the value of a flag are values, not --help / --version (--upstream-arg -y is a value)', async () => {
    for (const value of ['-h', '-v']) {
      const result = await runCli(['check', '--junit', value]);
      expect(result.code, value).toBe(1);
      expect(result.stdout, value).toBe('');
      expect(result.stderr, value).toContain('check needs at least one report file or folder');
    }
  });

  it('R-8.1: --help shows usage with the commands, exit 0; no command is listed with an empty name', async () => {
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

  // The other forms (--upstream-arg=--stdio and -y, --upstream-args first, commas kept, the inherited
  // environment plus --upstream-env-var and --upstream-env, --upstream-cwd relative to the proxy's folder)
  // reach a real upstream from a real proxy process in e2e/proxy-cli.e2e.test.ts.
  it('R-8.1: --upstream-cwd sets the upstream working folder (absolute)', async () => {
    const absolute = await startCliProxy(echoFlags('--upstream-arg', ARGV_ECHO, '--upstream-cwd', FIXTURES));
    try {
      expect(realpathSync((await processInfo(absolute)).cwd)).toBe(realpathSync(FIXTURES));
    } finally {
      await absolute.stop();
    }
  });
});

describe('issue 41 §12: the lock beside the journal and the report file (in-process)', () => {
  const upstreamWithMarker = (marker: string) => [
    '--upstream-command',
    'sh',
    '--upstream-arg',
    '-c',
    '--upstream-arg',
    `echo started > "${marker}"; exec "${process.execPath}" "${COUNTING_SERVER}"`,
  ];

  it("a symbolic link planted at the journal's lock → exit 1, one line, the upstream never started, the link and its target untouched", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'harness-lock-link-'));
    try {
      const journal = join(dir, 'journal.jsonl');
      const victim = join(dir, 'victim.txt');
      writeFileSync(victim, 'keep me');
      symlinkSync(victim, `${journal}.lock`);
      const marker = join(dir, 'upstream-started');
      const result = await runCli(['proxy', ...upstreamWithMarker(marker), '--journal', journal]);
      expectOneLineError(
        result,
        new RegExp(
          `journal ${journal} not usable: lock file ${journal}\\.lock is a symbolic link: refused \\(a link is never followed\\)`,
        ),
      );
      expect(existsSync(marker)).toBe(false);
      expect(existsSync(journal)).toBe(false);
      expect(lstatSync(`${journal}.lock`).isSymbolicLink()).toBe(true);
      expect(readFileSync(victim, 'utf8')).toBe('keep me');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a journal held by a live proxy (this process) → exit 1 before the upstream starts; a report file reached through a link is locked beside its real file, and the lock is gone at the end', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'harness-lock-held-'));
    try {
      const journal = join(dir, 'journal.jsonl');
      writeFileSync(`${journal}.lock`, `${JSON.stringify({ pid: process.pid, host: hostname(), startedAt: '' })}\n`);
      const marker = join(dir, 'upstream-started');
      const held = await runCli(['proxy', ...upstreamWithMarker(marker), '--journal', journal]);
      expectOneLineError(held, new RegExp(`journal ${journal} is in use by another proxy running now \\(pid ${process.pid} on `));
      expect(existsSync(marker)).toBe(false);
      // The report file is a link to a file in another folder: its lock goes beside the real file.
      mkdirSync(join(dir, 'real'));
      const real = join(dir, 'real', 'report.json');
      writeFileSync(real, '{}');
      symlinkSync(real, join(dir, 'report.json'));
      const run = await startCliProxy(UPSTREAM, { cwd: dir });
      expect(JSON.parse(readFileSync(`${real}.lock`, 'utf8'))).toMatchObject({ pid: process.pid, host: hostname() });
      expect(existsSync(join(dir, 'report.json.lock'))).toBe(false);
      expect(await run.stop()).toBe(0);
      expect(run.stderr()).not.toContain('WARNING: report file');
      expect(readdirSync(join(dir, 'real'))).toEqual(['report.json']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('R-8.9: a listening proxy that cannot start leaves nothing behind (in-process)', () => {
  it('R-8.9: a busy --listen port → exit 1, one line naming the port, the upstream never started, no report folder created', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'harness-busy-'));
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

  it('R-8.9: an existing report folder is never removed, even when the upstream does not start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'harness-keep-'));
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

interface TimingEntry {
  attempt: number;
  tool: string;
  latencyMs?: number;
  heldMs?: number;
  cancelledAfterMs?: number;
  outcome: string;
}
interface Report16 {
  verdict: string;
  scenario: { triggered: boolean; faultsApplied: number };
  configuration?: {
    seed: number | null;
    latency: { ms: number; jitterMs: number } | null;
    aim: { tools: string[] | null; on: number };
    holdMs: number | null;
  };
  timing?: TimingEntry[];
  violations: Array<{ type: string; tool: string; duplicate?: Record<string, unknown> }>;
  operations: Array<{ tool: string; executions: number; attempts: number; outcome: string; fault?: string }>;
}

/** Ends the session and answers the final report. */
async function endSession(run: CliProxy): Promise<Report16> {
  expect(await run.stop()).toBe(0);
  return run.report()['report'] as Report16;
}

/** The counting upstream with a booking server's two tools (a write and a read, classified by name). */
const tools = (names: string[]) =>
  JSON.stringify(names.map((name) => ({ name, inputSchema: { type: 'object', properties: { guest: { type: 'string' } } } })));
const BOOKING = [...UPSTREAM, '--upstream-env-var', `FIXTURE_TOOLS=${tools(['create_booking', 'search_bookings'])}`];
const NEVER_ANSWERS = ['--upstream-command', process.execPath, '--upstream-arg', `${FIXTURES}/never-answers.mjs`];
const booking = (guest: string) => ({ guest, date: '2026-11-03' });
const creates = (run: CliProxy) => run.ledger().filter((line) => line.tool === 'create_booking');

describe('F1 with --hold and the agent (in-process CLI)', () => {
  it("/ R-2: an agent that re-sends after its own time-out during --hold 5000 → FAIL, a duplicate after a timeout (two executions in the upstream's ledger)", () =>
    withCliProxy([...BOOKING, '--scenario', 'F1', '--hold', '5000'], async (run) => {
      const error = await run.call('create_booking', booking('Bo'), { timeout: 300 }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(McpError);
      expect((error as McpError).code).toBe(-32001);
      await run.call('create_booking', booking('Bo'));
      expect(creates(run)).toHaveLength(2);
      const report = await endSession(run);
      expect(report.verdict).toBe('FAIL');
      expect(report.violations).toMatchObject([
        { type: 'DUPLICATE_EXECUTION', tool: 'create_booking', duplicate: { afterTimeout: true } },
      ]);
      expect(report.timing![0]).toMatchObject({ attempt: 1, tool: 'create_booking', outcome: 'executed' });
      expect(report.timing![0]!.cancelledAfterMs).toEqual(expect.any(Number));
    }));
});

describe('cancellation (in-process CLI)', () => {
  it('a client that cancels a forwarded call → the upstream gets notifications/cancelled, the report records it, outcome unknown', () =>
    withCliProxy(NEVER_ANSWERS, async (run) => {
      const agent = new AbortController();
      const call = run.call('create_order', { item: 'x' }, { signal: agent.signal }).then(
        () => null,
        (e: unknown) => e,
      );
      await waitUntil(() => run.ledger().some((line) => line.received === true));
      agent.abort('the agent gave up');
      expect(await call).toBeTruthy();
      await waitUntil(() => run.ledger().some((line) => line.cancelled === true));
      const report = await endSession(run);
      expect(report.operations).toMatchObject([{ tool: 'create_order', executions: 0, outcome: 'EXECUTION_UNKNOWN' }]);
      expect(report.timing).toEqual([
        { attempt: 1, tool: 'create_order', cancelledAfterMs: expect.any(Number), outcome: 'unknown' },
      ]);
    }));

  it('a client that cancels during the hold → the report says cancelled after N ms (the hold ended there); the ghost write counts as executed', () =>
    withCliProxy([...BOOKING, '--scenario', 'F1', '--hold', '20000', '--journal', 'calls.jsonl'], async (run) => {
      const agent = new AbortController();
      const call = run.call('create_booking', booking('Di'), { signal: agent.signal }).then(
        () => null,
        (e: unknown) => e,
      );
      await waitUntil(() => creates(run).length === 1);
      // Cancel only once the proxy has the upstream's answer (the journal's `answered` step): the hold has
      // begun. Cancelling while the answer is still on its way would cancel the call itself (unknown).
      const journal = join(run.dir, 'calls.jsonl');
      await waitUntil(() => existsSync(journal) && readFileSync(journal, 'utf8').includes('"event":"answered"'));
      agent.abort();
      expect(await call).toBeTruthy();
      const report = await endSession(run);
      expect(report.operations).toMatchObject([{ tool: 'create_booking', executions: 1, fault: 'F1' }]);
      const [entry] = report.timing!;
      expect(entry).toMatchObject({ tool: 'create_booking', outcome: 'executed' });
      expect(entry!.cancelledAfterMs).toEqual(expect.any(Number));
      expect(entry!.cancelledAfterMs).toBeLessThan(20_000);
      // The journal and the HTML timeline (from the journal and from the report alone) say the agent was
      // told nothing, not a timeout, and show its cancellation.
      expect(journalOf(journal).lines.find((l) => l.event === 'delivered')).toMatchObject({ told: 'cancelled' });
      for (const extra of [['--journal', journal], []]) {
        const html = join(run.dir, `cancelled${extra.length}.html`);
        const checked = await runCli(['check', run.reportFile, '--html', html, ...extra], {
          cwd: run.dir,
          env: { GITHUB_STEP_SUMMARY: '' },
        });
        expect(checked.stderr).toBe('');
        const page = readFileSync(html, 'utf8');
        expect(page).toContain('nothing: the agent cancelled the call');
        expect(page).toMatch(/the agent cancelled \d+(\.\d)? (ms|s) after sending it/);
        expect(page).not.toContain('within 60 seconds');
        expect(page).not.toContain('a timeout (isError)');
      }
    }));

  it('with --hold 300 and an agent that waits, the HTML timeline says the agent was told "within 0.3 seconds" and shows the hold', () =>
    withCliProxy([...BOOKING, '--scenario', 'F1', '--hold', '300'], async (run) => {
      const answer = await run.call('create_booking', booking('Ed'));
      expect(textOf(answer)).toContain('within 0.3 seconds');
      await endSession(run);
      const html = join(run.dir, 'held.html');
      await runCli(['check', run.reportFile, '--html', html], { cwd: run.dir, env: { GITHUB_STEP_SUMMARY: '' } });
      const page = readFileSync(html, 'utf8');
      expect(page).toContain('did not answer within 0.3 seconds');
      expect(page).not.toContain('within 60 seconds');
      expect(page).toMatch(/held \d+ ms after the upstream answered/);
    }));
});

describe('aimed faults (in-process CLI)', () => {
  it("--fault-tool 'pay_*' in a flow create → pay: the fault on pay, create judged normally", () =>
    withCliProxy(
      [
        ...UPSTREAM,
        '--upstream-env-var',
        `FIXTURE_TOOLS=${tools(['create_draft', 'pay_invoice'])}`,
        '--scenario',
        'F1',
        '--fault-tool',
        'pay_*',
      ],
      async (run) => {
        const draft = await run.call('create_draft', { invoice: 7 });
        expect(textOf(draft)).toBe('ok create_draft #1');
        const pay = await run.call('pay_invoice', { invoice: 7 });
        expect(pay.isError).toBe(true);
        expect(textOf(pay)).toContain('Request timed out');
        // The agent pays again: a duplicate payment, the ledger has two.
        await run.call('pay_invoice', { invoice: 7 });
        expect(run.ledger().filter((line) => line.tool === 'pay_invoice')).toHaveLength(2);
        const report = await endSession(run);
        expect(report.operations.map((op) => [op.tool, op.fault ?? null, op.executions])).toEqual([
          ['create_draft', null, 1],
          ['pay_invoice', 'F1', 2],
        ]);
        expect(report.verdict).toBe('FAIL');
        expect(report.violations).toMatchObject([{ type: 'DUPLICATE_EXECUTION', tool: 'pay_invoice' }]);
        expect(report.configuration).toMatchObject({ aim: { tools: ['pay_*'], on: 1 } });
      },
    ));

  it('--fault-on 2: the second write gets F5, the first and third go through (the ledger has A and C)', () =>
    withCliProxy([...BOOKING, '--scenario', 'F5', '--fault-on', '2'], async (run) => {
      const results = [];
      for (const guest of ['A', 'B', 'C']) results.push(await run.call('create_booking', booking(guest)));
      expect(results.map((r) => r.isError === true)).toEqual([false, true, false]);
      expect(textOf(results[1]!)).toBe('HTTP 500 Internal Server Error');
      expect(creates(run).map((line) => (line.arguments as { guest: string }).guest)).toEqual(['A', 'C']);
      const report = await endSession(run);
      expect(report.operations.map((op) => op.fault ?? null)).toEqual([null, 'F5', null]);
    }));

  it('/ R-4.3: four parallel writes with --fault-on 2 → exactly one faulted', () =>
    withCliProxy([...BOOKING, '--scenario', 'F5', '--fault-on', '2'], async (run) => {
      const results = await Promise.all(['A', 'B', 'C', 'D'].map((guest) => run.call('create_booking', booking(guest))));
      expect(results.filter((r) => r.isError === true)).toHaveLength(1);
      expect(creates(run)).toHaveLength(3);
      const report = await endSession(run);
      expect(report.scenario.faultsApplied).toBe(1);
      expect(report.operations.filter((op) => op.fault === 'F5')).toHaveLength(1);
    }));
});

describe('latency (in-process CLI)', () => {
  async function latencies(seed: string): Promise<{ timing: TimingEntry[]; report: Report16; stderr: string }> {
    return withCliProxy([...BOOKING, '--latency', '40:30', '--seed', seed], async (run) => {
      for (let n = 0; n < 4; n++) {
        await run.call('create_booking', booking(`G${n}`));
        await run.call('search_bookings', { guest: `G${n}` });
      }
      const stderr = run.stderr();
      const report = await endSession(run);
      return { timing: report.timing!, report, stderr };
    });
  }

  it('--latency 40:30 with the same --seed twice → identical per-attempt latencies, reads and writes; the seed is in the configuration block', async () => {
    const first = await latencies('1234');
    const second = await latencies('1234');
    expect(first.timing).toHaveLength(8);
    expect(first.timing.map((t) => t.tool)).toEqual(
      Array.from({ length: 4 }, () => ['create_booking', 'search_bookings']).flat(),
    );
    expect(second.timing.map((t) => t.latencyMs)).toEqual(first.timing.map((t) => t.latencyMs));
    for (const t of first.timing) {
      expect(t.latencyMs).toBeGreaterThanOrEqual(10);
      expect(t.latencyMs).toBeLessThanOrEqual(70);
    }
    expect(new Set(first.timing.map((t) => t.latencyMs)).size).toBeGreaterThan(1);
    expect(first.report.configuration).toEqual({
      seed: 1234,
      latency: { ms: 40, jitterMs: 30 },
      aim: { tools: null, on: 1 },
      holdMs: null,
    });
    expect(first.stderr).toContain('latency 40±30 ms, seed 1234');
    expect(first.report.operations.map((op) => op.executions)).toEqual([1, 1, 1, 1]);
  });

  it('--latency with --mode chaos: the chaos draws and the latencies repeat from the seed', async () => {
    const run = () =>
      withCliProxy([...BOOKING, '--mode', 'chaos', '--error-rate', '0.5', '--latency', '20:15', '--seed', '99'], async (r) => {
        const errors: boolean[] = [];
        for (let n = 0; n < 6; n++) errors.push((await r.call('search_bookings', { guest: `G${n}` })).isError === true);
        const report = await endSession(r);
        return { errors, latencies: report.timing!.map((t) => [t.attempt, t.latencyMs]) };
      });
    const [a, b] = [await run(), await run()];
    expect(b).toEqual(a);
    // Only forwarded calls get a latency: one entry per call that chaos let through.
    expect(a.latencies).toHaveLength(a.errors.filter((e) => !e).length);
  });
});

describe('bad input (in-process CLI)', () => {
  for (const argv of [
    ['--hold', '5000'],
    ['--scenario', 'F1', '--hold', '-3'],
    ['--latency', '1.5'],
    ['--scenario', 'F2', '--fault-on', '0'],
  ]) {
    it(`proxy ${argv.join(' ')} → one clear line, exit 1, no upstream started`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'harness-bad-input-'));
      const marker = join(dir, 'upstream-started');
      const upstream = [
        '--upstream-command',
        'sh',
        '--upstream-arg',
        '-c',
        '--upstream-arg',
        `echo started > "${marker}"; exec "${process.execPath}" "${FIXTURES}/counting-server.mjs"`,
      ];
      const result = await runCli(['proxy', ...upstream, ...argv]);
      const started = existsSync(marker);
      rmSync(dir, { recursive: true, force: true });
      expect(started).toBe(false);
      expect(result.code).toBe(1);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(/hold|latency|fault-on/);
      expect(result.stderr).not.toMatch(/^\s+at /m);
    });
  }
});

describe('the journal after a normal end (in-process CLI)', () => {
  const SECRET = 'Quetzalcoatl Featherington-9931';

  it('--log-level debug: stderr is plain lines only, the log records among them as "level: message (fields)" (docs/logging.md)', () =>
    withCliProxy([...BOOKING, '--scenario', 'F1', '--log-level', 'debug'], async (run) => {
      await run.call('create_booking', booking('Ann Lee'));
      expect(await run.stop()).toBe(0);
      const lines = run.stderr().trimEnd().split('\n');
      expect(lines.filter((line) => !line.startsWith('[cuonztech-agent-harness] '))).toEqual([]);
      expect(lines).toContain(
        '[cuonztech-agent-harness] info: agent session ended (kind: disconnected, detail: agent closed its input)',
      );
      expect(lines).toContain('[cuonztech-agent-harness] info: stopping (reason: the agent disconnected)');
    }));

  it('R-1.3: after stdin EOF the journal matches the report one for one; no argument value without --journal-payloads; one line per call with --log-level info and the end line names verdict, score and report; check --html --journal (and proxy --report-html) draw every call with its time, the read included', () =>
    withCliProxy(
      [...BOOKING, '--scenario', 'F1', '--journal', 'journal.jsonl', '--log-level', 'info', '--report-html', 'proxy.html'],
      async (run) => {
        // The naive agent: the write twice, whatever the first answer was; then a read.
        const seen = [];
        for (let i = 0; i < 2; i++) seen.push(await run.call('create_booking', booking(SECRET)));
        await run.call('search_bookings', { guest: SECRET });
        expect(await run.stop()).toBe(0);
        const journal = join(run.dir, 'journal.jsonl');
        const { lines, torn } = journalOf(journal);
        expect(torn).toBe(false);
        const report = run.report() as JournalReport & { status: string; verdict: string; score: { overall: number } };
        expect(report.status).toBe('finished');
        expectMatchesReport(lines, report, creates(run).length);
        expect(lines[0]).toMatchObject({ v: 1, event: 'journal', payloads: false });
        expect(lines.at(-1)).toMatchObject({ event: 'ended', verdict: report.verdict, score: report.score.overall });
        // What the agent saw, step by step, is what the journal says it was told.
        const delivered = lines.filter((l) => l.event === 'delivered');
        expect(delivered.slice(0, 2).map((l) => l.told !== 'answer')).toEqual(seen.map((r) => r.isError === true));
        expect(readFileSync(journal, 'utf8')).not.toContain('Quetzalcoatl');
        const stderr = run.stderr();
        expect(stderr).toContain('#1 create_booking write — F1 ghost write: executed upstream, agent told timeout');
        expect(stderr).toContain("#2 create_booking write — executed upstream, agent got the upstream's answer");
        expect(stderr).toMatch(/#3 search_bookings read — executed upstream/);
        expect(stderr).toContain(`finished: FAIL, score ${report.score.overall}/100; report ${run.reportFile}`);
        // The timeline, from the journal.
        const checked = await runCli(['check', run.reportFile, '--html', join(run.dir, 'check.html'), '--journal', journal], {
          cwd: run.dir,
          env: { ...process.env, GITHUB_STEP_SUMMARY: '' },
        });
        expect(checked.code).toBe(2);
        for (const name of ['check.html', 'proxy.html']) {
          const html = readFileSync(join(run.dir, name), 'utf8');
          expect(html).toContain('Timeline: 3 call(s)');
          expect(html).toContain('<th>time</th>');
          expect(html).toMatch(/search_bookings<\/b> <span class="muted small">read/);
          expect(html).toMatch(/<td class="seq">\d+(\.\d)? (ms|s)<\/td>/);
        }
        // Another run's report of the same name (here: one more attempt) with this journal: the journal is
        // not drawn as that report's exact timeline; the report's own timeline is, and stderr says why.
        const other = JSON.parse(readFileSync(run.reportFile, 'utf8')) as { report: { operations: Array<{ attempts: number }> } };
        other.report.operations[0]!.attempts += 1;
        mkdirSync(join(run.dir, 'other'));
        const otherReport = join(run.dir, 'other', basename(run.reportFile));
        writeFileSync(otherReport, JSON.stringify(other));
        const mismatched = await runCli(['check', otherReport, '--html', join(run.dir, 'other.html'), '--journal', journal], {
          cwd: run.dir,
          env: { ...process.env, GITHUB_STEP_SUMMARY: '' },
        });
        expect(mismatched.stderr).toContain(`does not match ${otherReport}`);
        const otherHtml = readFileSync(join(run.dir, 'other.html'), 'utf8');
        expect(otherHtml).not.toContain('<th>time</th>');
        expect(otherHtml).toContain('write attempt(s)');
      },
    ));
});
