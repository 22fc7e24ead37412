/**
 * JSON-RPC ids a JavaScript number cannot hold (issue 11, item 7; R-13): the compiled proxy answers each
 * with `-32600` carrying the id token exactly as sent, so the agent can match the error; nothing reaches
 * the upstream, and the session goes on.
 */
import { describe, expect, it } from 'vitest';
import { waitFor } from '../fixtures/lib/raw-child.mjs';
import { rawText } from '../support/raw-proxy.js';
import { callTool, COUNTING, faultLab } from './fault-lab.js';
import { expectNothingLost } from './nothing-lost.js';

describe('ids beyond what a number holds', () => {
  it('R-13: ids 12345678901234567890, 1e300, 1.5 and -2.5E-3 get -32600 with the id token as sent (raw lines over a real process); nothing is executed', async ({
    onTestFinished,
  }) => {
    const p = await faultLab(onTestFinished).start(COUNTING);
    let stdout = '';
    p.raw.child.stdout.on('data', (chunk: string) => (stdout += chunk));
    const tokens = ['12345678901234567890', '1e300', '1.5', '-2.5E-3'];
    for (const token of tokens) {
      p.raw.send(
        `{"jsonrpc":"2.0","id":${token},"method":"tools/call","params":{"name":"create_order","arguments":{"item":"x"}}}`,
      );
    }
    const expected = tokens.map((token) => `{"jsonrpc":"2.0","id":${token},"error":{"code":-32600,"message":"Invalid Request"}}`);
    await waitFor(() => expected.every((line) => stdout.split('\n').includes(line)), 10_000, 'four -32600 answers');
    expect(stdout).not.toContain('"id":null');
    expect(rawText(await callTool(p, 'create_order', { item: 'after' }))).toBe('ok create_order #1');
    p.raw.child.stdin.end();
    await expectNothingLost(p, { end: 0, exact: true });
    expect(p.ledger()).toHaveLength(1);
  });
});
