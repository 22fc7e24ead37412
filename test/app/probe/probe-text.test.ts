import { describe, expect, it } from 'vitest';
import { formatProbeTable } from '../../../src/app/probe/probe-text.js';
import type { ProbeReport, ProbeRow } from '../../../src/ports/shapes/probe-results.js';

const row = (probe: ProbeRow['probe'], label: ProbeRow['label'], reason: string): ProbeRow => ({
  probe,
  label,
  reason,
  evidence: { answers: [], counts: [1, 1], listings: null, sent: [] },
});

const report = (verdict: 'KEEPS' | 'INCONCLUSIVE', reason: string): ProbeReport => ({
  server: 'node server.js',
  countWith: 'list_payments',
  tools: [
    {
      tool: 'create_payment',
      promise: { acceptsKey: true, hinted: false },
      keyField: 'idempotency_key',
      verdict,
      reason: verdict === 'KEEPS' ? 'every judged probe kept the promise' : 'no probe could be judged',
      keyLocation: 'arguments',
      probes: [row('P1', verdict === 'KEEPS' ? 'replay_ok' : 'inconclusive', reason)],
      skipped: [],
    },
  ],
});

const HINT = /^hint: .*--reset-command CMD/m;

describe('probe table: the --reset-command hint for a stateful server (issue 42 §6)', () => {
  it('a tool INCONCLUSIVE because the server still holds what an earlier run made gets the hint', () => {
    const stale = report('INCONCLUSIVE', 'the first call made no effect the count tool sees (1 → 1 items)');
    expect(formatProbeTable(stale)).toMatch(HINT);
    const refused = report('INCONCLUSIVE', 'the server refused the example: key already used');
    expect(formatProbeTable(refused)).toMatch(HINT);
  });

  it('no hint when --reset-command was given, when the tool was judged, or when it is inconclusive for another reason', () => {
    const stale = report('INCONCLUSIVE', 'the first call made no effect the count tool sees (1 → 1 items)');
    expect(formatProbeTable(stale, { reset: true })).not.toMatch(HINT);
    expect(formatProbeTable(report('KEEPS', 'one execution for two calls'))).not.toMatch(HINT);
    expect(formatProbeTable(report('INCONCLUSIVE', 'the count tool failed: not found'))).not.toMatch(HINT);
  });
});
