/**
 * `check`: turns the documents read back from disk into one case per session or run (per tool of a
 * `probe --json` file) and an exit code. A report still `running` (the proxy was killed), one that never got past `starting`, a
 * start-up failure and any unreadable or foreign file are harness failures, never a verdict.
 */
import type {
  BenchmarkReportDocument,
  EarlyReportDocument,
  LoadedGroup,
  LoadedItem,
  SessionReportDocument,
  TrialRunDocument,
} from '../../ports/shapes/report-documents.js';
import type { ProbeResultsFile, ToolReport } from '../../ports/shapes/probe-results.js';
import { BREAKING_LABELS } from '../../domain/probe/probe-judge.js';
import { PROBES } from '../../domain/probe/probes.js';
import type { Verdict } from '../../domain/report/verdict.js';
import { attributionFrom, reportAttribution, withSources } from './check-attribution.js';
import {
  CHECK_EXIT,
  type CheckCounts,
  type CheckedCase,
  type CheckedSuite,
  type CheckOptions,
  type CheckResult,
  GATED_EFFECTS,
  type GatedEffect,
  type GatedVerdict,
} from './check-model.js';

const PROGRAM = 'cuonztech-agent-harness';

/** The file name of a path (both separators, so a report written on Windows reads the same). */
function baseName(path: string): string {
  const parts = path.split(/[\\/]/).filter((p) => p !== '');
  return parts[parts.length - 1] ?? path;
}

/** A case's fields when the file has nothing of them (a harness error, a benchmark pair, a probed tool). */
const NOTHING_MORE = {
  replayed: false,
  incomplete: false,
  violations: [],
  patches: [],
  findings: [],
  document: null,
  honesty: null,
  honestyClaim: null,
  lostTransaction: null,
  durationMs: null,
  gatedBy: [],
  attribution: [],
  transcript: [],
  effects: null,
} as const satisfies Partial<CheckedCase>;

function errorCase(path: string, reason: string, extra: Partial<CheckedCase> = {}): CheckedCase {
  return {
    classname: `${PROGRAM}.error`,
    name: baseName(path),
    path,
    title: path,
    status: 'ERROR',
    baseline: false,
    verdict: null,
    score: null,
    reason,
    ...NOTHING_MORE,
    ...extra,
  };
}

function earlyCase(path: string, doc: EarlyReportDocument): CheckedCase {
  if (doc.status === 'failed') {
    return errorCase(path, `the proxy did not start: ${doc.startupError ?? 'status "failed" without a startupError'}`, {
      verdict: doc.verdict,
    });
  }
  return errorCase(path, 'status "starting": the proxy ended before its first report (no session was judged)', {
    verdict: doc.verdict,
  });
}

function sessionCase(path: string, doc: SessionReportDocument, options: CheckOptions): CheckedCase {
  const { report, score } = doc;
  const scenario = report.scenario.id ?? 'no-scenario';
  const attribution = reportAttribution(doc);
  const base: CheckedCase = {
    classname: `${PROGRAM}.${scenario}`,
    name: `${baseName(path)} (${report.scenario.description})`,
    path,
    title: `${path} (${report.scenario.description})`,
    status: report.verdict,
    baseline: report.verdict === 'PASS' && report.baseline,
    verdict: report.verdict,
    score: score.overall,
    reason: report.verdictReason,
    incomplete: false,
    replayed: doc.replayed === true,
    violations: withSources(report.violations, attribution, doc),
    patches: doc.patches,
    findings: doc.findings ?? [],
    document: doc,
    honesty: 'NOT_MEASURED',
    honestyClaim: null,
    lostTransaction: null,
    durationMs: null,
    gatedBy: [],
    attribution,
    transcript: [],
    effects: doc.effects ?? null,
  };
  if (report.kind === 'demo') {
    return {
      ...base,
      status: 'ERROR',
      baseline: false,
      reason: 'a report of the demo MCP server, which is not a measurement: run your agent through the proxy',
    };
  }
  if (doc.verdict !== report.verdict) {
    return {
      ...base,
      status: 'ERROR',
      baseline: false,
      reason: `inconsistent report: verdict ${doc.verdict} but report.verdict ${report.verdict}`,
    };
  }
  if (doc.status === 'running') {
    return {
      ...base,
      status: 'ERROR',
      baseline: false,
      incomplete: true,
      reason: `incomplete: the report is still status "running" (the proxy was killed before it finished); its verdict so far, ${report.verdict}, is not final`,
    };
  }
  return withMeasuredGates(withMinScoreAndBaseline(base, report.verdictReason, options), options);
}

/**
 * The last two rules of a session report or trial run: a PASS below --min-score is a FAIL, and a
 * baseline PASS says so in its reason. `base.score` is the document's overall score.
 */
function withMinScoreAndBaseline(base: CheckedCase, verdictReason: string, options: CheckOptions): CheckedCase {
  if (base.status === 'PASS' && options.minScore !== null && (base.score ?? 0) < options.minScore) {
    return {
      ...base,
      status: 'FAIL',
      baseline: false,
      reason: `score ${base.score ?? 'none'} is below --min-score ${options.minScore} (${verdictReason})`,
    };
  }
  if (base.baseline && !verdictReason.startsWith('baseline only'))
    return { ...base, reason: `baseline only, no fault injected: ${verdictReason}` };
  return base;
}

/** The cases of a benchmark report: one per (reference agent, scenario); PASS = the expected verdict. */
export function benchmarkCases(path: string, doc: BenchmarkReportDocument, options: CheckOptions): CheckedCase[] {
  return doc.agents.flatMap((agent) =>
    agent.scenarios.map((pair): CheckedCase => {
      const counted = pair.executions.harness === pair.executions.backend;
      const expected = pair.verdict === pair.expectedVerdict && pair.unexpectedRuns === 0 && counted;
      const problems = [
        pair.verdict === pair.expectedVerdict ? null : `expected ${pair.expectedVerdict}, got ${pair.verdict}`,
        pair.unexpectedRuns === 0 ? null : `${pair.unexpectedRuns} of ${pair.runs} runs unexpected`,
        counted ? null : `the harness counted ${pair.executions.harness} executions, the backend ${pair.executions.backend}`,
      ].filter((p): p is string => p !== null);
      const base: CheckedCase = {
        classname: `benchmark.${agent.id}`,
        name: `${agent.name} ${pair.scenario}`,
        path,
        title: `${path}: ${agent.name} ${pair.scenario}`,
        status: expected ? 'PASS' : 'FAIL',
        baseline: false,
        verdict: pair.verdict,
        score: pair.score.overall,
        ...NOTHING_MORE,
        reason: expected
          ? `${pair.verdict} as expected for this reference agent (${pair.verdictReason})`
          : `self-test: ${problems.join('; ')} (${pair.verdictReason})`,
      };
      if (
        base.status === 'PASS' &&
        options.minScore !== null &&
        pair.expectedVerdict === 'PASS' &&
        (pair.score.overall ?? 0) < options.minScore
      ) {
        return {
          ...base,
          status: 'FAIL',
          reason: `score ${pair.score.overall ?? 'none'} is below --min-score ${options.minScore}`,
        };
      }
      return base;
    }),
  );
}

/** Probes whose label decides the tool's verdict (P4 and P7 are reported only). */
const JUDGED_PROBES: ReadonlySet<string> = new Set(PROBES.filter((p) => p.judged).map((p) => p.id));

/** `probe P1 double_created (its reason)`, one per probe in `rows`, joined. */
const probeList = (rows: ToolReport['probes']): string => rows.map((r) => `${r.probe} ${r.label} (${r.reason})`).join('; ');

/** A tool's verdict as a case: KEEPS and NO_PROMISE (a baseline) PASS, BREAKS FAILs, INCONCLUSIVE is NOT_TESTED. */
function probeOutcome(tool: ToolReport): { status: Verdict; baseline: boolean; reason: string } {
  const judged = tool.probes.filter((r) => JUDGED_PROBES.has(r.probe));
  const key = `key read from: ${tool.keyLocation}`;
  switch (tool.verdict) {
    case 'KEEPS':
      return { status: 'PASS', baseline: false, reason: `KEEPS its idempotency promise: ${tool.reason}; ${key}` };
    case 'NO_PROMISE':
      return { status: 'PASS', baseline: true, reason: `baseline only, no promise to test (NO_PROMISE): ${tool.reason}` };
    case 'BREAKS':
      return {
        status: 'FAIL',
        baseline: false,
        reason: `BREAKS its idempotency promise: ${probeList(judged.filter((r) => BREAKING_LABELS.has(r.label)))}; ${key}`,
      };
    case 'INCONCLUSIVE': {
      const open = judged.filter((r) => r.label === 'inconclusive');
      return {
        status: 'NOT_TESTED',
        baseline: false,
        reason: `INCONCLUSIVE: ${tool.reason}${open.length === 0 ? '' : `: ${probeList(open)}`}`,
      };
    }
  }
}

/**
 * The cases of a `probe --json` file (docs/probe.md), one per tool ({@link probeOutcome}). There is no
 * score, so `--min-score` does not apply; there is no report document either (the HTML shows the banner).
 */
export function probeCases(path: string, doc: ProbeResultsFile): CheckedCase[] {
  return doc.tools.map((tool): CheckedCase => {
    const outcome = probeOutcome(tool);
    return {
      classname: `${PROGRAM}.probe`,
      name: `${tool.tool} (${baseName(path)})`,
      path,
      title: `${path}: probe ${tool.tool}${doc.server === null ? '' : ` on ${doc.server}`}`,
      ...outcome,
      verdict: outcome.status,
      score: null,
      ...NOTHING_MORE,
    };
  });
}

/** The trial folder of a run file `<folder>/runs/<run>/run.json` (the path itself when it is not shaped so). */
function trialFolderOf(path: string): string {
  const match = /^(.*?)[\\/]+runs[\\/]+[^\\/]+[\\/]+run\.json$/.exec(path);
  return match === null || match[1] === '' ? path : match[1]!;
}

/**
 * One run of a trial folder: its verdict as the trial judged it (an endpoint or agent-program failure is
 * NOT_TESTED there), except a run the harness itself could not carry out ("the harness stopped / could
 * not start the run"), which is a harness failure like a proxy that exited 1.
 */
function trialRunCase(path: string, run: TrialRunDocument, options: CheckOptions): CheckedCase {
  const session = run.report?.shape === 'session' ? run.report : null;
  const scenario = session?.report.scenario.description;
  // The run file's own attribution (an agent program's run); a report that carries one is read too.
  const attribution = run.attribution.length > 0 ? attributionFrom(run.attribution) : reportAttribution(session);
  const base: CheckedCase = {
    classname: `${PROGRAM}.trial.${run.scenario}`,
    // The folder too: two trial folders checked together both have a run F1-001.
    name: `${run.runId} (${trialFolderOf(path)})`,
    path,
    title: `${path} (run ${run.runId}${scenario === undefined ? '' : `, ${scenario}`})`,
    status: run.verdict,
    baseline: run.verdict === 'PASS' && session?.report.baseline === true,
    verdict: run.verdict,
    score: session?.score.overall ?? null,
    reason: run.verdictReason,
    incomplete: false,
    replayed: run.replayed || session?.replayed === true,
    violations: withSources(session?.report.violations ?? [], attribution, session),
    patches: session?.patches ?? [],
    findings: session?.findings ?? [],
    document: session,
    honesty: run.honesty,
    honestyClaim: run.honestyClaim,
    lostTransaction: run.lostTransaction,
    durationMs: run.durationMs,
    gatedBy: [],
    attribution,
    transcript: run.transcript,
    effects: run.effects,
  };
  if (/^the harness (stopped|could not start)/.test(run.verdictReason))
    return { ...base, status: 'ERROR', baseline: false, reason: `the harness failed in this run: ${run.verdictReason}` };
  return withMeasuredGates(withMinScoreAndBaseline(base, run.verdictReason, options), options);
}

const isGatedEffect = (verdict: string): verdict is GatedEffect => (GATED_EFFECTS as readonly string[]).includes(verdict);

/**
 * `--fail-on FALSE_SUCCESS,FALSE_FAILURE,LOST_TRANSACTION` and `--fail-on DUPLICATE_EFFECT,LOST_EFFECT,EFFECTS_UNKNOWN`:
 * a run whose file records one of them is a FAIL whatever its verdict, and says which (a PASS that told the
 * user a lost booking was made is not a pass; nor is one after which the backend holds the booking twice).
 * The effects' own reason follows, so the line names the key.
 */
function withMeasuredGates(c: CheckedCase, options: CheckOptions): CheckedCase {
  const hit: GatedVerdict[] = [];
  if ((c.honesty === 'FALSE_SUCCESS' || c.honesty === 'FALSE_FAILURE') && options.failOn.has(c.honesty)) hit.push(c.honesty);
  if (c.lostTransaction === true && options.failOn.has('LOST_TRANSACTION')) hit.push('LOST_TRANSACTION');
  const effect = c.effects?.verdict;
  const effectHit = effect !== undefined && isGatedEffect(effect) && options.failOn.has(effect);
  if (effectHit) hit.push(effect);
  if (hit.length === 0 || c.status === 'ERROR') return c;
  const effectReason = effectHit ? ` (effects: ${c.effects!.reason})` : '';
  return {
    ...c,
    status: 'FAIL',
    baseline: false,
    gatedBy: hit,
    reason: `${hit.join(' and ')} (--fail-on ${hit.join(',')})${effectReason}: ${c.reason}`,
  };
}

function casesOf(item: LoadedItem, options: CheckOptions): CheckedCase[] {
  switch (item.type) {
    case 'unreadable':
      return [errorCase(item.path, `the file ${item.problem}`)];
    case 'benchmark':
      return benchmarkCases(item.path, item.document, options);
    case 'report':
      return [
        item.document.shape === 'early' ? earlyCase(item.path, item.document) : sessionCase(item.path, item.document, options),
      ];
    case 'trial-run':
      return [trialRunCase(item.path, item.run, options)];
    case 'probe-results':
      return probeCases(item.path, item.document);
  }
}

/** Counts the cases by status. */
function countCases(suites: readonly CheckedSuite[]): CheckCounts {
  const counts: CheckCounts = { total: 0, pass: 0, baseline: 0, fail: 0, notTested: 0, error: 0, gated: 0, withEffects: 0 };
  for (const c of suites.flatMap((s) => s.cases)) {
    counts.total += 1;
    if (c.status === 'PASS') counts.pass += 1;
    if (c.baseline) counts.baseline += 1;
    if (c.status === 'FAIL') counts.fail += 1;
    if (c.status === 'NOT_TESTED') counts.notTested += 1;
    if (c.status === 'ERROR') counts.error += 1;
    if (c.gatedBy.length > 0) counts.gated += 1;
    if (c.effects !== null) counts.withEffects += 1;
  }
  return counts;
}

/** The exit code of the counts under `--fail-on` (see {@link CHECK_EXIT}). */
function exitCodeOf(counts: CheckCounts, options: CheckOptions): number {
  if (counts.error > 0) return CHECK_EXIT.harnessFailed;
  if (counts.fail > 0 && options.failOn.has('FAIL')) return CHECK_EXIT.fail;
  if (counts.gated > 0) return CHECK_EXIT.fail;
  if (counts.notTested > 0 && options.failOn.has('NOT_TESTED')) return CHECK_EXIT.notTested;
  return CHECK_EXIT.pass;
}

/**
 * One suite per named path; a trial folder gives one suite per scenario (`<folder> F1`), in run order,
 * and its harness failures (a missing summary, an unreadable run file) a suite of the folder itself.
 */
function suitesOf(group: LoadedGroup, options: CheckOptions): CheckedSuite[] {
  const hasRuns = group.items.some((item) => item.type === 'trial-run');
  if (!hasRuns) return [{ name: group.path, reader: group.reader, cases: group.items.flatMap((item) => casesOf(item, options)) }];
  const byScenario = new Map<string, LoadedItem[]>();
  for (const item of group.items) {
    const key = item.type === 'trial-run' ? item.run.scenario : '';
    const items = byScenario.get(key);
    if (items === undefined) byScenario.set(key, [item]);
    else items.push(item); // not a copy per run: a trial of 50,000 runs is read in linear time
  }
  return [...byScenario].map(([scenario, items]) => ({
    name: scenario === '' ? group.path : `${group.path} ${scenario}`,
    reader: group.reader,
    cases: items.flatMap((item) => casesOf(item, options)),
  }));
}

/** Judges what was read: one suite per named path, one case per session or run, and the exit code. */
export function checkGroups(groups: readonly LoadedGroup[], options: CheckOptions): CheckResult {
  const suites = groups.flatMap((g) => suitesOf(g, options));
  const counts = countCases(suites);
  return { suites, counts, gates: [], trial: null, exitCode: exitCodeOf(counts, options) };
}
