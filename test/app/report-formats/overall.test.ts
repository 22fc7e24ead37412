/**
 * The overall result of `check`'s HTML page, read as a browser would (parse5): one page-wide banner at the
 * top with the result, why and the exit code (the sessions' own verdicts are boxes inside their sections),
 * the rate gates as a table (the same as `--markdown`'s), and score bars whose colour never contradicts the
 * verdict.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readSource } from '../../../src/adapters/files/report-files/report-sources.js';
import type { CheckResult } from '../../../src/app/check/check-model.js';
import type { RateGate } from '../../../src/app/check/rate-gates.js';
import { checkGroups } from '../../../src/app/check/check.js';
import { buildHtml } from '../../../src/app/report-formats/html.js';
import { buildMarkdown } from '../../../src/app/report-formats/markdown.js';
import { gatedTrial } from '../../support/check-results.js';
import { attrOf, classesOf, elementsOf, hasClass, textOf, type HtmlElement } from '../../support/html-dom.js';
import { carefulF1, documentOf, naiveF1, tempFiles, unverifiedF1 } from '../../support/report-docs.js';

let files: ReturnType<typeof tempFiles> | undefined;
afterEach(() => files?.remove());

async function reportsChecked(docs: Record<string, string>): Promise<CheckResult> {
  files = tempFiles(Object.fromEntries(Object.entries(docs).map(([name, doc]) => [`dir/${name}`, doc])));
  return checkGroups([await readSource(files.path('dir'))], { failOn: new Set(['FAIL', 'NOT_TESTED']), minScore: null });
}

const byClass = (all: HtmlElement[], cls: string) => all.filter((e) => hasClass(e, cls));
const sections = (all: HtmlElement[]) => all.filter((e) => e.tagName === 'section' && hasClass(e, 'case'));

describe('the HTML page: one overall banner at the top', () => {
  it('the first thing under the title is the overall banner; each session has its own verdict box, not a banner', async () => {
    const html = buildHtml(await reportsChecked({ 'a.json': documentOf(naiveF1()), 'b.json': documentOf(carefulF1()) }));
    const all = elementsOf(html);
    const banners = byClass(all, 'banner');
    expect(banners).toHaveLength(1);
    const [overall] = banners;
    expect(attrOf(overall!, 'id')).toBe('overall');
    expect(classesOf(overall!)).toContain('FAIL');
    expect(textOf(overall!)).toContain('2 session(s)/run(s): 1 PASS, 1 FAIL, 0 NOT_TESTED, 0 harness error(s) · exit code 2');
    const main = all.find((e) => e.tagName === 'main')!;
    const top = main.childNodes.filter((n): n is HtmlElement => 'tagName' in n);
    expect(top[0]!.tagName).toBe('h1');
    expect(top[1]).toBe(overall);
    const cases = sections(all);
    expect(cases).toHaveLength(2);
    for (const section of cases) {
      const boxes = byClass(elementsOf(section), 'verdict');
      expect(boxes).toHaveLength(1);
      expect(elementsOf(section).filter((e) => hasClass(e, 'banner'))).toEqual([]);
    }
    expect(cases.map((s) => classesOf(byClass(elementsOf(s), 'verdict')[0]!).filter((c) => c !== 'verdict'))).toEqual([
      ['FAIL'],
      ['PASS'],
    ]);
  });

  it('a PASS: the banner and the title say what the Markdown headline says', async () => {
    const result = await reportsChecked({ 'a.json': documentOf(carefulF1()) });
    const html = buildHtml(result);
    const overall = byClass(elementsOf(html), 'banner')[0]!;
    expect(textOf(overall).startsWith('PASS')).toBe(true);
    expect(buildMarkdown(result)).toContain(`check: ✅ ${textOf(elementsOf(overall).find((e) => e.tagName === 'b')!)}\n`);
    expect(textOf(elementsOf(html).find((e) => e.tagName === 'title')!)).toBe('cuonztech-agent-harness check: PASS');
  });
});

describe('score bars never green under a FAIL', () => {
  it('the capped score of a FAIL is red, its other bars grey or amber; a PASS at 100 is green, a PASS at 50 amber', async () => {
    const html = buildHtml(
      await reportsChecked({
        'a.json': documentOf(naiveF1()),
        'b.json': documentOf(carefulF1()),
        'c.json': documentOf(unverifiedF1()),
      }),
    );
    const tones = (section: HtmlElement) =>
      elementsOf(section)
        .filter((e) => hasClass(e, 'card') && elementsOf(e).some((i) => hasClass(i, 'bar')))
        .map((card) => {
          const fill = elementsOf(card).find((e) => e.tagName === 'i');
          return `${textOf(card.childNodes[1]!)}:${fill === undefined ? 'none' : classesOf(fill).join(' ')}`;
        });
    const [fail, pass, unverified] = sections(elementsOf(html));
    // naive: score capped at 49 (red), duplicate safety 0 (red), failure handling 0.
    expect(tones(fail!).every((t) => !t.endsWith(':good'))).toBe(true);
    expect(tones(fail!)[0]).toMatch(/^\d+:low$/);
    expect(Number(tones(fail!)[0]!.split(':')[0])).toBeLessThan(50);
    expect(tones(pass!)).toEqual(['100:good', '100:good', '100:good']);
    expect(tones(unverified!)).toEqual(['80:good', '100:good', '50:mid']);
  });
});

describe('the rate gates on the page', () => {
  const gates: RateGate[] = [
    { flag: 'min-pass-rate', threshold: 0.9 },
    { flag: 'max-duplicate-rate', threshold: 0.5 },
  ];

  it('--min-pass-rate 90 % missed: the banner says FAIL and which gate, the table has every gate as --markdown does', () => {
    const result = gatedTrial(gates, new Set(['FAIL']));
    expect(result.exitCode).toBe(2);
    const html = buildHtml(result);
    const all = elementsOf(html);
    const overall = byClass(all, 'banner')[0]!;
    expect(classesOf(overall)).toContain('FAIL');
    const label = textOf(elementsOf(overall).find((e) => e.tagName === 'b')!);
    expect(label).toBe('FAIL (1 of 2 rate gate(s) failed)');
    expect(buildMarkdown(result)).toContain(`## cuonztech-agent-harness check: ❌ ${label}\n`);
    const why = elementsOf(overall)
      .filter((e) => e.tagName === 'li')
      .map(textOf);
    expect(why).toEqual(['--min-pass-rate 90 % on F1: FAILED — PASS rate 17/20 = 85 %, below 90 % by 5 pp']);
    const table = all.find((e) => e.tagName === 'table' && hasClass(e, 'gates'))!;
    const rows = elementsOf(table).filter((e) => e.tagName === 'tr' && (hasClass(e, 'gate-ok') || hasClass(e, 'gate-failed')));
    const cells = rows.map((r) =>
      elementsOf(r)
        .filter((e) => e.tagName === 'td')
        .map(textOf),
    );
    expect(cells).toEqual([
      [
        'FAILED',
        '--min-pass-rate 90 %',
        'F1',
        '17/20 = 85 % 95 % interval 64 %–94.8 %',
        'FAILED — PASS rate 17/20 = 85 %, below 90 % by 5 pp',
      ],
      [
        'passed',
        '--max-duplicate-rate 50 %',
        'F1',
        '3/20 = 15 % 95 % interval 5.2 %–36 %',
        'passed — duplicate rate 3/20 = 15 %',
      ],
    ]);
    expect(rows.map((r) => classesOf(r)[0])).toEqual(['gate-failed', 'gate-ok']);
    // At 390 px each row is a card: every cell names its column.
    for (const row of rows)
      expect(
        elementsOf(row)
          .filter((e) => e.tagName === 'td')
          .map((td) => attrOf(td, 'data-label')),
      ).toEqual(['result', 'gate', 'group', 'measured', 'verdict']);
  });

  it('every gate met with single FAIL runs and no --fail-on FAIL: PASS, and the banner says why the FAILs do not count', () => {
    const result = gatedTrial([{ flag: 'max-duplicate-rate', threshold: 0.5 }], new Set());
    expect(result.exitCode).toBe(0);
    expect(result.counts.fail).toBe(2);
    const overall = byClass(elementsOf(buildHtml(result)), 'banner')[0]!;
    expect(classesOf(overall)).toContain('PASS');
    expect(textOf(overall)).toContain('PASS (0 of 1 rate gate(s) failed)');
    expect(textOf(overall)).toContain('the single FAIL runs do not fail the check (add --fail-on FAIL to make them)');
  });

  it('without a gate there is no gate table', async () => {
    const html = buildHtml(await reportsChecked({ 'a.json': documentOf(naiveF1()) }));
    expect(elementsOf(html).some((e) => hasClass(e, 'gates'))).toBe(false);
  });
});
