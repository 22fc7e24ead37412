/**
 * Thousands of parallel distinct writes through the compiled proxy under a heap cap (issue 11): memory
 * stays linear in the writes in flight (the uncertain tracker once kept a list per write of every later
 * one: 4000 parallel writes took 693 MB), answers reach the agent while another write is still at the
 * upstream, and the report agrees with the upstream's ledger. 2500 writes under a 128 MB heap (issue 12:
 * half the CPU of 5000 under 256 MB). By the figures (1000 → 131 MB, 4000 → 693 MB peak RSS, growing
 * with the square) the quadratic tracker would take ~330 MB for 2500, ~230 MB of it above the baseline.
 */
import { describe, expect, it } from 'vitest';
import { executions } from './fixtures/lib/ledger.mjs';
import { waitFor } from './fixtures/lib/raw-child.mjs';
import { COUNTING, faultLab, messagesMatching } from './faults/fault-lab.js';
import { expectNothingLost } from './faults/nothing-lost.js';

const WRITES = 2500;
const SLOW_ID = 1;
const FIRST_ID = 10;

describe('parallel distinct writes under a heap cap (issue 11)', () => {
  it(`R-13/R-9.2.1: ${WRITES} parallel distinct writes with --max-old-space-size=128: no crash, answers flow while a write is in flight, the report equals the ledger`, async ({
    onTestFinished,
  }) => {
    const lab = faultLab(onTestFinished);
    const p = await lab.start(COUNTING, { env: { NODE_OPTIONS: '--max-old-space-size=128' } });
    const line = (id: number, args: unknown) =>
      JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'create_order', arguments: args } });
    // One slow write first, then the rest in one burst: every other answer must come while it is at the upstream.
    const lines = [line(SLOW_ID, { item: 'slow', sleepMs: 60_000 })];
    for (let i = 0; i < WRITES - 1; i++) lines.push(line(FIRST_ID + i, { item: `item-${i}`, note: 'parallel' }));
    p.raw.send(lines.join('\n'));
    const answers = await messagesMatching(p, (m) => typeof m['id'] === 'number' && m['id'] >= FIRST_ID, WRITES - 1, 120_000, 0);
    expect(answers).toHaveLength(WRITES - 1);
    expect(answers.every((m) => 'result' in m)).toBe(true);
    expect(p.raw.child.exitCode).toBeNull();
    await waitFor(() => executions(p.ledger(), 'create_order').length === WRITES, 10_000, 'every write in the ledger');
    p.raw.child.stdin.end();
    const report = await expectNothingLost(p, { end: 0, exitTimeoutMs: 30_000 });
    const ops = report.report.operations as unknown as Array<{ arguments: string; executions: number; outcome: string }>;
    expect(ops).toHaveLength(WRITES);
    expect(ops.filter((op) => op.outcome === 'EXECUTION_UNKNOWN').map((op) => op.arguments)).toEqual([
      expect.stringContaining('slow'),
    ]);
    expect(ops.reduce((sum, op) => sum + op.executions, 0)).toBe(WRITES - 1);
  }, 180_000);
});
