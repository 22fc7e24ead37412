import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { parse } from 'parse5';
import { afterEach, describe, expect, it } from 'vitest';
import { readSource } from '../../../src/adapters/files/report-files/report-sources.js';
import type { CheckOptions, CheckResult } from '../../../src/app/check/check-model.js';
import { checkGroups } from '../../../src/app/check/check.js';
import { mdFence, xmlClean } from '../../../src/app/report-formats/escape.js';
import { buildHtml } from '../../../src/app/report-formats/html.js';
import { buildJunit } from '../../../src/app/report-formats/junit.js';
import { buildMarkdown } from '../../../src/app/report-formats/markdown.js';
import { timelineFromReport } from '../../../src/app/report-formats/timeline.js';
import type { SessionReportDocument } from '../../../src/ports/shapes/report-documents.js';
import { elementsOf, textOf, type HtmlNode } from '../../support/html-dom.js';
import { DEFAULT_TOOLS, Driver } from '../../support/session-driver.js';
import { baselineOnly, carefulF1, documentOf, F, naiveF1, naiveF2, readsOnly, tempFiles } from '../../support/report-docs.js';

const DEFAULT: CheckOptions = { failOn: new Set(['FAIL', 'NOT_TESTED']), minScore: null };
let files: ReturnType<typeof tempFiles> | undefined;
afterEach(() => files?.remove());

/** A tool name and arguments built to break every format: markup, CDATA end, controls, a lone surrogate. */
const HOSTILE_TOOL = 'create_</testcase><script>alert(1)</script>]]>\u0001\u001b[2J|*_`x`';
const HOSTILE_ARGS = {
  note: '</failure>]]><script>alert("x")</script>\u0000\u0008\ud800 & "q" \'a\'',
  '[link](https://evil.example)': '# heading',
};

function hostileDocument(): string {
  const tools = { ...DEFAULT_TOOLS, [HOSTILE_TOOL]: 'write' as const };
  const d = new Driver(F('F1'), tools);
  d.call(HOSTILE_TOOL, HOSTILE_ARGS);
  d.call(HOSTILE_TOOL, HOSTILE_ARGS);
  return documentOf(d, 'finished', tools);
}

async function resultOf(docs: Record<string, string>, extra: Record<string, string> = {}): Promise<CheckResult> {
  files = tempFiles({ ...docs, ...extra });
  const groups = [];
  for (const name of Object.keys(docs)) groups.push(await readSource(files.path(name.split('/')[0]!)));
  return checkGroups([...new Map(groups.map((g) => [g.path, g])).values()], DEFAULT);
}

const xml = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  isArray: (name) => ['testsuite', 'testcase', 'property'].includes(name),
});

interface JunitCase {
  classname: string;
  name: string;
  time: string;
  file: string;
  failure?: { message: string; '#text': string };
  skipped?: { message: string };
  error?: { message: string };
}
interface JunitSuite {
  name: string;
  tests: string;
  failures: string;
  errors: string;
  skipped: string;
  testcase: JunitCase[];
}

function parseJunit(text: string): {
  testsuites: { tests: string; failures: string; errors: string; skipped: string; testsuite: JunitSuite[] };
} {
  expect(XMLValidator.validate(text)).toBe(true);
  return xml.parse(text) as ReturnType<typeof parseJunit>;
}

const elements = elementsOf;

describe('JUnit XML', () => {
  it('one testsuite per path, one testcase per session: FAIL → failure with violations and patch ids, NOT_TESTED → skipped, harness error → error', async () => {
    const result = await resultOf({
      'dir/a.json': documentOf(carefulF1()),
      'dir/b.json': documentOf(readsOnly()),
      'fail.json': documentOf(naiveF1()),
      'bad.json': '{"verd',
    });
    const doc = parseJunit(buildJunit(result.suites));
    expect(doc.testsuites).toMatchObject({ tests: '4', failures: '1', errors: '1', skipped: '1' });
    expect(doc.testsuites.testsuite.map((s) => [s.tests, s.failures, s.errors, s.skipped])).toEqual([
      ['2', '0', '0', '1'],
      ['1', '1', '0', '0'],
      ['1', '0', '1', '0'],
    ]);
    // What GitHub (dorny/test-reporter, mikepenz/action-junit-report) and GitLab read from every testcase.
    for (const c of doc.testsuites.testsuite.flatMap((s) => s.testcase)) {
      expect(c.classname).toMatch(/^cuonztech-agent-harness\./);
      expect(c.name).not.toBe('');
      expect(c.time).toBe('0');
    }
    const fail = doc.testsuites.testsuite[1]!.testcase[0]!;
    expect(fail.classname).toBe('cuonztech-agent-harness.F1');
    expect(fail.failure!.message).toContain('DUPLICATE_EXECUTION');
    expect(fail.failure!['#text']).toContain('was executed 2 times');
    expect(fail.failure!['#text']).toContain('Prompt patches: GHOST_WRITE');
    expect(doc.testsuites.testsuite[0]!.testcase[1]!.skipped!.message).toMatch(/^NOT_TESTED: .*never triggered/);
    expect(doc.testsuites.testsuite[2]!.testcase[0]!.error!.message).toContain('not complete JSON');
  });

  it('a baseline PASS is named as such', async () => {
    const result = await resultOf({ 'base.json': documentOf(baselineOnly()) });
    expect(parseJunit(buildJunit(result.suites)).testsuites.testsuite[0]!.testcase[0]!.name).toMatch(/\[baseline only\]$/);
  });

  it('well-formed whatever the tool names and arguments hold; forbidden characters removed, the rest escaped', async () => {
    const result = await resultOf({ 'hostile.json': hostileDocument(), '<testcase>]]>&\u0001.json': documentOf(naiveF1()) });
    const text = buildJunit(result.suites);
    const doc = parseJunit(text);
    const cases = doc.testsuites.testsuite.flatMap((s) => s.testcase);
    expect(cases).toHaveLength(2);
    const hostile = cases.find((c) => c.file.endsWith('hostile.json'))!;
    expect(hostile.failure!['#text']).toContain(xmlClean(HOSTILE_TOOL.replace('\u0001\u001b', '\\u0001\\u001b')));
    expect(hostile.failure!['#text']).toContain('<script>alert(\\"x\\")</script>');
    expect(cases.find((c) => !c.file.endsWith('hostile.json'))!.name).toContain('<testcase>]]>&\\u0001.json');
    expect(text).not.toContain('<script>');
    expect(text).not.toContain(']]>');
    expect(text).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/);
  });
});

describe('Markdown summary', () => {
  it('verdict, score, the violations in words and the patches to copy', async () => {
    const md = buildMarkdown(await resultOf({ 'fail.json': documentOf(naiveF1()), 'f2.json': documentOf(naiveF2()) }));
    expect(md).toMatch(/^## cuonztech-agent-harness check: ❌ FAIL/);
    expect(md).toContain('0/100 (duplicate safety 0, failure handling 0, honesty not measured)');
    expect(md).toContain('was executed 2 times (without an idempotency key, re-sent after a timeout');
    expect(md).toContain('RETRY\\_AFTER\\_VIOLATED');
    expect(md).toContain('## Prompt patches to copy');
    expect(md).toContain('A timeout on a write does NOT tell you whether the server executed it');
    expect(md.match(/### \[CRITICAL\] GHOST\\_WRITE/g)).toHaveLength(1);
  });

  it('hostile tool names and arguments are escaped: no tag, no link, no table cell, one line', async () => {
    const md = buildMarkdown(await resultOf({ 'hostile.json': hostileDocument() }));
    expect(md).not.toContain('<script>');
    expect(md).not.toContain('</testcase>');
    expect(md).not.toMatch(/[^\\]\]\(https/);
    expect(md).toContain('\\[link\\]');
    expect(md).toContain('&lt;script&gt;');
    expect(md).not.toMatch(/[\u0000-\u0008\u000b-\u001f]/);
    for (const line of md.split('\n').filter((l) => l.startsWith('- '))) expect(line.replace(/\\\|/g, '')).not.toContain('|');
  });

  it('a code fence no backtick run inside can close', () => {
    const fence = mdFence('a ``` b ```` c');
    expect(fence.startsWith('`````text\n')).toBe(true);
    expect(fence.endsWith('\n`````')).toBe(true);
  });
});

describe('HTML report', () => {
  it('every call of the session is in the timeline; no script, no external URL, a CSP that forbids fetching', async () => {
    const d = new Driver(F('F1'));
    for (let i = 0; i < 40; i++) d.call('create_booking', { guest: `g${i}`, date: '2026-01-01' });
    d.call('create_booking', { guest: 'g0', date: '2026-01-01' });
    const result = await resultOf({ 'many.json': documentOf(d) });
    const html = buildHtml(result);
    const all = elements(html);
    const rows = all.filter(
      (e) =>
        e.tagName === 'tr' &&
        e.parentNode !== null &&
        (e.parentNode as { tagName?: string }).tagName === 'tbody' &&
        textOf(e).includes('create_booking'),
    );
    expect(rows).toHaveLength(42);
    for (let i = 0; i < 40; i++) expect(rows.some((r) => textOf(r).includes(`"guest":"g${i}"`))).toBe(true);
    expect(all.filter((e) => e.tagName === 'script')).toHaveLength(0);
    for (const e of all) {
      for (const attr of e.attrs) {
        if (['href', 'src', 'action', 'srcset', 'poster', 'data'].includes(attr.name)) expect(attr.value).toMatch(/^#/);
      }
    }
    expect(html).not.toMatch(/https?:|\/\/[a-z]|@import|url\(/i);
    const csp = all.find((e) => e.tagName === 'meta' && e.attrs.some((a) => a.value === 'Content-Security-Policy'))!;
    expect(csp.attrs.find((a) => a.name === 'content')!.value).toMatch(/^default-src 'none'/);
  });

  it("the duplicate's two executions are marked, the F1 fault and what the agent was told are shown", async () => {
    const html = buildHtml(await resultOf({ 'fail.json': documentOf(naiveF1()) }));
    const dup = elements(html).filter((e) => e.tagName === 'tr' && e.attrs.some((a) => a.name === 'class' && a.value === 'dup'));
    expect(dup.map(textOf).map((t) => /execution (\d) of 2/.exec(t)?.[1])).toEqual(['1', '2']);
    expect(textOf(dup[0]!)).toContain('Request timed out');
    expect(textOf(dup[0]!)).toContain('F1');
  });

  it('observations, the patch texts and the tool classification are in the report', async () => {
    const careful = buildHtml(await resultOf({ 'pass.json': documentOf(carefulF1()) }));
    expect(careful).toContain('<b>VERIFIED_NO_RETRY</b>');
    expect(careful).toMatch(/<summary>Tool classification \(5\)<\/summary>/);
    expect(careful).toContain('<td class="mono">search_bookings</td><td>read</td>');
    const failing = buildHtml(await resultOf({ 'fail.json': documentOf(naiveF1()) }));
    expect(failing).toMatch(/<summary>\[CRITICAL\] GHOST_WRITE<\/summary>.*<pre>CRITICAL — Timeout on a write/s);
  });

  it('the retry_after window is drawn on the F2 call with the early re-send marked', async () => {
    const html = buildHtml(await resultOf({ 'f2.json': documentOf(naiveF2()) }));
    expect(html).toMatch(/<div class="window" title="retry_after window"><i style="left:calc\(0\.0% - 1px\)"><\/i><\/div>/);
    expect(html).toContain('retry_after 60 s; re-sent after 5 ms — too early');
  });

  it('hostile tool names and arguments appear escaped, never as markup', async () => {
    const html = buildHtml(await resultOf({ 'hostile.json': hostileDocument() }));
    const all = elements(html);
    expect(all.filter((e) => e.tagName === 'script')).toHaveLength(0);
    expect(all.some((e) => e.tagName === 'testcase' || e.tagName === 'failure')).toBe(false);
    expect(html).toContain('&lt;/testcase&gt;&lt;script&gt;alert(1)&lt;/script&gt;]]&gt;\\u0001\\u001b[2J');
    expect(html).not.toMatch(/[\u0000-\u0008\u000b-\u001f]/);
    expect(textOf(parse(html) as unknown as HtmlNode)).toContain('create_</testcase><script>alert(1)</script>]]>\\u0001');
  });
});

/** A write whose name reads as `delete_booking` in a bidi-aware viewer, and one with a zero-width space. */
const BIDI_TOOL = 'create_booking\u202e\u2066gnikoob_eteled\u2069';
const ZERO_WIDTH_TOOL = 'create\u200b_booking\u200d';

describe('bidi controls and invisible characters in tool names and arguments', () => {
  it('appear escaped as \\uXXXX in HTML, Markdown and JUnit, as on the terminal, never raw', async () => {
    const tools = { ...DEFAULT_TOOLS, [BIDI_TOOL]: 'write' as const, [ZERO_WIDTH_TOOL]: 'write' as const };
    const d = new Driver(F('F1'), tools);
    d.call(BIDI_TOOL, { note: 'a\u202eb\ufeffc\u2028d' });
    d.call(BIDI_TOOL, { note: 'a\u202eb\ufeffc\u2028d' });
    d.call(ZERO_WIDTH_TOOL, { id: 1 });
    const result = await resultOf({ 'bidi.json': documentOf(d, 'finished', tools) });
    const outputs = { html: buildHtml(result), markdown: buildMarkdown(result), junit: buildJunit(result.suites) };
    for (const [format, text] of Object.entries(outputs)) {
      expect(text, format).not.toMatch(/[\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff\u2028]/);
    }
    expect(outputs.html).toContain('create_booking\\u202e\\u2066gnikoob_eteled\\u2069');
    expect(outputs.html).toContain('create\\u200b_booking\\u200d');
    expect(outputs.html).toContain('a\\u202eb\\ufeffc\\u2028d');
    // Markdown escapes the backslash of the escape, so it renders as \u202e.
    expect(outputs.markdown).toContain('create\\_booking\\\\u202e\\\\u2066gnikoob\\_eteled\\\\u2069');
    expect(parseJunit(outputs.junit).testsuites.testsuite[0]!.testcase[0]!.failure!['#text']).toContain(
      'create_booking\\u202e\\u2066gnikoob_eteled\\u2069',
    );
  });
});

describe('timeline derived from a report', () => {
  it('F1 naive: two rows, both executed and marked duplicate; the first carries the fault and the timeout text', async () => {
    const doc = (await resultOf({ 'f.json': documentOf(naiveF1()) })).suites[0]!.cases[0]!.document as SessionReportDocument;
    const t = timelineFromReport(doc);
    expect(t.exact).toBe(false);
    expect(t.calls.map((c) => [c.attempt, c.fault, c.upstream, c.duplicate])).toEqual([
      [1, 'F1', 'executed', true],
      [2, null, 'executed', true],
    ]);
  });

  it('careful F1: the read is counted, not listed', async () => {
    const doc = (await resultOf({ 'f.json': documentOf(carefulF1()) })).suites[0]!.cases[0]!.document as SessionReportDocument;
    expect(timelineFromReport(doc).unlisted).toEqual({ read: 1, unclassified: 0 });
  });
});
