/**
 * What the benchmark shows: the stdout text (per agent the score block of `formatScore`, a verdict and an
 * effects verdict per scenario, what the backend holds per agent, then the self-test's result) and the JSON
 * document of `.cuonztech/benchmark-report.json`.
 */
import { BENCHMARK_REPORT_SCHEMA_VERSION } from '../../domain/report/schema-versions.js';
import type { ScenarioId } from '../../domain/faults/index.js';
import { formatScore } from '../../domain/report/format.js';
import { CERTIFICATION } from '../../domain/report/report.js';
import type { Score } from '../../domain/report/score.js';
import type { EffectsVerdict } from '../../domain/effects/effects-verdict.js';
import {
  EFFECTS_PRECEDENCE,
  type AgentResult,
  type BenchmarkResult,
  type PairEffects,
  type ScenarioResult,
  type UnexpectedRun,
} from './benchmark.js';
import { REFERENCE_AGENTS } from './reference-agents.js';

/** Printed with every result, and kept in the JSON. */
export const NAIVE_NOTE = 'The naive reference agent fails on purpose; this is part of the self-test, not about your system.';

/** How many unexpected runs the text names (the JSON lists more). */
const UNEXPECTED_PRINTED = 10;

const COUNT_WORDS: Readonly<Record<number, string>> = { 2: 'two', 3: 'three' };
const list = (ids: readonly ScenarioId[]): string => ids.join(', ');
const scoreText = (score: Score): string => (score.overall === null ? 'no score' : `${score.overall}/100`);

/** `DUPLICATE_EFFECT`, or `DUPLICATE_EFFECT (2 of 5 runs)` where the runs differ. */
function effectsCell(effects: PairEffects, runs: number): string {
  const n = effects.runs[effects.verdict] ?? 0;
  return n === runs ? effects.verdict : `${effects.verdict} (${n} of ${runs} runs)`;
}

function scenarioTable(scenarios: readonly ScenarioResult[]): string[] {
  const lines = ['| Scenario | Verdict | Expected | Score | Effects |', '|---|---|---|---|---|'];
  for (const s of scenarios) {
    const off = s.unexpectedRuns > 0 ? ` (${s.unexpectedRuns} of ${s.runs} runs unexpected)` : '';
    lines.push(
      `| ${s.scenario} | ${s.verdict} | ${s.expectedVerdict}${off} | ${scoreText(s.score)} | ${effectsCell(s.effects, s.runs)} |`,
    );
  }
  return lines;
}

/** Per agent, the scenarios grouped by their effects verdict: `NAIVE: DUPLICATE_EFFECT in F1, F4; EXACTLY_ONCE in F2.` */
function effectsLines(result: BenchmarkResult): string[] {
  const lines = ['Effects (the bookings the simulated backend holds after each run, listed by the harness itself):'];
  for (const { agent, scenarios } of result.agents) {
    const groups = new Map<EffectsVerdict, ScenarioId[]>();
    for (const s of scenarios) groups.set(s.effects.verdict, [...(groups.get(s.effects.verdict) ?? []), s.scenario]);
    const parts = EFFECTS_PRECEDENCE.filter((v) => groups.has(v)).map((v) => `${v} in ${list(groups.get(v)!)}`);
    lines.push(`  ${agent.name}: ${parts.join('; ')}.`);
  }
  return [...lines, ''];
}

function agentBlock(result: AgentResult, index: number, count: number): string[] {
  const { agent } = result;
  return [
    `Reference agent ${index + 1}/${count}: ${agent.name} (${agent.description})`,
    formatScore(result.score),
    '',
    ...scenarioTable(result.scenarios),
    '',
  ];
}

function naiveLine(result: BenchmarkResult): string {
  const { expectedNaiveFailures: expected, naiveFailedIn: failed, passed } = result.selfTest;
  if (expected.length === 0) {
    return `The naive agent is expected to fail in none of ${list(result.options.scenarios)}${passed ? ' and did not' : ''}.`;
  }
  if (passed) return `The naive agent is expected to fail in ${list(expected)} and did.`;
  return `The naive agent was expected to fail in ${list(expected)}; it failed in ${failed.length === 0 ? 'none' : list(failed)}.`;
}

function unexpectedLine(run: UnexpectedRun): string {
  const name = REFERENCE_AGENTS.find((a) => a.id === run.agent)?.name ?? run.agent;
  return `  ${name} ${run.scenario} run ${run.run}: ${run.verdict} (expected ${run.expectedVerdict}) — ${run.reason}`;
}

/**
 * The scenarios in which the careful and the patient agent got different verdicts (R-16.2: F6 alone, the
 * write that lands late), in the order run; null when the patient agent was not run.
 */
export function carefulPatientDifferIn(result: BenchmarkResult): ScenarioId[] | null {
  const careful = result.agents.find((a) => a.agent.id === 'careful');
  const patient = result.agents.find((a) => a.agent.id === 'patient');
  if (careful === undefined || patient === undefined) return null;
  return careful.scenarios
    .filter((s) => patient.scenarios.find((p) => p.scenario === s.scenario)?.verdict !== s.verdict)
    .map((s) => s.scenario);
}

/** What tells the careful and the patient agent apart; none when the patient agent was not run. */
function patientLines(result: BenchmarkResult): string[] {
  const differ = carefulPatientDifferIn(result);
  if (differ === null) return [];
  if (differ.length === 0)
    return [`The careful and the patient agent get the same verdicts in ${list(result.options.scenarios)}.`];
  return [`The careful and the patient agent differ only in ${list(differ)}.`];
}

function selfTestLines(result: BenchmarkResult): string[] {
  const { selfTest, options } = result;
  if (selfTest.passed)
    return [
      'Self-test PASSED: every run got the verdict expected for its reference agent.',
      naiveLine(result),
      ...patientLines(result),
    ];
  const total = result.agents.length * options.scenarios.length * options.runs;
  const lines = [
    `Self-test FAILED: ${selfTest.unexpectedCount} of ${total} runs did not get the verdict expected for their reference agent:`,
  ];
  lines.push(...selfTest.unexpected.slice(0, UNEXPECTED_PRINTED).map(unexpectedLine));
  const more = selfTest.unexpectedCount - Math.min(UNEXPECTED_PRINTED, selfTest.unexpected.length);
  if (more > 0) lines.push(`  … and ${more} more`);
  lines.push(naiveLine(result), ...patientLines(result));
  return lines;
}

/** The stdout text (ends with a newline). */
export function formatBenchmarkText(result: BenchmarkResult): string {
  const { scenarios, runs, jitterMs } = result.options;
  const head = [
    `Benchmark: the harness checks itself against ${COUNT_WORDS[result.agents.length] ?? result.agents.length} built-in reference agents (it does not measure your agent).`,
    `Scenarios ${list(scenarios)}; ${runs} run(s) per agent and scenario; jitter up to ${jitterMs} ms (virtual time).`,
    '',
  ];
  const blocks = result.agents.flatMap((agent, i) => agentBlock(agent, i, result.agents.length));
  return [...head, ...blocks, ...effectsLines(result), ...selfTestLines(result), NAIVE_NOTE].join('\n') + '\n';
}

function agentSection(result: AgentResult) {
  const scenarios: Record<string, unknown> = {};
  for (const s of result.scenarios) {
    scenarios[s.scenario] = {
      verdict: s.verdict,
      expectedVerdict: s.expectedVerdict,
      verdictReason: s.verdictReason,
      score: s.score,
      runs: s.runs,
      unexpectedRuns: s.unexpectedRuns,
      executions: s.executions,
      effects: s.effects,
    };
  }
  return {
    certification: CERTIFICATION,
    name: result.agent.name,
    description: result.agent.description,
    expectedToFailIn: result.scenarios.filter((s) => s.expectedVerdict === 'FAIL').map((s) => s.scenario),
    score: result.score,
    scenarios,
  };
}

/** The JSON document of `.cuonztech/benchmark-report.json`: `certification` first, one section per agent. */
export function benchmarkDocument(result: BenchmarkResult, harnessVersion: string): Record<string, unknown> {
  const document: Record<string, unknown> = {
    certification: CERTIFICATION,
    schemaVersion: BENCHMARK_REPORT_SCHEMA_VERSION,
    kind: 'benchmark',
    harnessVersion,
    selfTest: result.selfTest,
    options: result.options,
    note: NAIVE_NOTE,
    toolClassification: result.tools,
  };
  const differ = carefulPatientDifferIn(result);
  if (differ !== null) document['carefulPatientDifferIn'] = differ;
  for (const agent of result.agents) document[agent.agent.id] = agentSection(agent);
  return document;
}
