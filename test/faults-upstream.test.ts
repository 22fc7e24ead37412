/**
 * Upstream faults (issue 6, issue 11): an upstream that crashes before `initialize`, during `tools/list`
 * or during a write, one killed from outside, an answer over 10 MB (stdio, and HTTP with JSON and SSE
 * answers), answers nested too deeply to pass on, garbage on stdout, an upstream that exits 0 at once,
 * one that ignores SIGTERM and one that spawns children; and the operator's terminal (issue 11 item 5):
 * an upstream whose stderr and tool names carry ANSI/OSC sequences, C1 controls, bidi overrides and
 * zero-width characters must print escaped. After each: nothing lost (`e2e/faults/nothing-lost.ts`).
 *
 * Moved from e2e (issue 12): the proxy runs in-process (`main(argv, io)`, see `support/h2-cli-proxy.ts`)
 * in front of REAL upstream processes (the fixtures count what they execute in their own ledger); the
 * processes the upstream leaves are checked by pid. The time-out tests, which measure seconds on the
 * wall clock, stay in `e2e/proxy-lifecycle.e2e.test.ts`.
 */
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { executions, readLedger } from '../e2e/fixtures/lib/ledger.mjs';
import { waitFor, waitForExit } from '../e2e/fixtures/lib/raw-child.mjs';
import { removeDir, spawnNode, tempDir } from '../e2e/support/http-harness.js';
import { FIXTURES } from '../e2e/support/proxy-harness.js';
import { rawText } from '../e2e/support/raw-proxy.js';
import { callTool, COUNTING, messagesMatching, nodeFixture, nodeWord, sendCall, shell } from '../e2e/faults/fault-lab.js';
import { evidenceOf, expectNothingLost, upstreamPids } from '../e2e/faults/nothing-lost.js';
import { cliLab } from './support/h2-cli-proxy.js';
import { runMain } from './support/run-main.js';

// Each test starts real upstream processes; a busy two-core machine needs more than the unit default.
vi.setConfig({ testTimeout: 60_000 });

/** The report entry of the operation whose argument preview contains `marker`. */
const opWith = (report: { report: { operations: unknown[] } }, marker: string) =>
  (report.report.operations as Array<{ arguments: string; executions: number; attempts: number; outcome: string }>).find((op) =>
    op.arguments.includes(marker),
  );

/**
 * The counting upstream over Streamable HTTP (`e2e/fixtures/counting-http-server.mjs`), its ledger in a
 * folder of its own; killed (if still running) and removed when the test finishes.
 */
async function countingHttp(onTestFinished: (fn: () => Promise<void>) => void, env: Record<string, string>) {
  const dir = tempDir('harness-http-upstream-');
  const ledgerFile = join(dir, 'ledger.jsonl');
  const proc = spawnNode([join(FIXTURES, 'counting-http-server.mjs')], { FIXTURE_LEDGER: ledgerFile, ...env });
  onTestFinished(async () => {
    await proc.stop('SIGKILL', 5_000).catch(() => undefined);
    removeDir(dir);
  });
  const [, url] = await proc.waitForOutput(/listening on (http:\/\/\S+\/mcp)/, 10_000, 'the HTTP upstream banner');
  return { proc, url: url!, ledgerFile };
}

describe.concurrent('upstream does not start: exit 1, one clear line, a start-up report, no process left', () => {
  it('R-8.9: crash before initialize (exit 1 with a reason) → "upstream did not start" with that reason', async ({
    onTestFinished,
  }) => {
    const p = cliLab(onTestFinished).launch(shell(`echo $$ > "$FIXTURE_PIDFILE"; exec ${nodeWord('crash-before-init.mjs')}`));
    await expectNothingLost(p, {
      end: 1,
      report: 'startup-error',
      message: /^\[cuonztech-agent-harness\] error: upstream did not start: .*exit code 1.*cannot open database/m,
    });
    expect(upstreamPids(p)).toHaveLength(1);
  });

  // Changed to pass: the line used to say only "closed its stdout before answering", without the exit
  // status and the upstream's own reason that a crash during initialize shows.
  it("R-8.9: crash during tools/list → exit 1, the line names the exit code and the upstream's last stderr line", async ({
    onTestFinished,
  }) => {
    const p = cliLab(onTestFinished).launch(nodeFixture('crash-on-list.mjs'));
    const report = await expectNothingLost(p, {
      end: 1,
      report: 'startup-error',
      message:
        /error: upstream did not start: upstream tools\/list failed: .*\(exit code 3\): crash-on-list: tool catalogue is corrupt/,
    });
    expect(report.startupError).toMatch(/tools\/list failed.*exit code 3/);
    expect(upstreamPids(p)).toHaveLength(1);
  });

  // Changed to pass: an upstream that died before the proxy wrote `initialize` was reported as
  // "upstream MCP handshake failed: write EPIPE" (15 times out of 16 on a busy machine), its reason lost.
  it('R-8.9: 8 upstreams dying at once before initialize: every line names the exit code and the reason, never "write EPIPE"', async ({
    onTestFinished,
  }) => {
    const lab = cliLab(onTestFinished);
    const runs = Array.from({ length: 8 }, () => lab.launch(shell(`exec ${nodeWord('crash-before-init.mjs')}`)));
    for (const p of runs) {
      await expectNothingLost(p, {
        end: 1,
        report: 'startup-error',
        message:
          /upstream did not start: upstream exited before the MCP handshake \(exit code 1\): crash-before-init: cannot open database/,
      });
    }
  });

  it('R-8.9: an upstream that exits 0 at once → exit 1, "exited before the MCP handshake (exit code 0)"', async ({
    onTestFinished,
  }) => {
    const p = cliLab(onTestFinished).launch(shell(`echo $$ > "$FIXTURE_PIDFILE"; exec ${nodeWord('exits-at-once.mjs')}`));
    await expectNothingLost(p, {
      end: 1,
      report: 'startup-error',
      message: /upstream did not start: upstream exited before the MCP handshake \(exit code 0\)/,
    });
  });
});

describe.concurrent('upstream crashes while serving: the proxy keeps serving, then ends cleanly', () => {
  it('R-8.7: a crash during a write with 3 more writes in flight → all 4 EXECUTION_UNKNOWN, later calls UPSTREAM_UNAVAILABLE and not forwarded', async ({
    onTestFinished,
  }) => {
    const p = await cliLab(onTestFinished).start(COUNTING);
    for (let i = 1; i <= 3; i++) sendCall(p, 100 + i, 'create_order', { item: `slow-${i}`, sleepMs: 10_000 });
    await waitFor(() => executions(p.ledger()).length === 3, 10_000, '3 slow writes to execute');
    const crashed = await callTool(p, 'create_order', { item: 'boom', crash: true });
    expect(crashed['isError']).toBe(true);
    const slow = await messagesMatching(p, (m) => typeof m['id'] === 'number' && m['id'] > 100 && m['id'] < 104, 3);
    expect(slow.map((m) => (m['result'] as Record<string, unknown>)['isError'])).toEqual([true, true, true]);
    const later = await callTool(p, 'create_order', { item: 'later' });
    expect(rawText(later)).toMatch(/UPSTREAM_UNAVAILABLE/);
    expect(rawText(await callTool(p, 'cuonztech__get_score'))).toMatch(/\d|NOT_TESTED/);
    await waitFor(() => p.raw.stderr().includes('upstream crashed'), 10_000, 'the crash notice');
    const running = await expectNothingLost(p, {
      end: 'running',
      message: /upstream crashed \(exit code 3\); later calls get UPSTREAM_UNAVAILABLE/,
    });
    expect(opWith(running, 'later')).toMatchObject({ executions: 0, outcome: 'NOT_EXECUTED' });
    p.raw.child.stdin.end();
    const report = await expectNothingLost(p, { end: 0 });
    for (const marker of ['slow-1', 'slow-2', 'slow-3', 'boom'])
      expect(opWith(report, marker)).toMatchObject({ executions: 0, outcome: 'EXECUTION_UNKNOWN' });
    expect(executions(p.ledger())).toHaveLength(4);
  });

  it('R-8.7: the upstream killed from outside (SIGKILL) while idle → "killed by SIGKILL", the next write is not forwarded', async ({
    onTestFinished,
  }) => {
    const lab = cliLab(onTestFinished);
    const p = await lab.start(COUNTING);
    expect(rawText(await callTool(p, 'create_order', { item: 'first' }))).toBe('ok create_order #1');
    const [pid] = upstreamPids(p);
    lab.watch([pid!]);
    process.kill(pid!, 'SIGKILL');
    await waitFor(() => p.raw.stderr().includes('upstream crashed'), 10_000, 'the crash notice');
    expect(rawText(await callTool(p, 'create_order', { item: 'second' }))).toMatch(/UPSTREAM_UNAVAILABLE/);
    p.raw.child.stdin.end();
    const report = await expectNothingLost(p, { end: 0, exact: true, message: /upstream crashed \(killed by SIGKILL\)/ });
    expect(opWith(report, 'first')).toMatchObject({ executions: 1, outcome: 'EXECUTED' });
    expect(opWith(report, 'second')).toMatchObject({ executions: 0, outcome: 'NOT_EXECUTED' });
  });

  // Changed to pass: stderr used to say "upstream crashed (exit code 0)" although the upstream did not
  // crash: the proxy itself closed it after the oversized answer.
  it('R-8.7: an answer over 10 MB → isError "too large", EXECUTION_UNKNOWN; stderr says the proxy closed the upstream; later calls UPSTREAM_UNAVAILABLE', async ({
    onTestFinished,
  }) => {
    const p = await cliLab(onTestFinished).start(COUNTING);
    const huge = await callTool(p, 'create_order', { item: 'huge', hugeAnswerBytes: 11 * 1024 * 1024 }, 30_000);
    expect(huge['isError']).toBe(true);
    expect(rawText(huge)).toMatch(/too large \(over 10 MB\)/);
    expect(rawText(await callTool(p, 'get_order', { order_id: 'o-1' }))).toMatch(/UPSTREAM_UNAVAILABLE/);
    await waitFor(() => p.raw.stderr().includes('the proxy closed the upstream'), 10_000, 'the notice');
    p.raw.child.stdin.end();
    const report = await expectNothingLost(p, {
      end: 0,
      message: /the proxy closed the upstream: the upstream sent a message over 10485760 bytes/,
    });
    expect(p.raw.stderr()).not.toMatch(/upstream crashed/);
    expect(opWith(report, 'huge')).toMatchObject({ executions: 0, outcome: 'EXECUTION_UNKNOWN' });
    expect(executions(p.ledger(), 'create_order')).toHaveLength(1);
  });

  for (const answers of ['json', 'sse'] as const) {
    it(`R-8.7: over HTTP (--upstream-url, ${answers === 'json' ? 'JSON answer' : 'SSE answer'}) an answer over 10 MB → the same: isError "too large", EXECUTION_UNKNOWN, "the proxy closed the upstream", later calls UPSTREAM_UNAVAILABLE, the upstream session ended`, async ({
      onTestFinished,
    }) => {
      const upstream = await countingHttp(onTestFinished, { FIXTURE_HTTP_ANSWERS: answers });
      const p = await cliLab(onTestFinished).start(['--upstream-url', upstream.url]);
      const huge = await callTool(p, 'create_order', { item: 'huge', hugeAnswerBytes: 11 * 1024 * 1024 }, 30_000);
      expect(huge['isError']).toBe(true);
      expect(rawText(huge)).toMatch(/too large \(over 10 MB\): the upstream sent a message over 10485760 bytes/);
      expect(rawText(await callTool(p, 'get_order', { order_id: 'o-1' }))).toMatch(/UPSTREAM_UNAVAILABLE/);
      await waitFor(() => p.raw.stderr().includes('the proxy closed the upstream'), 10_000, 'the notice');
      p.raw.child.stdin.end();
      expect(await waitForExit(p.raw.child, 20_000)).toEqual({ code: 0, signal: null });
      // Nothing left: the proxy ended the upstream's session; the upstream itself is not the proxy's to stop.
      expect(upstream.proc.stderr()).toMatch(/counting-http-server: session \S+ ended/);
      expect(await upstream.proc.stop('SIGTERM')).toEqual({ code: 0, signal: null });
      const report = await expectNothingLost(
        { ...evidenceOf(p), ledgerFile: upstream.ledgerFile },
        {
          end: 0,
          message: /the proxy closed the upstream: the upstream sent a message over 10485760 bytes/,
        },
      );
      expect(p.raw.stderr()).not.toMatch(/upstream crashed/);
      expect(opWith(report, 'huge')).toMatchObject({ executions: 0, outcome: 'EXECUTION_UNKNOWN' });
      expect(executions(readLedger(upstream.ledgerFile), 'create_order')).toHaveLength(1);
      expect(executions(readLedger(upstream.ledgerFile), 'get_order')).toHaveLength(0);
    });
  }

  // Changed to pass: an agent that left before the upstream's exit was recorded (here: at once, while the
  // upstream still writes its 11 MB) suppressed the notice altogether.
  it('R-8.7: the agent leaving right after the oversized answer does not hide the notice', async ({ onTestFinished }) => {
    const p = await cliLab(onTestFinished).start(COUNTING);
    expect(rawText(await callTool(p, 'create_order', { item: 'huge', hugeAnswerBytes: 11 * 1024 * 1024 }, 30_000))).toMatch(
      /too large/,
    );
    p.raw.child.stdin.end();
    await expectNothingLost(p, {
      end: 0,
      message: /the proxy closed the upstream: the upstream sent a message over 10485760 bytes/,
    });
  });
});

describe.concurrent('answers nested too deeply to pass on (100,000 levels)', () => {
  // Changed to pass: such an answer used to be lost — serialising it for the agent failed, so the agent
  // waited for ever while the report said the call was EXECUTED.
  it('R-8.5 / R-13: a tools/call answer nested 100,000 deep → a clear isError answer, EXECUTION_UNKNOWN; the next call is answered too', async ({
    onTestFinished,
  }) => {
    const p = await cliLab(onTestFinished).start(nodeFixture('deep-answer.mjs'));
    for (const item of ['first', 'second']) {
      const result = await callTool(p, 'create_order', { item });
      expect(result['isError']).toBe(true);
      expect(rawText(result)).toBe(
        'The server sent an answer nested more than 1000 levels deep; it cannot be passed on. The call may have been executed.',
      );
    }
    p.raw.child.stdin.end();
    const report = await expectNothingLost(p, { end: 0 });
    expect(report.report.operations.map((op) => op.outcome)).toEqual(['EXECUTION_UNKNOWN', 'EXECUTION_UNKNOWN']);
    expect(executions(p.ledger())).toHaveLength(2);
  });

  // Changed to pass: tools/list used to stay unanswered for ever.
  it('R-8.5: a tool whose inputSchema is nested 100,000 deep → tools/list is answered with a -32603 error instead of never; calls still work', async ({
    onTestFinished,
  }) => {
    const p = await cliLab(onTestFinished).start(nodeFixture('deep-answer.mjs'), { env: { FIXTURE_DEEP_SCHEMA: '1' } });
    expect(await p.request('tools/list', {})).toMatchObject({
      error: { code: -32603, message: expect.stringMatching(/could not be serialised.*nested too deeply/) },
    });
    expect(rawText(await callTool(p, 'get_order', { order_id: 'o-1' }))).toMatch(/nested more than 1000 levels deep/);
    p.raw.child.stdin.end();
    await expectNothingLost(p, { end: 0 });
  });
});

describe.concurrent('misbehaving upstream processes', () => {
  it('R-8.5: garbage lines on the upstream stdout are skipped: 20 writes, 20 answers, counts exact', async ({
    onTestFinished,
  }) => {
    const p = await cliLab(onTestFinished).start(nodeFixture('garbage-stdout.mjs'));
    for (let i = 1; i <= 20; i++) sendCall(p, i, 'create_order', { item: `item-${i}` });
    const answers = await messagesMatching(p, (m) => typeof m['id'] === 'number' && m['id'] >= 1 && m['id'] <= 20, 20);
    expect(answers.map((m) => rawText(m['result'] as Record<string, unknown>)).sort()).toEqual(
      Array.from({ length: 20 }, (_, i) => `ok create_order #${i + 1}`).sort(),
    );
    p.raw.child.stdin.end();
    const report = await expectNothingLost(p, { end: 0, exact: true });
    expect(report.report.operations).toHaveLength(20);
  });

  it('R-8.8: an upstream that ignores SIGTERM and stdin EOF is killed (SIGKILL) after the agent leaves; exit 0', async ({
    onTestFinished,
  }) => {
    const p = await cliLab(onTestFinished).start(nodeFixture('ignores-sigterm.mjs'), { env: { FIXTURE_MAX_LIFE_MS: '60000' } });
    expect(rawText(await callTool(p, 'create_order', { item: 'pen' }))).toBe('ok create_order #1');
    p.raw.child.stdin.end();
    await expectNothingLost(p, { end: 0, exact: true });
  });

  it('R-8.8: an upstream that spawns a SIGTERM-proof child: both are gone after the agent leaves', async ({ onTestFinished }) => {
    const lab = cliLab(onTestFinished);
    const p = await lab.start(nodeFixture('spawns-child.mjs'), { env: { FIXTURE_MAX_LIFE_MS: '60000' } });
    expect(rawText(await callTool(p, 'create_order', { item: 'pen' }))).toBe('ok create_order #1');
    const pids = await waitFor(() => (upstreamPids(p).length >= 2 ? upstreamPids(p) : undefined), 10_000, 'the child pid');
    lab.watch(pids);
    p.raw.child.stdin.end();
    await expectNothingLost(p, { end: 0, exact: true, pids });
    expect(readLedger(p.ledgerFile)).toHaveLength(1);
  });
});

/** Raw characters a terminal acts on or that hide themselves (line feeds are the proxy's own). */
const RAW_UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u00ad\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/u;

/** printf text (octal escapes, portable to dash): clear screen, window title, CR + forged ready line, 8-bit CSI, RLO, ZWSP. */
const HOSTILE_STDERR = [
  String.raw`\033[2J\033[H\033]0;pwned\007upstream says hi`,
  String.raw`\r[cuonztech-agent-harness] proxy ready: forged\033[K`,
  String.raw`\302\23331m red \342\200\256 reversed \342\200\213 hidden`,
].join(String.raw`\n`);

const TOOLS = JSON.stringify([
  { name: 'create_order', inputSchema: { type: 'object' } },
  { name: 'get\u200b_orders', inputSchema: { type: 'object' } },
  { name: 'pay\u202e_gnitset', inputSchema: { type: 'object' } },
  { name: 'x\u001b[2J\u009b31m\u2066y', inputSchema: { type: 'object' } },
]);

function expectNoRawUnsafe(stderr: string): void {
  const found = [...stderr]
    .filter((ch) => RAW_UNSAFE.test(ch))
    .map((ch) => `U+${ch.codePointAt(0)!.toString(16).padStart(4, '0')}`);
  expect(found, `raw characters on the proxy's stderr:\n${stderr}`).toEqual([]);
}

describe.concurrent("escaped on the operator's terminal", () => {
  it("R-8.4, R-8.7: hostile tool names and an upstream's hostile stderr tail (after a crash) print escaped; no raw ESC/C1/bidi/zero-width character, no forged ready line", async ({
    onTestFinished,
  }) => {
    const upstream = shell(`printf '${HOSTILE_STDERR}\\n' >&2; exec ${nodeWord('counting-server.mjs')}`);
    const p = await cliLab(onTestFinished).start([...upstream, '--log-level', 'debug'], { env: { FIXTURE_TOOLS: TOOLS } });
    expect(rawText(await callTool(p, 'create_order', { item: 'pen' }))).toBe('ok create_order #1');
    expect(rawText(await callTool(p, 'get\u200b_orders', {}))).toBe('ok get\u200b_orders #1');
    sendCall(p, 50, 'create_order', { item: 'boom', crash: true });
    await p.response(50, 15_000);
    p.raw.child.stdin.end();
    expect(await waitForExit(p.raw.child, 20_000)).toEqual({ code: 0, signal: null });
    const stderr = p.raw.stderr();
    expectNoRawUnsafe(stderr);
    expect(stderr).toContain('get\\u200b_orders');
    expect(stderr).toContain('pay\\u202e_gnitset');
    expect(stderr).toContain('x\\u001b[2J\\u009b31m\\u2066y');
    expect(stderr).toContain('upstream stderr: \\u001b[2J\\u001b[H\\u001b]0;pwned\\u0007upstream says hi');
    expect(stderr).toContain('upstream stderr: \\u000d[cuonztech-agent-harness] proxy ready: forged\\u001b[K');
    expect(stderr).toContain('upstream stderr: \\u009b31m red \\u202e reversed \\u200b hidden');
    const readyLines = stderr.split('\n').filter((line) => line.startsWith('[cuonztech-agent-harness] proxy ready:'));
    expect(readyLines).toHaveLength(1);
    expect(readyLines[0]).not.toContain('forged');
    // The unclassified hostile names are named in WARNING lines, escaped.
    expect(stderr).toMatch(/WARNING: tool "get\\u200b_orders" could not be classified/);
    // Structured logs (--log-level debug) went through the same escaping and are still JSON.
    const records = stderr.split('\n').filter((line) => line.startsWith('{'));
    expect(records.length).toBeGreaterThan(0);
    for (const record of records) expect(() => JSON.parse(record) as unknown).not.toThrow();
  });

  it("R-8.9: a start-up error carrying the upstream's hostile last stderr line prints as one escaped line; exit 1", async ({
    onTestFinished,
  }) => {
    const p = cliLab(onTestFinished).launch(shell(`printf '${HOSTILE_STDERR}\\n' >&2; exit 3`));
    expect(await waitForExit(p.raw.child, 20_000)).toEqual({ code: 1, signal: null });
    const stderr = p.raw.stderr();
    expectNoRawUnsafe(stderr);
    const lines = stderr.trimEnd().split('\n');
    expect(lines, stderr).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^\[cuonztech-agent-harness\] error: upstream did not start: .*\\u009b31m red \\u202e reversed \\u200b hidden/,
    );
  });
});

describe('the default upstream time-out', () => {
  it('R-8.7: proxy --help says the upstream time-out is 60 s by default (the wait itself: e2e/proxy-lifecycle.e2e.test.ts)', async () => {
    const lines: string[] = [];
    const spy = vi.spyOn(console, 'log').mockImplementation((text: string) => void lines.push(text));
    try {
      expect((await runMain(['proxy', '--help'])).code).toBe(0);
    } finally {
      spy.mockRestore();
    }
    expect(lines.join('\n')).toMatch(/--upstream-timeout <value>\s+Seconds to wait for an upstream answer \(default 60\)/);
  });
});
