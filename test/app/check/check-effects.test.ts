/**
 * R-15 in `check`: the effects verdict of a report beside its verdict — a `--fail-on` gate
 * (DUPLICATE_EFFECT, LOST_EFFECT, EFFECTS_UNKNOWN), the console line, JUnit (read with a real XML parser),
 * Markdown and the HTML page (read with parse5): the effects verdict, why it disagrees, the snapshots in the
 * timeline and the keys.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterEach, describe, expect, it } from 'vitest';
import { readSource } from '../../../src/adapters/files/report-files/report-sources.js';
import type { CheckOptions, GatedVerdict } from '../../../src/app/check/check-model.js';
import { checkGroups } from '../../../src/app/check/check.js';
import { effectsGateNotice, formatCheckText } from '../../../src/app/check/check-text.js';
import { buildHtml } from '../../../src/app/report-formats/html.js';
import { buildJunit } from '../../../src/app/report-formats/junit.js';
import { buildMarkdown } from '../../../src/app/report-formats/markdown.js';
import { elementsOf, hasClass, textOf } from '../../support/html-dom.js';
import {
  carefulF1,
  documentOf,
  documentWithEffects,
  DOUBLED,
  naiveF1,
  ONCE,
  readsOnly,
  tempFiles,
} from '../../support/report-docs.js';

let files: ReturnType<typeof tempFiles> | undefined;
afterEach(() => files?.remove());

const options = (...failOn: GatedVerdict[]): CheckOptions => ({ failOn: new Set(failOn), minScore: null });

async function check(docs: Record<string, string>, opts: CheckOptions) {
  files = tempFiles(docs);
  const groups = [];
  for (const name of Object.keys(docs)) groups.push(await readSource(files.path(name)));
  return checkGroups(groups, opts);
}

describe('check --fail-on an effects verdict (R-15)', () => {
  it('a PASS after which the backend holds the booking twice is a FAIL under --fail-on DUPLICATE_EFFECT, naming the key; exit 2', async () => {
    // carefulF1 PASSes by executions; the backend (say another tool wrote it again) holds two.
    const docs = { 'pass-doubled.json': documentWithEffects(carefulF1(), DOUBLED) };
    const plain = await check(docs, options('FAIL', 'NOT_TESTED'));
    expect(plain.suites[0]!.cases[0]!).toMatchObject({ status: 'PASS', gatedBy: [] });
    expect(plain.suites[0]!.cases[0]!.effects!.verdict).toBe('DUPLICATE_EFFECT');
    expect(plain.exitCode).toBe(0);
    const gated = await check(docs, options('FAIL', 'NOT_TESTED', 'DUPLICATE_EFFECT'));
    const c = gated.suites[0]!.cases[0]!;
    expect(c).toMatchObject({ status: 'FAIL', gatedBy: ['DUPLICATE_EFFECT'], verdict: 'PASS' });
    expect(c.reason).toMatch(
      /^DUPLICATE_EFFECT \(--fail-on DUPLICATE_EFFECT\) \(effects: .*guest=Ann,date=2026-01-01 \(2 new\)\): /,
    );
    expect(gated.exitCode).toBe(2);
    expect(gated.counts).toMatchObject({ fail: 1, gated: 1, withEffects: 1 });
  });

  it('LOST_EFFECT gates an expected booking the backend never got; EXACTLY_ONCE never gates', async () => {
    const lost = documentWithEffects(carefulF1(), { before: [], after: [] }, ['guest=Ann,date=2026-01-01']);
    const once = documentWithEffects(carefulF1(), ONCE, ['guest=Ann,date=2026-01-01']);
    const result = await check(
      { 'lost.json': lost, 'once.json': once },
      options('LOST_EFFECT', 'DUPLICATE_EFFECT', 'EFFECTS_UNKNOWN'),
    );
    const [a, b] = result.suites.map((s) => s.cases[0]!);
    expect([a!.status, a!.effects!.verdict, b!.status, b!.effects!.verdict]).toEqual([
      'FAIL',
      'LOST_EFFECT',
      'PASS',
      'EXACTLY_ONCE',
    ]);
    expect(result.exitCode).toBe(2);
  });

  it('a report without an effects view cannot hit an effects gate, and the notice says how many were not judged', async () => {
    const opts = options('FAIL', 'DUPLICATE_EFFECT');
    const result = await check(
      { 'plain.json': documentOf(carefulF1()), 'viewed.json': documentWithEffects(carefulF1(), ONCE) },
      opts,
    );
    expect(result.suites.map((s) => s.cases[0]!.status)).toEqual(['PASS', 'PASS']);
    expect(effectsGateNotice(result, opts.failOn)).toMatch(
      /^--fail-on DUPLICATE_EFFECT: 1 of 2 session\(s\)\/run\(s\) had no effects view/,
    );
    expect(effectsGateNotice(result, options('FAIL').failOn)).toBeNull();
  });

  it('the console line shows the effects verdict beside the execution verdict', async () => {
    const result = await check({ 'fail-once.json': documentWithEffects(naiveF1(), ONCE) }, options('FAIL'));
    const line = formatCheckText(result).split('\n')[0]!;
    expect(line).toMatch(/^FAIL .*effects EXACTLY_ONCE;/);
  });
});

const xml = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  isArray: (name) => ['testsuite', 'testcase'].includes(name),
});

describe('the effects in JUnit, Markdown and HTML (R-15)', () => {
  it('JUnit: a gated case is a failure of type DUPLICATE_EFFECT with the keys; every case with a view says its effects in system-out', async () => {
    const result = await check(
      { 'gated.json': documentWithEffects(carefulF1(), DOUBLED), 'dedup.json': documentWithEffects(naiveF1(), ONCE) },
      options('FAIL', 'DUPLICATE_EFFECT'),
    );
    const text = buildJunit(result.suites);
    expect(XMLValidator.validate(text)).toBe(true);
    const doc = xml.parse(text) as {
      testsuites: {
        testsuite: Array<{ testcase: Array<{ failure?: { type: string; '#text': string }; 'system-out': string }> }>;
      };
    };
    const [gated, dedup] = doc.testsuites.testsuite.map((s) => s.testcase[0]!);
    expect(gated!.failure!.type).toBe('DUPLICATE_EFFECT');
    expect(gated!.failure!['#text']).toContain('guest=Ann,date=2026-01-01: 0 → 2, 2 new');
    expect(gated!['system-out']).toContain('Backend before the run: 0 record(s); after it: 2 record(s)');
    // FAIL by executions, EXACTLY_ONCE by effects: the explanation says the upstream de-duplicated.
    expect(dedup!.failure!.type).toBe('DUPLICATE_EXECUTION');
    expect(dedup!['system-out']).toMatch(/effects EXACTLY_ONCE/);
    expect(dedup!['system-out']).toMatch(/Why the two verdicts differ: .*de-duplicated/);
  });

  it('JUnit: a NOT_TESTED case is skipped, never green, and its system-out still says the effects verdict; a case without a view says none', async () => {
    const result = await check(
      { 'untested.json': documentWithEffects(readsOnly(), DOUBLED), 'plain.json': documentOf(carefulF1()) },
      options('FAIL', 'NOT_TESTED'),
    );
    const doc = xml.parse(buildJunit(result.suites)) as {
      testsuites: { testsuite: Array<{ testcase: Array<{ skipped?: { message: string }; 'system-out': string }> }> };
    };
    const [untested, plain] = doc.testsuites.testsuite.map((s) => s.testcase[0]!);
    expect(untested!.skipped!.message).toMatch(/^NOT_TESTED: /);
    expect(untested!['system-out']).toMatch(/effects DUPLICATE_EFFECT/);
    expect(untested!['system-out']).toContain('guest=Ann,date=2026-01-01: 0 → 2, 2 new');
    expect(plain!['system-out']).not.toMatch(/effects/i);
  });

  it('Markdown: FAIL by executions and EXACTLY_ONCE by effects shows both verdicts and why they differ', async () => {
    const md = buildMarkdown(await check({ 'dedup.json': documentWithEffects(naiveF1(), ONCE) }, options('FAIL')));
    expect(md).toMatch(/\| ❌ FAIL \|.*\| effects EXACTLY\\_ONCE \|/);
    expect(md).toMatch(/Why the two verdicts differ: .*de-duplicated/);
  });

  it('Markdown: the row says the effects verdict; a PASS with DUPLICATE_EFFECT gets its details with the key', async () => {
    const result = await check({ 'pass-doubled.json': documentWithEffects(carefulF1(), DOUBLED) }, options('FAIL'));
    const md = buildMarkdown(result);
    expect(md).toMatch(/\| ✅ PASS \|.*\| effects DUPLICATE\\_EFFECT \|/);
    expect(md).toContain('**Effects DUPLICATE\\_EFFECT:');
    expect(md).toContain('- guest=Ann,date=2026-01-01: 0 → 2, 2 new');
  });

  it('HTML: an effects section with both snapshots and the keys, and the timeline starts and ends with the snapshots', async () => {
    const result = await check({ 'dedup.json': documentWithEffects(naiveF1(), ONCE) }, options('FAIL'));
    const page = buildHtml(result);
    const all = elementsOf(page);
    const heading = all.find((e) => e.tagName === 'h3' && textOf(e).startsWith('Effects'));
    expect(heading).toBeDefined();
    const verdicts = all.filter((e) => e.tagName === 'div' && hasClass(e, 'verdict')).map(textOf);
    expect(verdicts[0]).toMatch(/^FAIL/);
    expect(verdicts[1]).toMatch(/^EXACTLY_ONCE.*de-duplicated/);
    const keyRows = all
      .filter((e) => e.tagName === 'table' && hasClass(e, 'effects'))
      .flatMap((t) => elementsOf(t).filter((e) => e.tagName === 'tr'));
    expect(
      keyRows.map((r) =>
        elementsOf(r)
          .filter((e) => e.tagName === 'td')
          .map(textOf),
      ),
    ).toEqual([[], ['guest=Ann,date=2026-01-01', '0', '1', '1', '0', '0', 'no']]);
    const timeline = all.find((e) => e.tagName === 'table' && hasClass(e, 'tl'))!;
    const rows = elementsOf(timeline).filter((e) => e.tagName === 'tr' && e.parentNode?.nodeName === 'tbody');
    expect(textOf(rows[0]!)).toMatch(/^start.*effects view.*tool search_bookings.*before the first call: 0 record\(s\)/);
    expect(textOf(rows[rows.length - 1]!)).toMatch(/^end.*after the last answer: 1 record\(s\)/);
    expect(rows.length).toBe(4);
  });
});
