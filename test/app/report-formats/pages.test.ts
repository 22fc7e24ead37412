/**
 * The pages a person reads (issue 42 §6), read with a real HTML parser: the index has a "why" column and
 * is a card list on a phone, a session without a call is one line, arguments wrap between their members
 * and a multi-line answer keeps its lines, and one numbering of attempts — "attempt k" within its
 * operation, "call #n" the session's running number — in the timeline, the attribution and the transcript.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readSource } from '../../../src/adapters/files/report-files/report-sources.js';
import type { CheckedAttribution } from '../../../src/app/check/check-model.js';
import { checkGroups } from '../../../src/app/check/check.js';
import { attributionBadge, operationAttempts } from '../../../src/app/report-formats/attribution-badge.js';
import { jsonBreaks } from '../../../src/app/report-formats/escape.js';
import { buildHtml } from '../../../src/app/report-formats/html.js';
import { timelineFromReport } from '../../../src/app/report-formats/timeline.js';
import { attrOf, elementsOf, hasClass, textOf } from '../../support/html-dom.js';
import { carefulF1, documentOf, F, naiveF1, tempFiles } from '../../support/report-docs.js';
import { Driver } from '../../support/session-driver.js';

let files: ReturnType<typeof tempFiles> | undefined;
afterEach(() => files?.remove());

const OPTIONS = { failOn: new Set(['FAIL', 'NOT_TESTED'] as const), minScore: null };

async function folderResult(docs: Record<string, string>) {
  files = tempFiles(Object.fromEntries(Object.entries(docs).map(([name, doc]) => [`dir/${name}`, doc])));
  return checkGroups([await readSource(files.path('dir'))], OPTIONS);
}

describe('the index of a folder of sessions', () => {
  it('has a "why" column with the reason of each result, one card per session on a phone; a session without a call is one line', async () => {
    const result = await folderResult({
      'a-naive.json': documentOf(naiveF1()),
      'b-careful.json': documentOf(carefulF1()),
      'c-idle.json': documentOf(new Driver(F('F1'))),
      'd-idle.json': documentOf(new Driver(F('F1'))),
    });
    const cases = result.suites.flatMap((s) => s.cases);
    const idle = cases.find((c) => c.path.endsWith('c-idle.json'))!;
    expect(idle.status).toBe('NOT_TESTED');
    const html = buildHtml(result);
    const elements = elementsOf(html);
    const index = elements.find((e) => e.tagName === 'table' && hasClass(e, 'index'))!;
    expect(hasClass(index, 'stack')).toBe(true);
    const heads = elementsOf(index)
      .filter((e) => e.tagName === 'th')
      .map(textOf);
    expect(heads).toEqual(['result', 'session / run', 'score', 'honesty', 'why']);
    const rows = elementsOf(index).filter((e) => e.tagName === 'tr' && elementsOf(e).some((c) => c.tagName === 'td'));
    expect(rows).toHaveLength(4);
    const idleRow = rows.find((r) => textOf(r).includes('c-idle.json'))!;
    const why = elementsOf(idleRow).find((e) => e.tagName === 'td' && attrOf(e, 'data-label') === 'why')!;
    expect(textOf(why)).toContain(idle.reason);
    // Said once: "no calls were made", not "… (no call)" again.
    expect(textOf(why).match(/no call/g)).toHaveLength(1);
    // Every cell says what it is on a card.
    for (const td of elementsOf(index).filter((e) => e.tagName === 'td')) expect(attrOf(td, 'data-label')).toBeDefined();
    // The idle sessions: one line each (their verdict, name and why), no cards, no empty timeline.
    const sections = elements.filter((e) => e.tagName === 'section');
    expect(sections).toHaveLength(4);
    const quiet = sections.filter((s) => hasClass(s, 'quiet'));
    expect(quiet).toHaveLength(2);
    for (const section of quiet) {
      expect(elementsOf(section).filter((e) => e.tagName === 'p')).toHaveLength(1);
      expect(elementsOf(section).some((e) => hasClass(e, 'cards') || e.tagName === 'table')).toBe(false);
      expect(textOf(section)).toContain(idle.reason);
    }
    expect(html).not.toContain('Timeline: 0 ');
    // The link to a quiet session still lands on it.
    const href = attrOf(
      elementsOf(idleRow).find((e) => e.tagName === 'a')!,
      'href',
    )!;
    expect(quiet.map((s) => `#${attrOf(s, 'id')}`)).toContain(href);
  });
});

describe('the timeline', () => {
  it("wraps arguments between their members (a break after each comma), keeps a multi-line answer's lines, and numbers attempts within the operation", async () => {
    const result = await folderResult({ 'a.json': documentOf(naiveF1()), 'b.json': documentOf(carefulF1()) });
    const html = buildHtml(result, (_c, doc) => {
      const timeline = timelineFromReport(doc);
      return {
        ...timeline,
        calls: timeline.calls.map((call, i) => ({ ...call, call: i + 3, agentTold: 'line one\nline two' })),
      };
    });
    const cells = elementsOf(html).filter((e) => e.tagName === 'td');
    const args = cells.filter((e) => hasClass(e, 'args') && hasClass(e, 'mono'));
    expect(args.length).toBeGreaterThan(0);
    expect(html).toContain(
      '<span class="nb">{&quot;date&quot;:&quot;2026-01-01&quot;,</span><wbr><span class="nb">&quot;guest&quot;:&quot;Ann&quot;}</span>',
    );
    const told = cells.filter((e) => hasClass(e, 'told'));
    expect(told.length).toBe(args.length);
    expect(textOf(told[0]!)).toContain('line one\nline two');
    expect(html).toMatch(/td\.told\{white-space:pre-wrap\}/);
    const tools = cells.filter((e) => hasClass(e, 'tool')).map(textOf);
    expect(tools[0]).toContain('op 1, attempt 1 (call #3)');
    expect(tools[1]).toContain('op 1, attempt 2 (call #4)');
  });
});

const repeat = (session: number, attempt: number, earlierSession: number, earlierAttempt: number): CheckedAttribution => ({
  operation: 1,
  tool: 'create_booking',
  attempt,
  session,
  source: 'model',
  evidence: { earlierAttempt, earlierSession, sinceEarlierMs: 250, earlierDelivered: true, earlierCancelled: false },
  runtimeSignal: null,
});

describe('jsonBreaks', () => {
  it('a break after each comma; short members kept whole, long ones and markup left to wrap', () => {
    expect(jsonBreaks('{"a":1,"b":2}')).toBe('<span class="nb">{"a":1,</span><wbr><span class="nb">"b":2}</span>');
    const long = `"note":"${'w '.repeat(20)}"`;
    expect(jsonBreaks(`${long},"x":1`)).toBe(`${long},<wbr><span class="nb">"x":1</span>`);
    expect(jsonBreaks('"a":1<span class="muted">… (3 more)</span>')).toBe('"a":1<span class="muted">… (3 more)</span>');
    expect(jsonBreaks('')).toBe('');
  });
});

describe('one numbering of attempts', () => {
  it('numbers each attempt within its operation from the chain of repeats, across MCP sessions too', () => {
    const chain = [repeat(1, 7, 1, 3), repeat(2, 2, 1, 7), repeat(1, 9, 1, 5)];
    const attempts = operationAttempts(chain);
    expect(Object.fromEntries(attempts)).toEqual({ '1:3': 1, '1:7': 2, '2:2': 3, '1:5': 1, '1:9': 2 });
    // A chain that loops (a damaged file) ends; nothing is numbered twice.
    expect(operationAttempts([repeat(1, 2, 1, 3), repeat(1, 3, 1, 2)]).size).toBe(0);
  });

  it('the badge says "repeat of attempt 1 (call #3)", never the call number as an attempt', () => {
    const chain = [repeat(1, 7, 1, 3)];
    const badge = attributionBadge(chain[0]!, null, operationAttempts(chain));
    expect(badge).toContain('repeat of attempt 1 (call #3), 250 ms after it');
    expect(attributionBadge(chain[0]!, null, new Map())).toContain('repeat of call #3, 250 ms after it');
  });
});
