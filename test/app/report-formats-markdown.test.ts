/**
 * The Markdown summary at size ("even at the edges"): GitHub refuses a step summary
 * over 1 MiB as a whole, so one session with thousands of duplicate writes must not list every violation
 * there — the first ten, then how many more and where they all are (as the HTML report folds them).
 */
import { describe, expect, it } from 'vitest';
import type { CheckResult } from '../../src/app/check/check-model.js';
import { checkGroups } from '../../src/app/check/check.js';
import { mdFence } from '../../src/app/report-formats/escape.js';
import { buildMarkdown, buildStepSummary, STEP_SUMMARY_MAX_BYTES } from '../../src/app/report-formats/markdown.js';
import { parseReportDocument } from '../../src/adapters/report-files/report-schemas.js';
import { DEFAULT_TOOLS, Driver } from '../support/session-driver.js';
import { documentOf, F } from '../support/report-docs.js';

function naiveWith(duplicates: number): CheckResult {
  const d = new Driver(F('F1'), DEFAULT_TOOLS);
  for (let i = 0; i < duplicates; i++) {
    d.call('create_booking', { id: i, note: 'n'.repeat(200) });
    d.call('create_booking', { id: i, note: 'n'.repeat(200) });
  }
  const path = '/reports/naive.json';
  const document = parseReportDocument(JSON.parse(documentOf(d, 'finished')));
  return checkGroups([{ path, reader: 'file', items: [{ type: 'report', path, document }] }], {
    failOn: new Set(['FAIL', 'NOT_TESTED']),
    minScore: null,
  });
}

describe('Markdown summary: many violations', () => {
  it('R-9.1: the first ten violations of a case are listed, the rest counted and pointed to', () => {
    const result = naiveWith(40);
    const violations = result.suites[0]!.cases[0]!.violations.length;
    expect(violations).toBeGreaterThan(10);
    const md = buildMarkdown(result);
    expect(md.split('\n').filter((l) => l.startsWith('- ')).length).toBe(10);
    expect(md).toContain(`… and ${violations - 10} more violation(s) (all of them are in the report file)`);
  });

  it('R-9.1: one session with 5000 duplicate writes stays far below GitHub’s 1 MiB step summary limit', () => {
    const md = buildMarkdown(naiveWith(5000));
    expect(Buffer.byteLength(md)).toBeLessThan(64 * 1024);
  });
});

function manyNaive(sessions: number): CheckResult {
  const d = new Driver(F('F1'), DEFAULT_TOOLS);
  d.call('create_booking', { id: 1 });
  d.call('create_booking', { id: 1 });
  const document = parseReportDocument(JSON.parse(documentOf(d, 'finished')));
  const items = Array.from({ length: sessions }, (_, i) => ({
    type: 'report' as const,
    path: `/reports/a-rather-long-folder-name/session-${i}.json`,
    document,
  }));
  return checkGroups([{ path: '/reports', reader: 'report folder', items }], {
    failOn: new Set(['FAIL', 'NOT_TESTED']),
    minScore: null,
  });
}

describe('the step summary under GitHub’s 1 MiB limit', () => {
  it('R-9.1: a small result is the Markdown summary itself', () => {
    const result = naiveWith(2);
    expect(buildStepSummary(result)).toBe(buildMarkdown(result));
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
});

describe('mdFence at size', () => {
  it('a text with 200,000 backtick runs is fenced (no "Maximum call stack size exceeded")', () => {
    const text = 'a`'.repeat(200_000);
    const fenced = mdFence(text);
    expect(fenced.startsWith('```text\n')).toBe(true);
    expect(fenced.endsWith('\n```')).toBe(true);
  });
});

describe('Markdown summary of very many cases', () => {
  it('/ R-9.1: 30,000 failing sessions: the summary is built (no "Maximum call stack size exceeded")', () => {
    const result = manyNaive(30_000);
    const md = buildMarkdown(result);
    expect(md).toContain('30000 session(s)/run(s): 0 PASS, 30000 FAIL');
    expect(Buffer.byteLength(buildStepSummary(result))).toBeLessThanOrEqual(STEP_SUMMARY_MAX_BYTES);
    // Building 30,000 judged sessions is the slow part (about 10 s alone, 40 s on a loaded machine).
  }, 180_000);
});
