/**
 * The Markdown summary at full size, against GitHub's real 1 MiB step summary limit: thousands of
 * violations of one session, thousands of sessions. The same rules at small N, in milliseconds:
 * `test/app/report-formats/markdown.test.ts`.
 */
import { describe, expect, it } from 'vitest';
import { buildMarkdown, buildStepSummary, STEP_SUMMARY_MAX_BYTES } from '../../src/app/report-formats/markdown.js';
import { manyNaive, naiveWith } from '../support/check-results.js';

describe('Markdown summary at full size', () => {
  it('R-9.1: one session with 5000 duplicate writes stays far below GitHub’s 1 MiB step summary limit', () => {
    const md = buildMarkdown(naiveWith(5000));
    expect(Buffer.byteLength(md)).toBeLessThan(64 * 1024);
  });

  it('R-9.1: 6000 failing sessions: the step summary stays within 1 MiB, with the result, the first cases and how many are left out', () => {
    const result = manyNaive(6000);
    expect(Buffer.byteLength(buildMarkdown(result))).toBeGreaterThan(STEP_SUMMARY_MAX_BYTES);
    const summary = buildStepSummary(result);
    expect(Buffer.byteLength(summary)).toBeLessThanOrEqual(STEP_SUMMARY_MAX_BYTES);
    expect(summary).toContain('## cuonztech-agent-harness check: ❌ FAIL');
    expect(summary).toContain('6000 session(s)/run(s): 0 PASS, 6000 FAIL');
    expect(summary).toContain('session-0.json');
    expect(summary).toMatch(/\n… and \d+ more row\(s\): the whole summary is over GitHub’s 1 MiB step summary limit/);
    expect(summary.endsWith('\n')).toBe(true);
  });

  it('R-9.1: 30,000 failing sessions: the summary is built (no "Maximum call stack size exceeded")', () => {
    const result = manyNaive(30_000);
    const md = buildMarkdown(result);
    expect(md).toContain('30000 session(s)/run(s): 0 PASS, 30000 FAIL');
    expect(Buffer.byteLength(buildStepSummary(result))).toBeLessThanOrEqual(STEP_SUMMARY_MAX_BYTES);
  });
});
