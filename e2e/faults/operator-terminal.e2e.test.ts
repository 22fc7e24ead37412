/**
 * The operator's terminal (issue 11 item 5; ): an upstream whose stderr and tool names
 * carry ANSI/OSC sequences, C1 controls, bidi overrides and zero-width characters, and one whose start-up
 * error does. The compiled proxy's stderr must show them escaped (`\u001b`, `\u200b`, …): no raw control,
 * bidi or invisible character, and no line forged in the proxy's own format.
 */
import { describe, expect, it } from 'vitest';
import { waitForExit } from '../fixtures/lib/raw-child.mjs';
import { rawText } from '../support/raw-proxy.js';
import { callTool, faultLab, nodeWord, sendCall, shell } from './fault-lab.js';

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
    const p = await faultLab(onTestFinished).start([...upstream, '--log-level', 'debug'], { env: { FIXTURE_TOOLS: TOOLS } });
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
    const p = faultLab(onTestFinished).launch(shell(`printf '${HOSTILE_STDERR}\\n' >&2; exit 3`));
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
