/**
 * A trial run's transcript in `check`'s outputs: both sides of an agent program in time order in the HTML
 * report (model requests and answers, MCP calls and results), each MCP call linked to the model answer
 * that asked for it, each repeated write badged with who sent it (model, user, runtime, unknown); hostile
 * model text inert; long texts and whole pages bounded; the source of each duplicate in Markdown and JUnit.
 * The run files are the real ones `trial --agent-command … --stub-model` wrote (test/support/trial-run-fixtures.ts).
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { parse, type DefaultTreeAdapterMap } from 'parse5';
import { describe, expect, it } from 'vitest';
import { parseTrialRunDocument, trialRunSchema } from '../../../src/adapters/schemas/trial-run.schema.js';
import { checkGroups } from '../../../src/app/check/check.js';
import { buildHtml } from '../../../src/app/report-formats/html.js';
import { buildJunit } from '../../../src/app/report-formats/junit.js';
import { buildMarkdown } from '../../../src/app/report-formats/markdown.js';
import { TRANSCRIPT_LIMITS, TranscriptBudget } from '../../../src/app/report-formats/transcript-budget.js';
import { interleave, linkCalls } from '../../../src/app/report-formats/transcript-entries.js';
import { transcriptSection } from '../../../src/app/report-formats/transcript-view.js';
import { parseReportDocument } from '../../../src/adapters/schemas/report.schema.js';
import type { SessionReportDocument } from '../../../src/ports/shapes/report-documents.js';
import { expectMatchesSchema } from '../../support/file-schemas.js';
import { documentOf, naiveF1 } from '../../support/report-docs.js';
import { checkRunFiles, runFile, transcriptOf } from '../../support/trial-run-fixtures.js';

type Node = DefaultTreeAdapterMap['node'];
type Element = DefaultTreeAdapterMap['element'];
function* walk(node: Node): Generator<Node> {
  yield node;
  for (const child of (node as { childNodes?: Node[] }).childNodes ?? []) yield* walk(child);
}
const elements = (root: Node): Element[] => [...walk(root)].filter((n): n is Element => 'tagName' in n);
const textOf = (node: Node): string =>
  [...walk(node)].map((n) => ('value' in n && n.nodeName === '#text' ? n.value : '')).join('');
const attr = (el: Element, name: string) => el.attrs.find((a) => a.name === name)?.value ?? '';
/** The transcript rows of a page, as `{ cls, text }`. */
const rowsOf = (html: string) =>
  elements(parse(html) as unknown as Node)
    .filter((el) => el.tagName === 'li' && attr(el, 'class').startsWith('tx-row'))
    .map((el) => ({ cls: attr(el, 'class'), id: attr(el, 'id'), text: textOf(el) }));

const note = (at: string | undefined, text: string) => ({ ...(at === undefined ? {} : { at }), kind: 'note', text });
const noteTexts = (entries: unknown[]) => interleave(entries).map((e) => (e.kind === 'note' ? e.text : e.kind));

describe('the transcript in time order', () => {
  it('orders entries by time; entries of the same millisecond keep their file order; one without a time stays right after the entry before it in the file', () => {
    const t = (ms: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, 0, ms)).toISOString();
    const entries = [
      note(t(10), 'c'),
      note(t(5), 'a'),
      note(t(5), 'b'),
      note(undefined, 'c2'),
      note('not a time', 'c3'),
      note(t(7), 'a2'),
    ];
    expect(noteTexts(entries)).toEqual(['a', 'b', 'c2', 'c3', 'a2', 'c']);
    // Only the times decide: the same entries in any file order come out the same, ties aside.
    expect(noteTexts([note(t(7), 'a2'), note(t(5), 'a'), note(t(10), 'c'), note(t(5), 'b')])).toEqual(['a', 'b', 'a2', 'c']);
  });

  it("a gateway run's entries written out of order are drawn by time: each model answer before the MCP call it asked for", () => {
    const file = runFile('model-and-user-duplicates');
    const inOrder = transcriptOf(file);
    const kinds = interleave([...inOrder].reverse()).map((e) => e.kind);
    expect(kinds).toEqual(inOrder.map((e) => e.kind));
    expect(kinds.slice(0, 4)).toEqual(['model-request', 'model-answer', 'mcp-call', 'tool-result']);
  });

  it('links each MCP call to the model answer and tool call that asked for it; a call the runtime re-sent has none', () => {
    const naive = runFile('model-and-user-duplicates');
    const run = checkRunFiles([naive]).suites[0]!.cases[0]!;
    const links = linkCalls(interleave(transcriptOf(naive)), run.attribution);
    expect(Object.fromEntries(links)).toEqual({
      '1:1': { exchange: 1, toolCallId: 'call_stub_1' },
      '1:2': { exchange: 2, toolCallId: 'call_stub_2' },
      '1:3': { exchange: 4, toolCallId: 'call_stub_3' },
    });
    const runtime = runFile('runtime-duplicate');
    const dd = checkRunFiles([runtime]).suites[0]!.cases[0]!;
    expect(Object.fromEntries(linkCalls(interleave(transcriptOf(runtime)), dd.attribution))).toEqual({
      '1:1': { exchange: 1, toolCallId: 'call_stub_1' },
    });
  });
});

describe('check --html with a trial run of an agent program', () => {
  it('draws both sides interleaved: requests (new messages, the whole conversation folded), answers, calls with their fault, results', () => {
    const html = buildHtml(checkRunFiles([runFile('model-and-user-duplicates')]));
    const rows = rowsOf(html);
    expect(rows.map((r) => r.cls.split(' ')[1])).toEqual([
      'tx-request',
      'tx-answer',
      'tx-call',
      'tx-result',
      'tx-request',
      'tx-answer',
      'tx-call',
      'tx-result',
      'tx-request',
      'tx-answer',
      'tx-request',
      'tx-answer',
      'tx-call',
      'tx-result',
      'tx-request',
      'tx-answer',
      'tx-request',
      'tx-answer',
      'tx-note',
    ]);
    // The list ends with the claim read from the answer that ended the honesty question's turn.
    expect(rows.at(-1)!.text).toBe('honesty claimYES read from the answer that ended the turn the honesty question opened');
    expect(rows[2]!.text).toContain('fault injected: F1');
    expect(rows[2]!.text).toContain('asked for by model answer #1 (tool call call_stub_1)');
    expect(rows[3]!.text).toContain('the upstream executed it');
    expect(rows[3]!.text).toContain('the agent was told: a timeout');
    // The second request shows what is new (the answer and the tool's timeout), not the task again.
    expect(rows[4]!.text).toContain('2 new message(s) since the previous request');
    expect(rows[4]!.text).toContain('the whole conversation sent (3 message(s))');
    // The follow-up is a user turn of its own request.
    expect(rows[10]!.cls).toContain('tx-user');
    expect(rows[10]!.text).toContain('Please try again.');
    expect(html).toMatch(/<details class="conv"><summary>the whole conversation sent/);
  });

  it('badges each repeated write with who sent it: the model, the model after a user turn; the runtime in the severity colour, saying a prompt will not fix it', () => {
    const html = buildHtml(checkRunFiles([runFile('model-and-user-duplicates'), runFile('runtime-duplicate')]));
    const repeats = rowsOf(html).filter((r) => r.cls.includes('tx-repeat'));
    expect(repeats).toHaveLength(3);
    expect(repeats[0]!.text).toMatch(
      /source: model the model asked for it again.*repeat of attempt 1 \(call #1\), \d+ ms after it; its answer had reached the agent; asked for by model answer #2 \(tool call call_stub_2\)/,
    );
    // One numbering (issue 42 §6): "attempt k" within the operation, the session's number is "call #n".
    expect(repeats[0]!.text).toMatch(/^\+?\d+ m?s\s*MCP call #2, op 1, attempt 2: /);
    expect(repeats[1]!.text).toMatch(/source: user the model asked for it again after a user turn.*asked for by model answer #4/);
    expect(repeats[2]!.text).toMatch(
      /source: runtime re-sent by the client\/framework; a prompt change will not fix it.*no model answer asked for it/,
    );
    expect(html).toContain('<div class="attr src-runtime"><span class="badge src-runtime">source: runtime</span>');
    expect(html).toMatch(/\.badge\.src-runtime\{background:var\(--fail\)\}/);
    expect(html).toContain('<b>Repeated writes by source:</b> 1 model, 1 user, 1 runtime');
    // Every link of the transcript points at a row of the page.
    const ids = new Set(rowsOf(html).map((r) => r.id));
    const hrefs = [...html.matchAll(/href="#(case-\d+-(?:answer|call)-[^"]+)"/g)].map((m) => m[1]!);
    expect(hrefs.length).toBeGreaterThan(5);
    for (const href of hrefs) expect(ids, href).toContain(href);
  });

  it("the built-in loop's transcript: user turns, answers with their tool calls linked to their results, the faulted result marked", () => {
    const html = buildHtml(checkRunFiles([runFile('built-in-loop')]));
    const rows = rowsOf(html);
    expect(rows.map((r) => r.cls.split(' ').slice(1).join(' '))).toEqual([
      'tx-user',
      'tx-answer',
      'tx-result tx-error',
      'tx-answer',
      'tx-user',
      'tx-answer',
      'tx-result',
      'tx-answer',
      'tx-user',
      'tx-answer',
      'tx-note tx-honesty',
    ]);
    expect(rows.at(-1)!.text).toBe('honesty claimYES read from the answer that ended the turn the honesty question opened');
    expect(rows[1]!.text).toContain('call_1_0 create_booking');
    expect(rows[2]!.text).toMatch(/^\+\d+ msresult of tool call call_1_0 create_bookingfault injected: F1 isError/);
    expect(rows[6]!.text).not.toContain('fault injected');
    expect(rows[4]!.text).toContain('Please try again.');
    // The answer's tool call links to its result, the result back to the answer.
    expect(html).toContain(`<a href="#${rows[2]!.id}">its result</a>`);
    expect(html).toContain(`<a href="#${rows[1]!.id}">tool call</a>`);
  });

  it('R-13: an UNPARSED claim ends the transcript with why, and the honesty card says it too (issue 42)', () => {
    const file = runFile('model-and-user-duplicates');
    const why = 'the turn the honesty question opened ended without a text answer';
    file['honesty'] = { ...(file['honesty'] as object), answer: null, claim: 'UNPARSED', unparsed: why, class: 'UNPARSED' };
    file['facts'] = { ...(file['facts'] as object), honesty: 'UNPARSED' };
    const html = buildHtml(checkRunFiles([file]));
    const last = rowsOf(html).at(-1)!;
    expect(last.cls).toBe('tx-row tx-note tx-honesty');
    expect(last.text).toBe(`honesty claimUNPARSED ${why}`);
    const card = elements(parse(html) as unknown as Node).find(
      (el) => attr(el, 'class') === 'card' && textOf(el).startsWith('Honesty'),
    )!;
    expect(textOf(card)).toBe(`HonestyUNPARSED${why}no lost transaction`);
    // The reason is the file's text: drawn as text, never markup.
    file['honesty'] = { ...(file['honesty'] as object), unparsed: '<img src=x onerror=alert(1)> no text' };
    const hostile = buildHtml(checkRunFiles([file]));
    expect(hostile).not.toContain('<img');
    expect(rowsOf(hostile).at(-1)!.text).toBe('honesty claimUNPARSED <img src=x onerror=alert(1)> no text');
    // A run that did not measure honesty has no such row.
    expect(rowsOf(buildHtml(checkRunFiles([runFile('runtime-duplicate')]))).some((r) => r.cls.includes('tx-honesty'))).toBe(
      false,
    );
  });

  it('older run files (MCP calls without their fault): the faulted call is the first of its operation, as the report says', () => {
    const file = runFile('model-and-user-duplicates');
    file['transcript'] = transcriptOf(file).map(({ fault: _f, operation: _o, upstream: _u, told: _t, ...rest }) => rest);
    const rows = rowsOf(buildHtml(checkRunFiles([file]))).filter((r) => r.cls.includes('tx-call'));
    expect(rows.map((r) => r.text.includes('fault injected: F1'))).toEqual([true, false, false]);
  });

  it('model text is inert: markup, a closing </pre>, attribute breakers and bidi controls are shown as text, nothing becomes an element', () => {
    const file = runFile('runtime-duplicate');
    const hostile = '</pre></li></ol><script>alert(1)</script><img src=x onerror=alert(2)>\u202Egnp.exe\u2066 "q" \'a\' &amp;';
    const entries = transcriptOf(file);
    const answer = entries.find((e) => e.kind === 'model-answer')!;
    answer['content'] = hostile;
    answer['toolCalls'] = [{ id: `x" onmouseover="alert(3)`, name: `create_booking${hostile}`, arguments: hostile }];
    const request = entries.find((e) => e.kind === 'model-request')!;
    request['messages'] = [
      { role: 'system', content: hostile },
      { role: `user${hostile}`, content: hostile },
    ];
    entries.push({ at: '2026-12-01T17:28:44.400Z', kind: hostile, text: hostile });
    const html = buildHtml(checkRunFiles([file]));
    const tags = new Set(elements(parse(html) as unknown as Node).map((el) => el.tagName));
    expect(tags.has('script')).toBe(false);
    expect(tags.has('img')).toBe(false);
    for (const el of elements(parse(html))) expect(el.attrs.map((a) => a.name)).not.toContain('onmouseover');
    expect(html).not.toContain('\u202E');
    expect(html).not.toContain('\u2066');
    const text = textOf(parse(html));
    expect(text).toContain(
      '</pre></li></ol><script>alert(1)</script><img src=x onerror=alert(2)>\\u202egnp.exe\\u2066 "q" \'a\' &amp;',
    );
    expect(text).toContain('an entry of kind “</pre>');
  });

  it('cuts a long text with a note saying how much is left out; never inside a surrogate pair', () => {
    const budget = new TranscriptBudget();
    const long = `${'a'.repeat(TRANSCRIPT_LIMITS.textChars - 1)}😀 and more`;
    const shown = budget.text(long);
    expect(shown.startsWith('a'.repeat(TRANSCRIPT_LIMITS.textChars - 1))).toBe(true);
    expect(shown).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
    expect(shown).toContain(
      `… (${long.length - (TRANSCRIPT_LIMITS.textChars - 1)} more character(s) not shown: cut at ${TRANSCRIPT_LIMITS.textChars} characters; the run file has them all)`,
    );
    expect(budget.text('short')).toBe('short');
  });

  it('a 32 MB conversation gives a page of a few MB: every text is cut to its limit and says so', () => {
    const file = runFile('runtime-duplicate');
    const entries = transcriptOf(file);
    const request = entries.find((e) => e.kind === 'model-request')!;
    // 100 requests, each sending the whole conversation so far: 400 messages of 80 kB by the end (32 MB).
    const big = 'x'.repeat(80_000);
    const messages = Array.from({ length: 400 }, (_, i) => ({
      role: i % 2 === 0 ? 'user' : 'assistant',
      content: `${i} ${big}`,
    }));
    const requests = Array.from({ length: 100 }, (_, i) => ({
      ...request,
      exchange: i + 1,
      messages: messages.slice(0, 4 * (i + 1)),
    }));
    file['transcript'] = requests;
    const html = buildHtml(checkRunFiles([file]));
    expect(html.length).toBeLessThan(TRANSCRIPT_LIMITS.pageChars + 1_000_000);
    expect(html.includes('… (78004 more character(s) not shown: cut at 2000 characters; the run file has them all)')).toBe(true);
    expect(html.includes('340 earlier message(s) not shown here (the run file has them)')).toBe(true);
  });

  it('text that escapes to six times its length (zero-width characters, bidi controls) is charged as drawn: the page stays bounded', () => {
    const file = runFile('runtime-duplicate');
    const request = transcriptOf(file).find((e) => e.kind === 'model-request')!;
    const invisible = '\u200b\u202e'.repeat(20_000);
    const messages = Array.from({ length: 400 }, (_, i) => ({ role: 'user', content: `${i}${invisible}` }));
    file['transcript'] = Array.from({ length: 100 }, (_, i) => ({
      ...request,
      exchange: i + 1,
      messages: messages.slice(0, 4 * (i + 1)),
    }));
    const html = buildHtml(checkRunFiles([file]));
    expect(html.length).toBeLessThan(TRANSCRIPT_LIMITS.pageChars + 1_000_000);
    expect(html.includes('\u202e')).toBe(false);
  });

  it("the page's limit: rows stop where it is reached, saying how many are left out; a later run's transcript is not drawn, saying why", () => {
    const entries = transcriptOf(runFile('model-and-user-duplicates'));
    const ctx = { prefix: 'case-1', attribution: [], document: null };
    const budget = new TranscriptBudget(2_000);
    const first = transcriptSection(entries, ctx, budget);
    expect(first).toContain("this page's transcript limit is reached");
    expect(first).toMatch(
      /\d+ more entries are not drawn \(this page's transcript limit is reached\); the run file has them all\./,
    );
    expect(rowsOf(first).length).toBeLessThan(entries.length);
    expect(transcriptSection(entries, { ...ctx, prefix: 'case-2' }, budget)).toContain("Not drawn: this page's transcript limit");
  });

  it('draws at most the per-run number of entries and says how many more the run file has', () => {
    const entries = Array.from({ length: TRANSCRIPT_LIMITS.rows + 500 }, (_, i) => note('2026-01-01T00:00:00.000Z', `n${i}`));
    const html = transcriptSection(entries, { prefix: 'case-1', attribution: [], document: null }, new TranscriptBudget());
    expect(rowsOf(html)).toHaveLength(TRANSCRIPT_LIMITS.rows);
    expect(html).toContain(
      `500 more entries are not drawn (at most ${TRANSCRIPT_LIMITS.rows} per run); the run file has them all.`,
    );
  });

  it('a run without a transcript draws none; the section is empty for an empty list', () => {
    expect(transcriptSection([], { prefix: 'case-1', attribution: [], document: null }, new TranscriptBudget())).toBe('');
  });
});

describe("each duplicate's source in Markdown and JUnit", () => {
  const RUNTIME = '(source: runtime — re-sent by the client/framework; a prompt change will not fix it)';

  it('JUnit: the failure text names the source of a runtime duplicate, and the XML stays valid', () => {
    const junit = buildJunit(checkRunFiles([runFile('runtime-duplicate'), runFile('model-and-user-duplicates')]).suites);
    expect(XMLValidator.validate(junit)).toBe(true);
    const doc = new XMLParser({ ignoreAttributes: false, isArray: (n) => n === 'testsuite' }).parse(junit) as {
      testsuites: { testsuite: Array<{ testcase: { failure: { '#text': string } } }> };
    };
    const [runtime, naive] = doc.testsuites.testsuite.map((s) => s.testcase.failure['#text']);
    expect(runtime).toContain(
      `was executed 2 times (with the same idempotency key, re-sent without a timeout in between, without a read to check first) ${RUNTIME}.`,
    );
    expect(naive).toContain(
      '(source: model — the model asked for it again / user — the model asked for it again after a user turn).',
    );
  });

  it('Markdown: the source of each duplicate, and the count by source in the summary when a run has attribution', () => {
    const md = buildMarkdown(checkRunFiles([runFile('runtime-duplicate'), runFile('model-and-user-duplicates')]));
    expect(md).toContain(RUNTIME.replace('(', '').replace(')', ''));
    expect(md).toContain(
      '**Repeated writes by source:** 1 model, 1 user, 1 runtime (re-sent by the client/framework: a prompt change will not fix these), 0 unknown',
    );
    const careful = runFile('runtime-duplicate');
    careful['attribution'] = [];
    expect(buildMarkdown(checkRunFiles([careful]))).not.toContain('Repeated writes by source');
  });

  it("a report's own duplicate.source and attribution[] (newer reports) are read too", () => {
    const doc = JSON.parse(documentOf(naiveF1())) as {
      report: Record<string, unknown> & {
        violations: Array<{ duplicate: Record<string, unknown> }>;
        operations: Array<{ id: number; tool: string }>;
      };
    };
    doc.report.violations[0]!.duplicate['source'] = 'runtime';
    const op = doc.report.operations[0]!;
    doc.report['attribution'] = [
      {
        operation: op.id,
        tool: op.tool,
        attempt: 2,
        session: 1,
        source: 'runtime',
        evidence: {
          earlierAttempt: 1,
          earlierSession: 1,
          sinceEarlierMs: 12,
          earlierDelivered: false,
          earlierCancelled: false,
          signal: 'same-request-id',
        },
      },
    ];
    // As a reader that keeps these fields hands it over (the fields are optional: the view reads them as untrusted).
    const document = {
      ...parseReportDocument(doc),
      report: { ...(parseReportDocument(doc) as SessionReportDocument).report, ...doc.report },
    } as SessionReportDocument;
    const result = checkGroups(
      [{ path: 'report.json', reader: 'file', items: [{ type: 'report', path: 'report.json', document }] }],
      {
        failOn: new Set(['FAIL']),
        minScore: null,
      },
    );
    const c = result.suites[0]!.cases[0]!;
    expect(c.attribution.map((a) => a.source)).toEqual(['runtime']);
    expect(c.violations[0]!.sources).toEqual(['runtime']);
    expect(buildMarkdown(result)).toContain(RUNTIME.slice(1, -1));
    const html = buildHtml(result);
    expect(html).toContain('Who sent the repeated writes (1)');
    expect(html).toContain('the same JSON-RPC request (same id) was sent again: the client or its transport retried it');
  });

  it("a duplicate's sources are those of every repeat of its operation, not only the first one a report's duplicate.source names", () => {
    const run = parseTrialRunDocument(runFile('model-and-user-duplicates'));
    // Set after parsing: a report schema that does not describe the field would drop it.
    const duplicate = (run.report as SessionReportDocument).report.violations[0]!.duplicate!;
    Object.assign(duplicate, { source: 'model' });
    const item = { type: 'trial-run' as const, path: 'trial/runs/F1-001/run.json', run };
    const c = checkGroups([{ path: 'trial', reader: 'trial folder', items: [item] }], {
      failOn: new Set(['FAIL']),
      minScore: null,
    }).suites[0]!.cases[0]!;
    expect(c.violations[0]!.sources).toEqual(['model', 'user']);
    // Without attribution entries, the report's own source is the one there is.
    const alone = checkGroups(
      [{ path: 'trial', reader: 'trial folder', items: [{ ...item, run: { ...run, attribution: [] } }] }],
      { failOn: new Set(['FAIL']), minScore: null },
    ).suites[0]!.cases[0]!;
    expect(alone.violations[0]!.sources).toEqual(['model']);
  });
});

describe('the fixture run files', () => {
  it('match the trial run file schema', () => {
    for (const name of ['runtime-duplicate', 'model-and-user-duplicates', 'built-in-loop'] as const)
      expectMatchesSchema(trialRunSchema, runFile(name), `${name}.run.json`);
  });
});
