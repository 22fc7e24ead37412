/**
 * `check --html` on a long session ("a session of 1000 calls opens quickly"): builds the report
 * document of a 1000-call F1 session in-process (800 distinct writes, 100 of them re-sent, 100 reads),
 * then measures reading it back (JSON.parse + zod validation), and building the HTML, JUnit and Markdown
 * projections: medians of 20 rounds after a warm-up, and the sizes. Writes
 * `bench/results/html-report.json` and prints the figures. Run: `npm run build && node dist/bench/html-report.js [calls] [write the HTML here]`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ManualClock } from '../src/adapters/time/manual-clock.js';
import { parseReportDocument } from '../src/adapters/files/report-files/report-schemas.js';
import { SeededRandom } from '../src/adapters/time/seeded-random.js';
import { checkGroups } from '../src/app/check/check.js';
import { buildHtml } from '../src/app/report-formats/html.js';
import { buildJunit } from '../src/app/report-formats/junit.js';
import { buildMarkdown } from '../src/app/report-formats/markdown.js';
import { serializeDocument } from '../src/domain/report/report-document.js';
import { EvaluationSession } from '../src/domain/judging/session.js';
import { median, nowMs } from './measure.js';

function sessionDocument(calls: number): string {
  const clock = new ManualClock(0);
  const session = new EvaluationSession(
    { scenario: { mode: 'scenario', id: 'F1' }, keyFields: ['idempotency_key'] },
    { classOf: (name) => (name === 'create_order' ? 'write' : 'read'), acceptsKey: () => true },
    clock,
    SeededRandom.fromSeed(1),
  );
  const send = (tool: string, args: Record<string, unknown>) => {
    const attempt = session.receive(tool, args);
    if (attempt.forward) {
      attempt.forwarded();
      attempt.answered({ kind: 'executed', answer: { content: [{ type: 'text', text: 'ok' }] } });
    }
    attempt.delivered();
    clock.advance(3);
  };
  for (let i = 0; i < calls; i++) {
    if (i % 10 === 9) send('search_orders', { customer: `c${i}` });
    else if (i % 10 === 8) send('create_order', { customer: `c${i - 1}`, sku: `sku-${i - 1}`, quantity: 1 });
    else send('create_order', { customer: `c${i}`, sku: `sku-${i}`, quantity: 1 });
  }
  const tools = [
    { name: 'create_order', class: 'write' as const, reason: 'default write pattern', keyFields: ['idempotency_key'] },
    { name: 'search_orders', class: 'read' as const, reason: 'read prefix', keyFields: [] },
  ];
  return serializeDocument(session, { kind: 'proxy', harnessVersion: 'bench', status: 'finished', toolClassification: tools });
}

function timed<T>(rounds: number, body: () => T): { ms: number; value: T } {
  let value = body();
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const start = nowMs();
    value = body();
    times.push(nowMs() - start);
  }
  return { ms: median(times), value };
}

const calls = Number(process.argv[2] ?? 1000);
const json = sessionDocument(calls);
const read = timed(20, () => parseReportDocument(JSON.parse(json)));
const options = { failOn: new Set(['FAIL', 'NOT_TESTED'] as const), minScore: null };
const result = checkGroups(
  [{ path: 'report.json', reader: 'file', items: [{ type: 'report', path: 'report.json', document: read.value }] }],
  options,
);
const html = timed(20, () => buildHtml(result));
const junit = timed(20, () => buildJunit(result.suites));
const markdown = timed(20, () => buildMarkdown(result));
const bytes = (text: string) => Buffer.byteLength(text);
const figures = {
  calls,
  reportBytes: bytes(json),
  readAndValidateMs: read.ms,
  html: {
    bytes: bytes(html.value),
    buildMs: html.ms,
    timelineRows: (html.value.match(/<tr class="[^"]*"><td class="seq">/g) ?? []).length,
  },
  junit: { bytes: bytes(junit.value), buildMs: junit.ms },
  markdown: { bytes: bytes(markdown.value), buildMs: markdown.ms },
  node: process.version,
};
if (process.argv[3] !== undefined) writeFileSync(process.argv[3], html.value);
mkdirSync('bench/results', { recursive: true });
writeFileSync(join('bench/results', 'html-report.json'), `${JSON.stringify(figures, null, 2)}\n`);
process.stdout.write(
  `check projections of a ${calls}-call session (report ${(figures.reportBytes / 1024).toFixed(0)} kB): ` +
    `read+validate ${read.ms.toFixed(2)} ms; HTML ${(figures.html.bytes / 1024).toFixed(0)} kB in ${html.ms.toFixed(2)} ms (${figures.html.timelineRows} timeline rows); ` +
    `JUnit ${figures.junit.bytes} B in ${junit.ms.toFixed(3)} ms; Markdown ${figures.markdown.bytes} B in ${markdown.ms.toFixed(3)} ms\n`,
);
