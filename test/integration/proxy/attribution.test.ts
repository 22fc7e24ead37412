/**
 * in plain `proxy` (stdio, no model side), through the whole CLI in-process with raw JSON-RPC lines
 * (`support/cli-proxy-lines.ts`) in front of the counting fixture upstream as a real process: the same
 * JSON-RPC request sent again with the same id is the runtime's; an ordinary re-call with a new id is
 * `unknown`. The upstream's own ledger counts the executions; the report, its finding and the journal's
 * lines say who sent each repeat.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { executions } from '../../../e2e/fixtures/lib/ledger.mjs';
import { waitFor } from '../../../e2e/fixtures/lib/raw-child.mjs';
import { FIXTURES } from '../../support/proxy-harness.js';
import type { Report } from '../../../src/domain/report/report.js';
import type { Finding } from '../../../src/domain/report/findings.js';
import { startLinesProxy, type LinesProxy } from '../../support/cli-proxy-lines.js';

const COUNTING = ['--upstream-command', process.execPath, '--upstream-arg', join(FIXTURES, 'counting-server.mjs')];

let proxy: LinesProxy | undefined;
let scratch: string | undefined;
afterEach(async () => {
  await proxy?.dispose();
  proxy = undefined;
  if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
  scratch = undefined;
});

const ORDER = '{"name":"create_order","arguments":{"item":"pen","quantity":2}}';

describe('R-14.2 plain proxy: runtime only on decisive signals', () => {
  it('R-14.2 the same JSON-RPC id sent again is runtime (a finding, no patch); an ordinary re-call is unknown; ledger 3', async () => {
    scratch = mkdtempSync(join(tmpdir(), 'harness-attribution-'));
    const journal = join(scratch, 'journal.jsonl');
    const p = (proxy = startLinesProxy([...COUNTING, '--journal', journal]));
    await p.initialize();
    const attempts = () => p.report().report.operations[0]?.attempts ?? 0;
    const settled = (n: number) => async () => attempts() === n && p.report().report.coverage.inFlight === 0;
    // The agent's runtime re-sends one request: the same line, the same id, after its answer.
    p.send(`{"jsonrpc":"2.0","id":"req-7","method":"tools/call","params":${ORDER}}`);
    await p.response('req-7');
    await waitFor(settled(1), 10_000, 'the first attempt');
    p.send(`{"jsonrpc":"2.0","id":"req-7","method":"tools/call","params":${ORDER}}`);
    await waitFor(settled(2), 10_000, 'the re-sent request');
    // The agent itself calls again: a new request id, nothing decisive.
    await p.request('tools/call', JSON.parse(ORDER));
    await waitFor(settled(3), 10_000, 'the re-call');
    expect(executions(p.ledger(), 'create_order')).toHaveLength(3);

    const file = p.report() as unknown as {
      report: Report;
      patches: Array<{ id: string; trigger: string }>;
      findings?: Finding[];
    };
    expect(file.report.operations[0]!.executions).toBe(3);
    expect(file.report.attribution!.map((a) => [a.attempt, a.source, a.evidence.signal ?? null, a.evidence.requestId])).toEqual([
      [2, 'runtime', 'same-request-id', 'req-7'],
      [3, 'unknown', null, expect.any(Number)],
    ]);
    // One value per violation: the source of the first extra execution.
    expect(file.report.violations[0]!.duplicate!.source).toBe('runtime');
    // the runtime's extra execution gets the finding; the unknown one keeps its prompt patch.
    expect(file.findings!.map((f) => [f.id, f.behaviour, f.count])).toEqual([['RUNTIME_RESEND', 'same-request-id', 1]]);
    expect(file.patches.map((patch) => patch.id)).toEqual(['IDEMPOTENCY']);
    expect(file.patches[0]!.trigger).toContain('1 time(s)');

    // The journal: every line of a repeated attempt carries its source, the first attempt's none.
    await p.stop();
    const lines = readFileSync(journal, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { event: string; attempt?: number; source?: string });
    const sourceOf = (attempt: number) => [...new Set(lines.filter((l) => l.attempt === attempt).map((l) => l.source ?? null))];
    expect(sourceOf(1)).toEqual([null]);
    expect(sourceOf(2)).toEqual(['runtime']);
    expect(sourceOf(3)).toEqual(['unknown']);
  });
});
