/**
 * The journal and the end lines with real processes: the compiled proxy in front of the raw counting upstream
 * with a booking server's two tools (its ledger counts what really executed), driven by the scripted agents. The journal's lines match
 * the report's attempts one for one after SIGKILL (every complete line is true; a torn last line is
 * skipped by `check --journal`) and with --listen (one journal for all sessions); `--journal-payloads on`
 * writes the arguments, and the proxy says its verdict, score and report at the end after SIGTERM and
 * with --listen. The same after a normal end (stdin EOF) — no argument value without
 * `--journal-payloads`, one line per call with `--log-level info`, the timeline `check --html --journal`
 * draws — runs the CLI in-process in `test/integration/proxy/in-process.test.ts`.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { waitForExit } from './fixtures/lib/raw-child.mjs';
import { bookingTask, naiveAgent } from '../test/support/agents.js';
import { BIN, cleanup, FIXTURES, startProxy, textOf, type ProxyRun, type ReportFile } from '../test/support/proxy-harness.js';
import { resultOf, spawnProxy, type RawProxy } from '../test/support/raw-proxy.js';
import { bookingsIn, connectHttpAgent, removeDir, startListeningProxy } from '../test/support/http-harness.js';
import { expectMatchesReport, journalOf, type JournalLine as Line } from '../test/support/journal-check.js';

/** The raw counting upstream (it records every execution in its ledger) with a booking server's two tools. */
const UPSTREAM = ['--upstream-command', process.execPath, '--upstream-arg', join(FIXTURES, 'counting-server.mjs')];
const BOOKING_TOOLS = JSON.stringify(
  ['create_booking', 'search_bookings'].map((name) => ({
    name,
    inputSchema: { type: 'object', properties: { guest: { type: 'string' }, date: { type: 'string' } } },
  })),
);
const writesIn = (ledger: Array<Record<string, unknown>>) => ledger.filter((line) => line['tool'] === 'create_booking');

let run: ProxyRun | undefined;
let raw: RawProxy | undefined;
let journalDir: string | undefined;
afterEach(async () => {
  if (run) {
    await run.stop().catch(() => undefined);
    cleanup(run);
    run = undefined;
  }
  await raw?.dispose();
  raw = undefined;
  if (journalDir !== undefined) rmSync(journalDir, { recursive: true, force: true });
  journalDir = undefined;
});

const SECRET = 'Quetzalcoatl Featherington-9931';

describe('the journal (real processes)', () => {
  it('after SIGKILL every complete line is true and matches the report one for one; a torn last line is skipped by check --journal', async () => {
    run = await startProxy({
      flags: UPSTREAM,
      extra: ['--scenario', 'F1', '--journal', 'journal.jsonl'],
      env: { FIXTURE_TOOLS: BOOKING_TOOLS },
    });
    await naiveAgent(run, bookingTask('Kill Me', '2026-03-06'));
    await run.call('search_bookings', { guest: 'Kill Me' });
    process.kill(run.pid!, 'SIGKILL');
    await run.stop().catch(() => undefined);
    const file = join(run.dir, 'journal.jsonl');
    const { lines, torn } = journalOf(file);
    expect(torn).toBe(false);
    const report = run.report();
    expect(report.status).toBe('running');
    expectMatchesReport(lines, report, writesIn(run.ledger()).length);
    expect(lines.some((l) => l.event === 'ended')).toBe(false);
    // A writer killed mid-line leaves a torn last line: the reader skips it, and says so.
    appendFileSync(file, '{"v":1,"event":"received","at":1,"session":"stdio","attem');
    const r = spawnSync(process.execPath, [BIN, 'check', run.reportFile, '--html', 'out.html', '--journal', 'journal.jsonl'], {
      cwd: run.dir,
      encoding: 'utf8',
      timeout: 30_000,
      env: { ...process.env, GITHUB_STEP_SUMMARY: '' },
    });
    expect(r.status).toBe(1); // a report still "running" is a harness failure
    expect(r.stderr).toMatch(/its last line is incomplete .* skipped/);
  });
});

describe('the end line (real processes)', () => {
  it('after SIGTERM (how the Vercel AI SDK closes a stdio server) the proxy still says verdict, score and report; --journal-payloads on writes the arguments (the distinctive value is in the file)', async () => {
    journalDir = mkdtempSync(join(tmpdir(), 'harness-journal-'));
    const journal = join(journalDir, 'journal.jsonl');
    raw = spawnProxy([...UPSTREAM, '--scenario', 'F1', '--journal', journal, '--journal-payloads', 'on'], {
      env: { FIXTURE_TOOLS: BOOKING_TOOLS },
    });
    await raw.initialize();
    const answer = resultOf(
      await raw.request('tools/call', { name: 'create_booking', arguments: { guest: SECRET, date: '2026-03-08' } }, 30_000),
    );
    expect(textOf(answer as never)).toMatch(/timed out/);
    raw.raw.child.kill('SIGTERM');
    const exit = await waitForExit(raw.raw.child, 15_000);
    expect(exit.code).toBe(0);
    const report = raw.report();
    const lines = raw.raw.stderr().trimEnd().split('\n');
    const score = report.score.overall === null ? 'no score' : `score ${report.score.overall}/100`;
    expect(lines.at(-1)).toBe(`[cuonztech-agent-harness] finished: ${report.verdict}, ${score}; report ${raw.reportFile}`);
    expect(raw.raw.stderr()).toContain('stopped: received SIGTERM');
    const journalLines = journalOf(journal).lines;
    expect(journalLines[0]).toMatchObject({ v: 1, event: 'journal', payloads: true });
    expect(journalLines.find((l) => l.event === 'received')?.arguments).toEqual({ guest: SECRET, date: '2026-03-08' });
  });
});

describe('with --listen (real processes)', () => {
  it('R-8.1: one journal for all sessions, every line naming its session and each session its report; a line per session and a summary at exit', async () => {
    journalDir = mkdtempSync(join(tmpdir(), 'harness-journal-'));
    const ledger = join(journalDir, 'ledger.jsonl');
    const proxy = await startListeningProxy(UPSTREAM, ['--scenario', 'F1', '--journal', 'journal.jsonl'], {
      FIXTURE_TOOLS: BOOKING_TOOLS,
      FIXTURE_LEDGER: ledger,
    });
    try {
      const agents = await Promise.all([connectHttpAgent(proxy.url), connectHttpAgent(proxy.url)]);
      await Promise.all(agents.map((agent, i) => naiveAgent(agent, bookingTask(`Listen ${i}`, '2026-03-09'))));
      await agents[0].terminate();
      const first = await proxy.waitForReport(agents[0].sessionId, (r) => r.status === 'finished');
      const exit = await proxy.proc.stop('SIGTERM');
      expect(exit.code).toBe(0);
      const { lines, torn } = journalOf(join(proxy.dir, 'journal.jsonl'));
      expect(torn).toBe(false);
      for (const [i, agent] of agents.entries()) {
        const own = lines.filter((l) => l.session === agent.sessionId);
        const opened = own.find((l) => l.event === 'opened') as Line & { report?: string };
        const report = JSON.parse(readFileSync(opened.report!, 'utf8')) as ReportFile;
        expect(report.status).toBe('finished');
        expectMatchesReport(own, report, bookingsIn(ledger, `Listen ${i}`).length);
      }
      const stderr = proxy.proc.stderr();
      expect(stderr).toMatch(
        new RegExp(
          `session 1 \\(${agents[0].sessionId.slice(0, 8)}\\) finished: ${first.verdict}, score ${first.score.overall}/100; report \\S+session-0001-`,
        ),
      );
      expect(stderr).toMatch(/session 2 \([0-9a-f-]{8}\) finished: FAIL/);
      expect(stderr.trimEnd().split('\n').at(-1)).toMatch(
        /finished: 2 sessions \(0 PASS, 2 FAIL, 0 NOT_TESTED\); reports in \S+reports$/,
      );
    } finally {
      await proxy.proc.stop('SIGKILL', 5_000).catch(() => undefined);
      removeDir(proxy.dir);
    }
  });
});
