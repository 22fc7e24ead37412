/**
 * What one report publish costs when the upstream lists many tools: the report file lists every tool
 * (`toolClassification`, R-9.1, and the unclassified ones in `coverage`), so a naive publish re-builds
 * and re-writes that list on every call. In-process, for 1 000, 20 000 and 200 000 listed tools (none
 * matching a pattern, so all unclassified: the largest report): a session of `calls` distinct writes,
 * each followed by the two publishes the proxy makes (R-9.2.1 before forwarding, R-9.2 before
 * answering), each publish timed as the proxy pays it — the document built by the proxy's `ReportWriter`
 * and written by its `FileReportSink` (temp file, write, rename) — and the two parts also timed apart.
 * Medians per publish; the report's size; the process's peak RSS at the end (it only grows).
 * Writes `bench/results/report-tools.json` (or the file named by the 2nd argument) and prints a table.
 * Run: `npm run build && node dist/bench/report-tools.js [calls (default 40)] [results file]`.
 */
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { FileReportSink } from '../src/adapters/files/file-report-sink.js';
import { ManualClock } from '../src/adapters/time/manual-clock.js';
import { SeededRandom } from '../src/adapters/time/seeded-random.js';
import { ToolClassifier } from '../src/domain/judging/classification.js';
import { KeyFieldMatcher } from '../src/domain/judging/key-fields.js';
import { ReportWriter } from '../src/domain/report/report-document.js';
import { EvaluationSession } from '../src/domain/judging/session.js';
import { median, nowMs } from './measure.js';

interface ToolFigures {
  tools: number;
  reportBytes: number;
  publishes: number;
  /** Median of one publish: the document built and written. */
  publishMedianMs: number;
  /** Median of building the document alone. */
  documentMedianMs: number;
  /** Median of the write alone (temp file, write, rename). */
  writeMedianMs: number;
}

async function measure(toolCount: number, calls: number): Promise<ToolFigures> {
  const listed = Array.from({ length: toolCount }, (_, i) => ({
    name: i === 0 ? 'create_order' : `tool_${String(i).padStart(6, '0')}`,
    inputSchema: { type: 'object', properties: { idempotency_key: { type: 'string' }, n: { type: 'number' } } },
  }));
  const classifier = new ToolClassifier({}, new KeyFieldMatcher(['idempotency_key']));
  const classification = classifier.classifyListed(listed);
  const clock = new ManualClock(0);
  const session = new EvaluationSession(
    { scenario: { mode: 'scenario', id: 'F1' }, keyFields: ['idempotency_key'] },
    { classOf: (name) => classifier.classOf(name), acceptsKey: () => true },
    clock,
    SeededRandom.fromSeed(1),
  );
  const writer = new ReportWriter(session);
  const dir = mkdtempSync(join(tmpdir(), 'harness-bench-tools-'));
  const file = join(dir, 'r.json');
  const publishMs: number[] = [];
  const documentMs: number[] = [];
  const writeMs: number[] = [];
  try {
    const sink = await FileReportSink.open(file);
    const publish = () => {
      const start = nowMs();
      const parts = writer.document({
        kind: 'proxy',
        harnessVersion: 'bench',
        status: 'running',
        toolClassification: classification,
      });
      const built = nowMs();
      sink.publishSync(parts);
      const end = nowMs();
      documentMs.push(built - start);
      writeMs.push(end - built);
      publishMs.push(end - start);
    };
    publish(); // the session's first report (running)
    for (let i = 0; i < calls; i++) {
      const attempt = session.receive('create_order', { n: i, idempotency_key: `k${i}` });
      publish(); // before forwarding
      attempt.forwarded();
      attempt.answered({ kind: 'executed', answer: { content: [{ type: 'text', text: `r${i}` }] } });
      publish(); // before answering
      attempt.delivered();
      clock.advance(1);
      await new Promise((resolve) => setImmediate(resolve));
    }
    sink.release();
    const reportBytes = statSync(file).size;
    // The first publishes build the per-list parts; the figures are those of a running session.
    const skip = 3;
    return {
      tools: toolCount,
      reportBytes,
      publishes: publishMs.length - skip,
      publishMedianMs: median(publishMs.slice(skip)),
      documentMedianMs: median(documentMs.slice(skip)),
      writeMedianMs: median(writeMs.slice(skip)),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const calls = Number(process.argv[2] ?? 40);
const out = process.argv[3] ?? join('bench/results', 'report-tools.json');
const rows: ToolFigures[] = [];
for (const tools of [1_000, 20_000, 200_000]) {
  rows.push(await measure(tools, calls));
  process.stderr.write(`${tools} tools done\n`);
}
const peakRssMb = Math.round(process.resourceUsage().maxRSS / 1024);
console.log('tools     report bytes   publish ms (median)   document ms   write ms');
for (const r of rows)
  console.log(
    `${String(r.tools).padEnd(9)} ${String(r.reportBytes).padStart(12)}   ${r.publishMedianMs.toFixed(3).padStart(19)}   ${r.documentMedianMs.toFixed(3).padStart(11)}   ${r.writeMedianMs.toFixed(3).padStart(8)}`,
  );
console.log(`peak RSS ${peakRssMb} MB; ${calls} calls, 2 publishes per call`);
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify({ date: new Date().toISOString(), calls, peakRssMb, rows }, null, 2)}\n`);
