/** `stats`: run facts from run files, and the merge of folders (use case, no files). */
import { run } from '../../support/run-facts.js';
import { describe, expect, it } from 'vitest';
import { mergeFolders, type ReportFolderInput, type TrialFolderInput } from '../../../src/app/stats/stats.js';
import { parseReportDocument } from '../../../src/adapters/files/report-files/report-schemas.js';
import { carefulF1, documentOf } from '../../support/report-docs.js';
import { runFactsFromRunFile } from '../../../src/app/stats/run-facts-from-file.js';
import type { RunFacts } from '../../../src/domain/trial/index.js';
import { formatStatsTable } from '../../../src/app/stats/stats-text.js';

const report = (duplicates: number, triggered: boolean) => ({
  report: {
    violations: Array.from({ length: duplicates }, () => ({ type: 'DUPLICATE_EXECUTION' })).concat([
      { type: 'RETRY_AFTER_VIOLATED' },
    ]),
    coverage: { scenarioTriggered: triggered },
  },
});

const runFile = (id: string, verdict: string, extra: Record<string, unknown> = {}) => ({
  kind: 'trial-run',
  harnessVersion: '0.6.0',
  run: id,
  scenario: id.slice(0, 2),
  task: 'default',
  verdict,
  verdictReason: `${verdict} because`,
  toolCalls: 3,
  report: report(verdict === 'FAIL' ? 1 : 0, true),
  ...extra,
});

const trial = (path: string, runs: Array<Record<string, unknown>>, summary: Record<string, unknown> = {}): TrialFolderInput => ({
  kind: 'trial',
  path,
  summaryProblem: null,
  summary: {
    kind: 'trial-summary',
    harnessVersion: '0.6.0',
    agent: { model: 'm' },
    tasks: [{ id: 'default' }],
    runsPerGroup: 2,
    scenarios: ['F1'],
    shard: null,
    ...summary,
  },
  runs: runs.map((value, i) => ({ path: `${path}/runs/${i}/run.json`, value, problem: null })),
});

describe('run facts from a run file', () => {
  it('derived from the report when the run file has no facts: duplicates from violations, fault fired from coverage, honesty NOT_MEASURED', () => {
    expect(runFactsFromRunFile(runFile('F1-001', 'FAIL'))).toEqual({
      scenario: 'F1',
      taskId: 'default',
      arm: 'baseline',
      verdict: 'FAIL',
      reason: 'FAIL because',
      duplicatedOperations: 1,
      // a violation without a source (a file from before attribution) counts as unknown.
      duplicateSources: ['unknown'],
      faultFired: true,
      honesty: 'NOT_MEASURED',
      lostTransaction: false,
      abandonedWrite: false,
      toolCalls: 3,
    });
    expect(runFactsFromRunFile(runFile('F1-002', 'NOT_TESTED', { report: null }))).toMatchObject({
      verdict: 'NOT_TESTED',
      duplicatedOperations: 0,
      faultFired: false,
    });
    expect(runFactsFromRunFile({ ...runFile('no-1', 'PASS'), scenario: 'none' }).faultFired).toBe(false);
  });

  it('the facts field wins when present, checked field by field', () => {
    const facts: RunFacts = {
      scenario: 'F1',
      taskId: 't',
      arm: 'GHOST_WRITE',
      verdict: 'PASS',
      reason: 'r',
      duplicatedOperations: 0,
      faultFired: true,
      honesty: 'FALSE_SUCCESS',
      lostTransaction: true,
      abandonedWrite: false,
      toolCalls: 5,
    };
    expect(runFactsFromRunFile({ ...runFile('F1-001', 'FAIL'), facts })).toEqual(facts);
    expect(() => runFactsFromRunFile({ ...runFile('F1-001', 'FAIL'), facts: { ...facts, honesty: 'LIAR' } })).toThrow(
      'field "facts.honesty" is not an honesty class',
    );
    expect(() => runFactsFromRunFile({ ...runFile('F1-001', 'FAIL'), facts: { ...facts, toolCalls: -1 } })).toThrow(
      'field "facts.toolCalls" is not a count',
    );
    // the effects verdict, from the facts or (older files) the report's effects; a damaged one is named.
    expect(runFactsFromRunFile({ ...runFile('F1-001', 'FAIL'), facts: { ...facts, effects: 'EXACTLY_ONCE' } }).effects).toBe(
      'EXACTLY_ONCE',
    );
    expect(() => runFactsFromRunFile({ ...runFile('F1-001', 'FAIL'), facts: { ...facts, effects: 'SOME' } })).toThrow(
      'field "facts.effects" is not an effects verdict',
    );
    const withEffects = {
      ...runFile('F1-001', 'FAIL'),
      report: { ...report(1, true), effects: { verdict: 'DUPLICATE_EFFECT' } },
    };
    expect(runFactsFromRunFile(withEffects).effects).toBe('DUPLICATE_EFFECT');
    expect(runFactsFromRunFile(runFile('F1-001', 'FAIL')).effects).toBeUndefined();
    expect(() => runFactsFromRunFile({ ...runFile('F1-001', 'FAIL'), verdict: 'MAYBE' })).toThrow(
      'field "verdict" is not PASS, FAIL or NOT_TESTED',
    );
  });
});

describe('mergeFolders', () => {
  it('the union of the runs, whatever the order of the folders; shards of one trial merge without warnings', () => {
    const a = trial('a', [runFile('F1-001', 'PASS'), runFile('F1-003', 'FAIL')], { shard: { index: 1, count: 2 } });
    const b = trial('b', [runFile('F1-002', 'FAIL'), runFile('F1-004', 'NOT_TESTED')], { shard: { index: 2, count: 2 } });
    const ab = mergeFolders([a, b]);
    const ba = mergeFolders([b, a]);
    if (!ab.ok || !ba.ok) throw new Error('refused');
    expect(ab.result.summary).toEqual(ba.result.summary);
    expect(ab.result.runs).toBe(4);
    expect(ab.result.warnings).toEqual([]);
    expect(ab.result.summary.scenarios[0]).toMatchObject({ scenario: 'F1', runs: 4, pass: 1, fail: 2, notTested: 1 });
  });

  it('refuses a different configuration, a run file of another version, a broken run, an unusable path — one line', () => {
    const a = trial('a', [runFile('F1-001', 'PASS')]);
    const refused = (outcome: ReturnType<typeof mergeFolders>) => (outcome.ok ? '' : outcome.message);
    expect(refused(mergeFolders([a, trial('b', [runFile('F1-001', 'PASS')], { agent: { model: 'other' } })]))).toMatch(
      /cannot merge: a and b were run with different configurations/,
    );
    expect(refused(mergeFolders([trial('c', [{ ...runFile('F1-001', 'PASS'), harnessVersion: '0.5.0' }])]))).toMatch(
      /was written by harness 0\.5\.0, its summary\.json by 0\.6\.0/,
    );
    expect(
      refused(mergeFolders([{ ...a, runs: [{ path: 'a/runs/x/run.json', value: null, problem: 'is not complete JSON' }] }])),
    ).toBe('a/runs/x/run.json is not complete JSON');
    expect(refused(mergeFolders([{ kind: 'unusable', path: 'f.json', problem: 'is not a folder' }]))).toBe(
      'f.json is not a folder',
    );
    expect(refused(mergeFolders([]))).toMatch(/no trial or report folder/);
    expect(refused(mergeFolders([trial('w', [runFile('F1-001', 'PASS')], { interrupted: 'received SIGTERM' })]))).toBe('');
  });

  it('refuses the same folder twice, or two copies of one trial (same out and start): its runs would count twice', () => {
    const refused = (outcome: ReturnType<typeof mergeFolders>) => (outcome.ok ? '' : outcome.message);
    const summary = { out: '/ci/trial', startedAt: '2026-12-01T00:00:00.000Z' };
    const a = trial('a', [runFile('F1-001', 'PASS'), runFile('F1-002', 'FAIL')], summary);
    expect(refused(mergeFolders([a, a]))).toMatch(/cannot merge: .*a.* twice/);
    expect(
      refused(
        mergeFolders([
          a,
          trial(
            'a/',
            a.runs.map((r) => r.value!),
            summary,
          ),
        ]),
      ),
    ).toMatch(/twice/);
    expect(
      refused(
        mergeFolders([
          a,
          trial(
            'copy-of-a',
            a.runs.map((r) => r.value!),
            summary,
          ),
        ]),
      ),
    ).toMatch(/a and copy-of-a are the same trial/);
    const bare = trial('x', [runFile('F1-001', 'PASS')]);
    expect(refused(mergeFolders([bare, { ...bare, path: './x/' }]))).toMatch(/x\/ is named twice/);
    // Two trials of one configuration made separately may be pooled.
    const other = trial('b', [runFile('F1-001', 'PASS')], { out: '/ci/trial', startedAt: '2026-12-01T01:00:00.000Z' });
    expect(refused(mergeFolders([a, other]))).toBe('');
  });

  it('refuses a trial folder whose run files disagree with its summary (a run folder lost or added since): the count would be wrong', () => {
    const refused = (outcome: ReturnType<typeof mergeFolders>) => (outcome.ok ? '' : outcome.message);
    const runs = [runFile('F1-001', 'PASS'), runFile('F1-002', 'FAIL')];
    expect(refused(mergeFolders([trial('a', runs, { doneRuns: 3 })]))).toBe(
      'a/summary.json counts 3 runs done but a/runs/ holds 2 run files; the folder is incomplete or mixed',
    );
    expect(refused(mergeFolders([trial('a', runs, { doneRuns: 2 })]))).toBe('');
    // A summary without the count (an older harness) is taken as it is.
    expect(refused(mergeFolders([trial('a', runs)]))).toBe('');
  });

  it('refuses trials whose provenance configuration hash differs (another honesty question, --patch, --is-error …) even when agent and tasks match', () => {
    const refused = (outcome: ReturnType<typeof mergeFolders>) => (outcome.ok ? '' : outcome.message);
    const withHash = (path: string, hash: string) =>
      trial(path, [runFile('F1-001', 'PASS')], { provenance: { configurationHash: hash } });
    expect(refused(mergeFolders([withHash('a', 'h1'), withHash('b', 'h2')]))).toMatch(
      /cannot merge: a and b were run with different configurations/,
    );
    expect(refused(mergeFolders([withHash('a', 'h1'), withHash('b', 'h1')]))).toBe('');
  });
});

describe('stats refuses what no run can produce, and copies of one session', () => {
  const refused = (outcome: ReturnType<typeof mergeFolders>) => (outcome.ok ? '' : outcome.message);
  const facts: RunFacts = run({ taskId: 'default', reason: 'r' });

  it('R-2.1: a run file whose facts say PASS with 5 duplicate executions is refused, naming the file', () => {
    const edited = trial('a', [{ ...runFile('F1-001', 'PASS'), facts: { ...facts, duplicatedOperations: 5 } }]);
    expect(refused(mergeFolders([edited]))).toBe(
      'a/runs/0/run.json holds facts no run can have: PASS with 5 duplicate execution(s): a duplicate execution is a FAIL (R-2.1)',
    );
    const derived = trial('b', [{ ...runFile('F1-001', 'PASS'), report: report(2, true) }]);
    expect(refused(mergeFolders([derived]))).toMatch(/^b\/runs\/0\/run\.json holds facts no run can have: PASS with 2/);
    expect(refused(mergeFolders([trial('c', [{ ...runFile('F1-001', 'PASS'), facts }])]))).toBe('');
  });

  it('a proxy session report that says PASS with a duplicate execution is refused too', () => {
    const doc = parseReportDocument(JSON.parse(documentOf(carefulF1())) as unknown);
    if (doc.shape !== 'session') throw new Error('expected a session report');
    const edited = {
      ...doc,
      report: { ...doc.report, violations: [...doc.report.violations, { type: 'DUPLICATE_EXECUTION' } as never] },
    };
    const folder: ReportFolderInput = {
      kind: 'proxy-session',
      path: 'r',
      items: [{ type: 'report', path: 'r/x.json', document: edited }],
    };
    expect(refused(mergeFolders([folder]))).toMatch(/^r\/x\.json holds facts no run can have: PASS with 1 duplicate/);
  });

  it('the same session report copied (a --report-dir folder twice under other names) is refused; identical reports under other names are counted with a warning', () => {
    const doc = parseReportDocument(JSON.parse(documentOf(carefulF1())) as unknown);
    const folder = (path: string, names: string[]): ReportFolderInput => ({
      kind: 'proxy-session',
      path,
      items: names.map((name) => ({ type: 'report' as const, path: `${path}/${name}`, document: doc })),
    });
    const name = 'session-0001-1a2b3c4d.json';
    expect(refused(mergeFolders([folder('ci-1', [name]), folder('ci-2', [name]), folder('ci-3', [name])]))).toBe(
      `cannot merge: ci-1/${name} and ci-2/${name} are copies of one session's report (the same file name and content); its run would be counted twice`,
    );
    const same = mergeFolders([folder('d', ['a.json', 'b.json'])]);
    if (!same.ok) throw new Error(same.message);
    expect(same.result.runs).toBe(2);
    expect(same.result.warnings).toEqual([
      'd/a.json, d/b.json are identical reports: counted as 2 runs (if they are copies of one session, remove the copies)',
    ]);
  });
});

describe('issue 42: a --listen session report carries its session id', () => {
  const refused = (outcome: ReturnType<typeof mergeFolders>) => (outcome.ok ? '' : outcome.message);
  const doc = parseReportDocument(JSON.parse(documentOf(carefulF1())) as unknown);
  const ofSession = (id: string, ordinal: number) => ({ ...doc, session: { id, ordinal } });
  const folder = (path: string, docs: Array<{ name: string; document: unknown }>): ReportFolderInput => ({
    kind: 'proxy-session',
    path,
    items: docs.map(({ name, document }) => ({ type: 'report' as const, path: `${path}/${name}`, document: document as never })),
  });

  it('20 sessions with the same calls (none) are 20 runs, not identical reports', () => {
    const sessions = Array.from({ length: 20 }, (_, i) => ({
      name: `session-${String(i + 1).padStart(4, '0')}-${String(i).padStart(8, '0')}.json`,
      document: ofSession(`${String(i).padStart(8, '0')}-0000-4000-8000-000000000000`, i + 1),
    }));
    const merged = mergeFolders([folder('reports', sessions)]);
    if (!merged.ok) throw new Error(merged.message);
    expect(merged.result.runs).toBe(20);
    expect(merged.result.warnings).toEqual([]);
  });

  it('a copy of one session report is refused whatever its file name: the id says it is one session', () => {
    const one = ofSession('1a2b3c4d-0000-4000-8000-000000000000', 1);
    expect(
      refused(
        mergeFolders([
          folder('ci-1', [{ name: 'session-0001-1a2b3c4d.json', document: one }]),
          folder('ci-2', [{ name: 'renamed.json', document: one }]),
        ]),
      ),
    ).toBe(
      "cannot merge: ci-1/session-0001-1a2b3c4d.json and ci-2/renamed.json are copies of one session's report (session 1a2b3c4d-0000-4000-8000-000000000000); its run would be counted twice",
    );
  });
});

describe('replayed proxy sessions (docs/replay.md: a replay repeats a recorded sample)', () => {
  const refused = (outcome: ReturnType<typeof mergeFolders>) => (outcome.ok ? '' : outcome.message);
  const live = parseReportDocument(JSON.parse(documentOf(carefulF1())) as unknown);
  const replayed = { ...live, replayed: true as const };
  const folder = (path: string, docs: Array<typeof live>): ReportFolderInput => ({
    kind: 'proxy-session',
    path,
    items: docs.map((document, i) => ({ type: 'report' as const, path: `${path}/s${i}.json`, document })),
  });

  it('a folder of replayed reports is never pooled with a live one, and the refusal names the setting', () => {
    expect(refused(mergeFolders([folder('live', [live]), folder('rep', [replayed])]))).toBe(
      'cannot merge: live and rep measured different things: --upstream-replay is (not set) in live but replayed (repeats a recorded sample, not a new one) in rep',
    );
    expect(refused(mergeFolders([folder('rep1', [replayed]), folder('rep2', [replayed])]))).toBe('');
    expect(refused(mergeFolders([folder('live1', [live]), folder('live2', [live])]))).toBe('');
  });

  it('one folder holding a replayed and a live report is refused, naming both', () => {
    expect(refused(mergeFolders([folder('mixed', [live, replayed])]))).toBe(
      'cannot merge: mixed/s1.json is a replayed session (--upstream-replay: it repeats a recorded sample) and mixed/s0.json a live one; merge replayed sessions apart from live ones',
    );
  });
});

describe('stats: effect rates (R-15)', () => {
  it('one line per group with an effects view, over those runs only; none without a view', () => {
    const withView = (id: string, verdict: string, effects: string) => ({
      ...runFile(id, verdict),
      report: { ...report(verdict === 'FAIL' ? 1 : 0, true), effects: { verdict: effects } },
    });
    const merged = mergeFolders([
      trial('t', [
        withView('F1-001', 'FAIL', 'DUPLICATE_EFFECT'),
        withView('F1-002', 'FAIL', 'EXACTLY_ONCE'),
        runFile('F1-003', 'PASS'),
      ]),
    ]);
    if (!merged.ok) throw new Error('refused');
    const text = formatStatsTable(merged.result);
    expect(text).toMatch(
      /^effects F1 \(2 of 3 runs with an effects view\): duplicate effect 1\/2 \(50 %; [^)]+\), lost effect 0\/2 .*exactly once 1\/2 .*unknown 0\/2/m,
    );
    const plain = mergeFolders([trial('p', [runFile('F1-001', 'PASS')])]);
    if (!plain.ok) throw new Error('refused');
    expect(formatStatsTable(plain.result)).not.toMatch(/^effects /m);
  });
});
