/**
 * The Markdown summary at size ("even at the edges"): GitHub refuses a step summary
 * over 1 MiB as a whole, so one session with thousands of duplicate writes must not list every violation
 * there — the first ten, then how many more and where they all are (as the HTML report folds them).
 * Here at small N; the same at full size (5000 violations, 6000 and 30,000 sessions, GitHub's own limit):
 * `test/scale/report-formats-markdown.test.ts`.
 */
import { describe, expect, it } from 'vitest';
import { mdFence } from '../../../src/app/report-formats/escape.js';
import { buildMarkdown, buildStepSummary } from '../../../src/app/report-formats/markdown.js';
import { manyNaive, naiveWith } from '../../support/check-results.js';

describe('Markdown summary: many violations', () => {
  it('R-9.1: the first ten violations of a case are listed, the rest counted and pointed to', () => {
    const result = naiveWith(40);
    const violations = result.suites[0]!.cases[0]!.violations.length;
    expect(violations).toBeGreaterThan(10);
    const md = buildMarkdown(result);
    expect(md.split('\n').filter((l) => l.startsWith('- ')).length).toBe(10);
    expect(md).toContain(`… and ${violations - 10} more violation(s) (all of them are in the report file)`);
  });

  it('R-9.1: ten times the violations of a session add only the digits of their counts to the summary', () => {
    const few = buildMarkdown(naiveWith(20));
    const many = buildMarkdown(naiveWith(200));
    expect(Math.abs(Buffer.byteLength(many) - Buffer.byteLength(few))).toBeLessThanOrEqual(8);
  });
});

describe('the step summary under GitHub’s limit', () => {
  it('R-9.1: a small result is the Markdown summary itself', () => {
    const result = naiveWith(2);
    expect(buildStepSummary(result)).toBe(buildMarkdown(result));
  });

  it('R-9.1: a summary over the limit is cut to it, with the result, the first cases and how many are left out', () => {
    const result = manyNaive(60);
    const limit = 8 * 1024;
    expect(Buffer.byteLength(buildMarkdown(result))).toBeGreaterThan(limit);
    const summary = buildStepSummary(result, limit);
    expect(Buffer.byteLength(summary)).toBeLessThanOrEqual(limit);
    expect(summary).toContain('## cuonztech-agent-harness check: ❌ FAIL');
    expect(summary).toContain('60 session(s)/run(s): 0 PASS, 60 FAIL');
    expect(summary).toContain('session-0.json');
    const [, left] =
      /\n… and (\d+) more row\(s\): the whole summary is over GitHub’s 1 MiB step summary limit/.exec(summary) ?? [];
    const shown = summary.split('\n').filter((l) => l.includes('session-')).length;
    expect(shown).toBeGreaterThan(0);
    expect(shown + Number(left)).toBe(60);
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

describe('Markdown summary of many cases', () => {
  it('R-9.1: 300 failing sessions: a row and the details of each, the counts in the headline', () => {
    const md = buildMarkdown(manyNaive(300));
    expect(md).toContain('300 session(s)/run(s): 0 PASS, 300 FAIL');
    for (const i of [0, 150, 299]) expect(md.split(`session-${i}.json`).length).toBeGreaterThanOrEqual(3);
  });
});
