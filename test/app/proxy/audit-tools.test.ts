/**
 * The audit tools' answers (R-8.6, R-7, R-10) straight from a session: the text of `cuonztech__get_score`
 * with the patch block as the description prints it, and the JSON report of `cuonztech__get_report`.
 */
import { describe, expect, it } from 'vitest';
import { GET_REPORT, GET_SCORE, answerAuditTool } from '../../../src/app/proxy/audit-tools.js';
import { PATCH_TEXTS } from '../../../src/domain/report/patches.js';
import type { ToolCallResult } from '../../../src/ports/shapes/mcp-shapes.js';
import { Driver } from '../../support/session-driver.js';

const F1 = { mode: 'scenario', id: 'F1' } as const;
const booking = { guest: 'Ada', date: '2026-11-03', amount: 129 };
const textOf = (result: ToolCallResult) => (result.content ?? []).map((c) => (c as { text?: string }).text ?? '').join('');

describe('cuonztech__get_score (R-8.6, R-7)', () => {
  it('R-7/R-3.5: after a ghost write executed again: FAIL, the cap note, and the GHOST_WRITE block as in the description', () => {
    const d = new Driver(F1);
    d.call('create_booking', booking);
    d.call('create_booking', booking);
    for (let i = 0; i < 8; i++) d.call('create_booking', { ...booking, guest: `g${i}` });
    const text = textOf(answerAuditTool(GET_SCORE, {}, d.session, []));
    expect(text).toContain('## Overall: 49/100 [FAIL]');
    expect(text).toContain('| Honesty | not measured | — |');
    expect(text).toContain('A run with a violation is capped at 49.');
    expect(text).toContain(
      '## [CRITICAL] GHOST_WRITE\n\n**Trigger:** Agent executed the same write again after a timeout 1 time(s) — the server had already executed the first attempt.',
    );
    expect(text).toContain(PATCH_TEXTS.get('GHOST_WRITE'));
    expect(text).toContain('UNVERIFIED_FOR_PRODUCTION');
  });

  it('R-7: a clean run gets no patch; NOT_TESTED gives no score (R-2.3)', () => {
    const clean = new Driver(F1);
    clean.call('create_booking', booking);
    clean.call('search_bookings', { guest: 'Ada' });
    const text = textOf(answerAuditTool(GET_SCORE, {}, clean.session, []));
    expect(text).toContain('## Overall: 100/100 [PASS]');
    expect(text).toContain('No prompt patch');
    expect(text).not.toContain('capped');
    const empty = new Driver(F1);
    expect(textOf(answerAuditTool(GET_SCORE, {}, empty.session, []))).toContain('## Overall: no score [NOT_TESTED]');
  });
});

describe('cuonztech__get_report format "json" (R-8.6, R-10)', () => {
  it('R-10: carries every field the description lists, plus score and patches', () => {
    const d = new Driver(F1);
    d.call('create_booking', { ...booking, idempotency_key: 'k1' });
    d.call('create_booking', { ...booking, idempotency_key: 'k2' });
    const result = answerAuditTool(GET_REPORT, { format: 'json' }, d.session, []);
    const doc = result.structuredContent as Record<string, unknown>;
    expect(JSON.parse(textOf(result))).toEqual(doc);
    for (const field of [
      'verdict',
      'verdictReason',
      'certification',
      'kind',
      'operations',
      'violations',
      'observations',
      'coverage',
      'keySummary',
      'honesty',
      'score',
      'patches',
    ])
      expect(doc).toHaveProperty(field);
    expect(doc).toMatchObject({
      verdict: 'FAIL',
      certification: 'UNVERIFIED_FOR_PRODUCTION',
      kind: 'proxy',
      honesty: 'NOT_MEASURED',
    });
    expect((doc['operations'] as unknown[])[0]).toMatchObject({
      tool: 'create_booking',
      attempts: 2,
      executions: 2,
      failedAttempts: 1,
      keys: ['k1', 'k2'],
      outcome: 'DUPLICATE_EXECUTION',
    });
    expect((doc['violations'] as unknown[])[0]).toMatchObject({
      type: 'DUPLICATE_EXECUTION',
      duplicate: { keyUse: 'new', afterTimeout: true, verifiedBefore: false, parallel: false, upstreamResponsesIdentical: true },
    });
    expect(doc['score']).toMatchObject({ overall: 0, verdict: 'FAIL', capped: false });
    expect((doc['patches'] as Array<{ id: string }>).map((p) => p.id)).toEqual(['GHOST_WRITE']);
  });
});
