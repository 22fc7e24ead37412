/**
 * `check` as a CI gate over real runs: the compiled proxy in front of the bundled booking
 * server, driven by the scripted careful and naive agents, writes its report files (one `--listen` proxy
 * with `--report-html` for the careful, naive and reads-only agent sessions; stdio proxies in front of the
 * raw counting upstream for the baseline and one killed with SIGKILL); then the compiled `check` reads them (files, the `--listen`
 * report folder, a folder of mixtures, a half-written copy, the killed proxy's report) and must exit
 * 0/2/3/1 exactly as the table in docs/commands/check.md says. The JUnit file is parsed by fast-xml-parser and its counts
 * compared. How mixtures, --fail-on and --min-score decide the exit code, missing or foreign files, and
 * `benchmark --junit` read back by `check` run in-process in `test/cli/commands-in-process.test.ts`.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bookingTask, carefulAgent, naiveAgent, withProxy } from '../test/support/agents.js';
import { connectHttpAgent, sessionFileId, startListeningProxy, stopAll } from '../test/support/http-harness.js';
import { BIN, BOOKING_SERVER, cleanup, FIXTURES, startProxy } from '../test/support/proxy-harness.js';

let dir: string;
const file = (name: string) => join(dir, name);

/**
 * The stdio runs (the baseline write, the naive run that is killed) need no booking semantics: the raw
 * counting upstream with a booking server's write and read, its ledger counting executions.
 */
const COUNTING_BOOKING = {
  flags: ['--upstream-command', process.execPath, '--upstream-arg', join(FIXTURES, 'counting-server.mjs')],
  env: {
    FIXTURE_TOOLS: JSON.stringify(
      ['create_booking', 'search_bookings'].map((name) => ({
        name,
        inputSchema: {
          type: 'object',
          properties: { guest: { type: 'string' }, date: { type: 'string' }, idempotency_key: { type: 'string' } },
        },
      })),
    ),
  },
};

/** Runs one stdio proxy session with `--audit-tools off` and keeps its final report as `name`. */
async function session(name: string, scenario: string | null, drive: Parameters<typeof withProxy>[1]): Promise<string> {
  const extra = [...(scenario === null ? [] : ['--scenario', scenario]), '--audit-tools', 'off'];
  await withProxy({ ...COUNTING_BOOKING, extra }, async (run) => {
    await drive(run);
    await run.stop();
    copyFileSync(run.reportFile, file(name));
  });
  return file(name);
}

/** The `--listen` proxy's report folder and the file of each of its sessions. */
let listen: { reportDir: string; files: Record<'careful' | 'naive' | 'reads', string>; dir: string };

/** The compiled `check` in the test folder; a last argument that is an object adds environment variables. */
function check(...args: Array<string | Record<string, string>>): { code: number | null; stdout: string; stderr: string } {
  const env = typeof args.at(-1) === 'object' ? (args.pop() as Record<string, string>) : {};
  const r = spawnSync(process.execPath, [BIN, 'check', ...(args as string[])], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 30_000,
    env: { ...process.env, GITHUB_STEP_SUMMARY: '', ...env },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'harness-check-e2e-'));
  // One --listen proxy, three agent sessions under F1: careful (PASS), naive (FAIL), reads only (NOT_TESTED).
  const proxy = await startListeningProxy(
    ['--upstream-command', process.execPath, '--upstream-arg', BOOKING_SERVER],
    ['--scenario', 'F1', '--audit-tools', 'off', '--report-html', file('proxy-report.html')],
  );
  try {
    const careful = await connectHttpAgent(proxy.url, 'careful');
    await carefulAgent(careful, bookingTask('Ann', '2026-01-01'));
    const naive = await connectHttpAgent(proxy.url, 'naive');
    await naiveAgent(naive, bookingTask('Bob', '2026-01-02'));
    const reads = await connectHttpAgent(proxy.url, 'reads');
    await reads.call('search_bookings', { guest: 'Cy' });
    for (const agent of [careful, naive, reads]) await agent.terminate();
    await proxy.proc.stop('SIGTERM');
    const fileOf = (sessionId: string) =>
      join(
        proxy.reportDir,
        proxy.reportFiles().find((name) => name.endsWith(`-${sessionFileId(sessionId)}.json`))!,
      );
    listen = {
      dir: proxy.dir,
      reportDir: proxy.reportDir,
      files: { careful: fileOf(careful.sessionId), naive: fileOf(naive.sessionId), reads: fileOf(reads.sessionId) },
    };
  } catch (error) {
    await proxy.proc.stop('SIGKILL', 5_000).catch(() => undefined);
    rmSync(proxy.dir, { recursive: true, force: true });
    throw error;
  }
  copyFileSync(listen.files.careful, file('careful-f1.json'));
  copyFileSync(listen.files.naive, file('naive-f1.json'));
  copyFileSync(listen.files.reads, file('reads-only.json'));
  await session('baseline.json', null, (run) => carefulAgent(run, bookingTask('Di', '2026-01-03')));
  const whole = readFileSync(file('naive-f1.json'), 'utf8');
  writeFileSync(file('half.json'), whole.slice(0, Math.floor(whole.length / 2)));
  // A proxy killed with SIGKILL mid-session: its report stays "running".
  const killed = await startProxy({ ...COUNTING_BOOKING, extra: ['--scenario', 'F1', '--audit-tools', 'off'] });
  try {
    await naiveAgent(killed, bookingTask('Ed', '2026-01-04'));
    process.kill(killed.pid!, 'SIGKILL');
    await killed.stop().catch(() => undefined);
    copyFileSync(killed.reportFile, file('killed.json'));
  } finally {
    cleanup(killed);
  }
}, 120_000);

afterAll(async () => {
  await stopAll();
  rmSync(dir, { recursive: true, force: true });
  if (listen !== undefined) rmSync(listen.dir, { recursive: true, force: true });
});
describe('check: exit codes over real report files', () => {
  it('careful F1 → 0; naive F1 → 2 (and $GITHUB_STEP_SUMMARY gets the Markdown appended); no write → 3; a baseline → 0 and said so', () => {
    const pass = check('careful-f1.json');
    expect(pass.code).toBe(0);
    expect(pass.stdout).toMatch(/^PASS {7}careful-f1\.json \(scenario F1\): score 100\/100;/m);
    // With $GITHUB_STEP_SUMMARY set, the Markdown is appended to it.
    const summary = file('step-summary.md');
    writeFileSync(summary, '# earlier step\n');
    const fail = check('naive-f1.json', { GITHUB_STEP_SUMMARY: summary });
    expect(fail.code).toBe(2);
    expect(fail.stdout).toContain('DUPLICATE_EXECUTION');
    expect(fail.stdout).toContain('patches: GHOST_WRITE');
    expect(readFileSync(summary, 'utf8').startsWith('# earlier step\n## cuonztech-agent-harness check: ❌ FAIL')).toBe(true);
    const nt = check('reads-only.json');
    expect(nt.code).toBe(3);
    expect(nt.stdout).toContain('NOT_TESTED');
    const base = check('baseline.json');
    expect(base.code).toBe(0);
    expect(base.stdout).toContain('PASS (baseline only)');
    expect(base.stdout).not.toMatch(/^PASS {2}/m);
  });

  it('harness failures → 1: half-written, killed proxy (incomplete, shown as such)', () => {
    const r = check('half.json', 'killed.json');
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('is not complete JSON');
    expect(r.stdout).toMatch(/^ERROR \(incomplete, FAIL so far\) killed\.json .*status "running"/m);
  });

  it('a mixture of real reports: a FAIL beats a NOT_TESTED; --fail-on FAIL lets a NOT_TESTED pass', () => {
    expect(check('reads-only.json', 'naive-f1.json').code).toBe(2);
    expect(check('careful-f1.json', 'reads-only.json', '--fail-on', 'FAIL').code).toBe(0);
  });

  it('a folder is one suite; JUnit counts as parsed by a real parser; Markdown and HTML written', () => {
    mkdirSync(file('mixed'), { recursive: true });
    for (const name of ['careful-f1.json', 'naive-f1.json', 'reads-only.json', 'half.json'])
      copyFileSync(file(name), join(dir, 'mixed', name));
    const r = check(
      'mixed',
      'baseline.json',
      '--junit',
      'out/junit.xml',
      '--markdown',
      'out/summary.md',
      '--html',
      'out/report.html',
    );
    expect(r.code).toBe(1);
    const xml = readFileSync(file('out/junit.xml'), 'utf8');
    expect(XMLValidator.validate(xml)).toBe(true);
    const doc = new XMLParser({
      ignoreAttributes: false,
      attributeNamePrefix: '',
      isArray: (n) => n === 'testsuite' || n === 'testcase',
    }).parse(xml) as {
      testsuites: {
        tests: string;
        failures: string;
        errors: string;
        skipped: string;
        testsuite: Array<{ name: string; tests: string; testcase: Array<{ classname: string; name: string; time: string }> }>;
      };
    };
    expect(doc.testsuites).toMatchObject({ tests: '5', failures: '1', errors: '1', skipped: '1' });
    expect(doc.testsuites.testsuite.map((s) => [s.name, s.tests])).toEqual([
      ['mixed', '4'],
      ['baseline.json', '1'],
    ]);
    expect(doc.testsuites.testsuite[1]!.testcase[0]!.name).toBe('baseline.json (no scenario) [baseline only]');
    expect(readFileSync(file('out/summary.md'), 'utf8')).toContain('## Prompt patches to copy');
    const html = readFileSync(file('out/report.html'), 'utf8');
    expect(html).toContain('<!doctype html>');
    expect(html).not.toMatch(/https?:\/\//);
  });

  it('a --listen --report-dir folder: one case per agent session', () => {
    const r = check(listen.reportDir, '--junit', 'listen.xml');
    expect(r.code).toBe(2);
    expect(r.stdout.split('\n').filter((l) => /^(PASS|FAIL) /.test(l))).toHaveLength(2);
    expect(r.stdout.split('\n').filter((l) => /^NOT_TESTED /.test(l))).toHaveLength(1);
    expect(readFileSync(file('listen.xml'), 'utf8')).toMatch(
      /<testsuite name="[^"]*reports" tests="3" failures="1" errors="0" skipped="1"/,
    );
  });

  it('proxy --report-html: the HTML report of the sessions is written at exit (the naive session’s two executions marked)', () => {
    const text = readFileSync(file('proxy-report.html'), 'utf8');
    expect(text).toContain('<div class="banner FAIL" id="overall"><b>FAIL</b>');
    expect(text.match(/<tr class="dup">/g)).toHaveLength(2);
    const usage = spawnSync(process.execPath, [BIN, 'proxy', '--upstream-command', 'node', '--report-html', 'x.html'], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(usage.status).toBe(1);
    expect(usage.stderr).toContain('--report-html is built from the report: give --report-file (or --report-dir) too');
  });
});
