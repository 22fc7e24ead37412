import { symlinkSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { readSource } from '../../../src/adapters/files/report-files/report-sources.js';
import { ManualClock } from '../../../src/adapters/time/manual-clock.js';
import { SeededRandom } from '../../../src/adapters/time/seeded-random.js';
import { SimulatedBackend } from '../../../src/adapters/simulated-backend/simulated-backend.js';
import { benchmarkDocument } from '../../../src/app/benchmark/benchmark-output.js';
import { runBenchmark } from '../../../src/app/benchmark/benchmark.js';
import type { CheckOptions } from '../../../src/app/check/check-model.js';
import { checkGroups } from '../../../src/app/check/check.js';
import { formatCheckText } from '../../../src/app/check/check-text.js';
import { buildHtml } from '../../../src/app/report-formats/html.js';
import { buildJunit } from '../../../src/app/report-formats/junit.js';
import { buildMarkdown, buildStepSummary } from '../../../src/app/report-formats/markdown.js';
import { startingDocument, startupErrorDocument } from '../../../src/domain/report/report-document.js';
import { baselineOnly, carefulF1, documentOf, naiveF1, readsOnly, tempFiles, unverifiedF1 } from '../../support/report-docs.js';

const DEFAULT: CheckOptions = { failOn: new Set(['FAIL', 'NOT_TESTED']), minScore: null };
let files: ReturnType<typeof tempFiles> | undefined;
afterEach(() => files?.remove());

async function check(paths: string[], options: CheckOptions = DEFAULT) {
  const groups = [];
  for (const p of paths) groups.push(await readSource(p));
  return checkGroups(groups, options);
}

const statuses = (r: Awaited<ReturnType<typeof check>>) => r.suites.flatMap((s) => s.cases.map((c) => c.status));

async function benchmarkJson(): Promise<string> {
  const result = await runBenchmark(
    { scenarios: ['F1', 'F2', 'F3', 'F4', 'F5'], runs: 1, jitterMs: 0, seed: 1 },
    { newClock: () => new ManualClock(), newRandom: (s) => SeededRandom.fromSeed(s), newBackend: () => new SimulatedBackend() },
  );
  return JSON.stringify(benchmarkDocument(result, 'test'));
}

describe('check: verdicts and exit codes (R-2, R-9.1)', () => {
  it('one finished report each: PASS → 0, FAIL → 2, NOT_TESTED → 3, baseline PASS → 0 and shown as baseline only', async () => {
    files = tempFiles({
      'pass.json': documentOf(carefulF1()),
      'fail.json': documentOf(naiveF1()),
      'nt.json': documentOf(readsOnly()),
      'base.json': documentOf(baselineOnly()),
    });
    expect((await check([files.path('pass.json')])).exitCode).toBe(0);
    expect((await check([files.path('fail.json')])).exitCode).toBe(2);
    expect((await check([files.path('nt.json')])).exitCode).toBe(3);
    const base = await check([files.path('base.json')]);
    expect(base.exitCode).toBe(0);
    const only = base.suites[0]!.cases[0]!;
    expect(only.baseline).toBe(true);
    expect(formatCheckText(base)).toContain('PASS (baseline only)');
    expect(base.counts).toMatchObject({ pass: 1, baseline: 1 });
  });

  it('mixtures: FAIL beats NOT_TESTED (2), a harness error beats everything (1); a folder is one suite', async () => {
    files = tempFiles({
      'dir/a.json': documentOf(carefulF1()),
      'dir/b.json': documentOf(readsOnly()),
      'fail.json': documentOf(naiveF1()),
      'bad.json': '{"verdict":"PA',
    });
    expect((await check([files.path('dir')])).exitCode).toBe(3);
    expect((await check([files.path('dir'), files.path('fail.json')])).exitCode).toBe(2);
    const all = await check([files.path('dir'), files.path('fail.json'), files.path('bad.json')]);
    expect(all.exitCode).toBe(1);
    expect(all.suites.map((s) => s.cases.length)).toEqual([2, 1, 1]);
    expect(statuses(all)).toEqual(['PASS', 'NOT_TESTED', 'FAIL', 'ERROR']);
  });

  it('--fail-on and --min-score tune the gate', async () => {
    files = tempFiles({
      'nt.json': documentOf(readsOnly()),
      'fail.json': documentOf(naiveF1()),
      'pass.json': documentOf(carefulF1()),
    });
    const nt = files.path('nt.json');
    expect((await check([nt], { failOn: new Set(['FAIL']), minScore: null })).exitCode).toBe(0);
    expect((await check([nt, files.path('fail.json')], { failOn: new Set(['NOT_TESTED']), minScore: null })).exitCode).toBe(3);
    expect((await check([files.path('fail.json')], { failOn: new Set(), minScore: null })).exitCode).toBe(0);
    // An unverified ghost write is a PASS scoring 80 (failure handling 50).
    const unverified = files.write('unverified.json', documentOf(unverifiedF1()));
    expect((await check([unverified])).suites[0]!.cases[0]).toMatchObject({ status: 'PASS', score: 80 });
    expect((await check([unverified], { ...DEFAULT, minScore: 80 })).exitCode).toBe(0);
    const low = await check([unverified], { ...DEFAULT, minScore: 81 });
    expect(low.exitCode).toBe(2);
    expect(low.suites[0]!.cases[0]!.reason).toMatch(/^score 80 is below --min-score 81/);
    expect((await check([files.path('pass.json')], { ...DEFAULT, minScore: 100 })).exitCode).toBe(0);
  });

  it('a report still "running" (proxy killed) is a harness error that shows its incomplete verdict', async () => {
    files = tempFiles({ 'run.json': documentOf(naiveF1(), 'running') });
    const result = await check([files.path('run.json')]);
    expect(result.exitCode).toBe(1);
    const c = result.suites[0]!.cases[0]!;
    expect(c).toMatchObject({ status: 'ERROR', incomplete: true, verdict: 'FAIL' });
    expect(formatCheckText(result)).toContain('ERROR (incomplete, FAIL so far)');
    expect(c.reason).toContain('status "running"');
  });

  it("a demo server's report is not a measurement: harness error, said so", async () => {
    files = tempFiles({ 'audit-report.json': documentOf(carefulF1()).replace('"kind":"proxy"', '"kind":"demo"') });
    const result = await check([files.path('audit-report.json')]);
    expect(result.exitCode).toBe(1);
    expect(result.suites[0]!.cases[0]!.reason).toContain('demo MCP server, which is not a measurement');
  });

  it('a start-up failure and a report that never left "starting" are harness errors', async () => {
    files = tempFiles({
      'start.json': startingDocument('t'),
      'failed.json': startupErrorDocument('t', 'upstream exited with code 3'),
    });
    const result = await check([files.path('start.json'), files.path('failed.json')]);
    expect(result.exitCode).toBe(1);
    const [starting, failed] = result.suites.map((s) => s.cases[0]!);
    expect(starting!.reason).toContain('status "starting"');
    expect(failed!.reason).toBe('the proxy did not start: upstream exited with code 3');
  });

  it('unreadable, empty, half-written and foreign files say exactly what is wrong', async () => {
    const good = JSON.parse(documentOf(naiveF1())) as { report: { operations: Array<Record<string, unknown>> } };
    good.report.operations[0]!['executions'] = 'two';
    const tampered = JSON.parse(documentOf(naiveF1())) as { score: Record<string, unknown> };
    tampered.score['overall'] = 1e308; // printed as "score 1e+308/100" before
    const whole = documentOf(naiveF1());
    files = tempFiles({
      'empty.json': '',
      'half.json': whole.slice(0, Math.floor(whole.length / 2)),
      'foreign.json': '{"name":"package","version":"1.0.0"}',
      'wrong-field.json': JSON.stringify(good),
      'score-out-of-range.json': JSON.stringify(tampered),
      'no-version.json': '{"verdict":"PASS","status":"finished","certification":"UNVERIFIED_FOR_PRODUCTION"}',
      'empty-dir/readme.txt': 'x',
    });
    const reasons = async (name: string) => (await check([files!.path(name)])).suites[0]!.cases.map((c) => c.reason);
    expect(await reasons('empty.json')).toEqual([expect.stringContaining('is empty')]);
    expect(await reasons('half.json')).toEqual([expect.stringContaining('is not complete JSON')]);
    expect(await reasons('foreign.json')).toEqual([expect.stringContaining('is not a report of this harness')]);
    expect(await reasons('wrong-field.json')).toEqual([
      expect.stringMatching(/not a valid proxy report: report\.operations\[0\]\.executions: .*number/),
    ]);
    expect(await reasons('score-out-of-range.json')).toEqual([
      expect.stringMatching(/not a valid proxy report: score\.overall: /),
    ]);
    expect(await reasons('no-version.json')).toEqual([expect.stringMatching(/harnessVersion: /)]);
    expect(await reasons('missing.json')).toEqual([expect.stringContaining('cannot be read: ENOENT')]);
    expect(await reasons('empty-dir')).toEqual([expect.stringContaining('holds no report')]);
    for (const name of ['empty.json', 'half.json', 'foreign.json', 'wrong-field.json', 'score-out-of-range.json', 'missing.json'])
      expect((await check([files.path(name)])).exitCode).toBe(1);
  });

  it("a report folder reads *.json only (the proxy's temp files are not reports)", async () => {
    files = tempFiles({ 'dir/session-0001-a.json': documentOf(carefulF1()), 'dir/session-0001-a.json.123.abcd.tmp': '{"verd' });
    const result = await check([files.path('dir')]);
    expect(result.exitCode).toBe(0);
    expect(result.suites[0]!.reader).toBe('report folder');
  });

  it('R-11 benchmark-report.json: one case per reference agent and scenario, PASS when the expected verdict came', async () => {
    const json = await benchmarkJson();
    files = tempFiles({ 'benchmark-report.json': json });
    const result = await check([files.path('benchmark-report.json')]);
    expect(result.exitCode).toBe(0);
    expect(result.counts.total).toBe(10);
    const naiveF1Case = result.suites[0]!.cases.find((c) => c.classname === 'benchmark.naive' && c.name.endsWith('F1'))!;
    expect(naiveF1Case).toMatchObject({ status: 'PASS', verdict: 'FAIL' });
    // A benchmark whose naive agent did not fail where it must is a FAIL of the self-test.
    const doc = JSON.parse(json) as { naive: { scenarios: { F1: { verdict: string } } } };
    doc.naive.scenarios.F1.verdict = 'PASS';
    files.write('broken.json', JSON.stringify(doc));
    const broken = await check([files.path('broken.json')]);
    expect(broken.exitCode).toBe(2);
    expect(broken.suites[0]!.cases.find((c) => c.status === 'FAIL')!.reason).toContain('expected FAIL, got PASS');
  });
});

describe('check never quotes what a file that is no report contains', () => {
  it('a foreign file, a link to a secret and a trial run file that is no JSON are named by where they go wrong, never by their content, in every format', async () => {
    files = tempFiles({
      'secret.txt': 'root:SECRET-HASH:19000:0:99999:7:::\n',
      'tail.json': '{"a":1} SECRET-TAIL',
      'control.json': '{"a":"SECRET\u0001"}',
      'cut.json': '{"SECRET-CUT":',
      'trial/summary.json': '{"kind":"trial-summary"}',
      'trial/runs/F1-001/run.json': 'SECRET-RUN=1',
    });
    symlinkSync(files.path('secret.txt'), files.path('link.json'));
    const result = await check(['link.json', 'tail.json', 'control.json', 'cut.json', 'trial'].map((n) => files!.path(n)));
    const reasons = result.suites.flatMap((s) => s.cases.map((c) => c.reason));
    expect(reasons).toEqual([
      expect.stringMatching(/is not complete JSON \(half-written or not a report\): invalid JSON at line 1, column 1$/),
      expect.stringMatching(/: invalid JSON at line 1, column 9$/),
      expect.stringMatching(/: invalid JSON at line 1, column 13$/),
      expect.stringMatching(/: it ends before the JSON is complete$/),
      'the file is not a valid trial summary: harnessVersion: Invalid input: expected string, received undefined',
      expect.stringMatching(
        /^the file is not complete JSON \(half-written or not a trial run file\): invalid JSON at line 1, column 1$/,
      ),
    ]);
    for (const out of [
      formatCheckText(result),
      buildJunit(result.suites),
      buildMarkdown(result),
      buildStepSummary(result),
      buildHtml(result),
    ]) {
      expect(out).not.toMatch(/SECRET|root:/);
      expect(out).toContain('invalid JSON at line 1');
    }
  });
});
