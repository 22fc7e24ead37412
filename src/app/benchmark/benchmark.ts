/**
 * The benchmark: the reference agents (careful and naive; patient too with F6 or F7, R-16.2), every
 * chosen scenario, `runs` times each, pooled per scenario and per agent with the domain's own pooling rules. The self-test passes when every run got
 * the verdict expected for its reference agent, the harness counted exactly the writes the backend
 * executed, and the effects view (R-15: the bookings the backend lists, before and after) judged what the
 * backend's ledger holds. Scores are whatever the rules compute; nothing here knows what they should be.
 */
import { ToolClassifier, type ToolClassification } from '../../domain/judging/classification.js';
import type { ScenarioId } from '../../domain/faults/index.js';
import { DEFAULT_KEY_FIELDS, KeyFieldMatcher } from '../../domain/judging/key-fields.js';
import { poolVerdicts } from '../../domain/report/report.js';
import { addScoreInputs, computeScore, type Score, type ScoreInputs } from '../../domain/report/score.js';
import type { EffectsVerdict } from '../../domain/effects/effects-verdict.js';
import type { Verdict } from '../../domain/report/verdict.js';
import type { BenchmarkDeps, BenchmarkOptions } from './benchmark-deps.js';
import { catalogOf, outputSchemaToolsOf } from './harness-call.js';
import { NAIVE, referenceAgentsFor, type AgentId, type ReferenceAgent } from './reference-agents.js';
import { runScenario, type RunOutcome } from './scenario-run.js';

/** One (agent, scenario) pair over all its runs. */
export interface ScenarioResult {
  scenario: ScenarioId;
  verdict: Verdict;
  expectedVerdict: Verdict;
  /** The reason given for the pooled verdict (of the first run that got it). */
  verdictReason: string;
  runs: number;
  unexpectedRuns: number;
  score: Score;
  /** The pooled score inputs (to pool the agent's scenarios). */
  inputs: ScoreInputs;
  executions: { harness: number; backend: number };
  /** What the effects view judged over the pair's runs: what the backend holds, beside the verdict. */
  effects: PairEffects;
}

/** The effects verdicts of one (agent, scenario) pair's runs. */
export interface PairEffects {
  /** The gravest verdict of its runs (EFFECTS_UNKNOWN, DUPLICATE_EFFECT, LOST_EFFECT, EXACTLY_ONCE, NO_EFFECT). */
  verdict: EffectsVerdict;
  /** The reason of the first run that got it. */
  reason: string;
  /** That run's explanation where the effects and the execution verdict disagree; else null. */
  explanation: string | null;
  /** How many runs got each verdict (the verdicts no run got are left out). */
  runs: Partial<Record<EffectsVerdict, number>>;
}

/** Gravest first: the pooled effects verdict of several runs is the first of these any run got. */
export const EFFECTS_PRECEDENCE: readonly EffectsVerdict[] = [
  'EFFECTS_UNKNOWN',
  'DUPLICATE_EFFECT',
  'LOST_EFFECT',
  'EXACTLY_ONCE',
  'NO_EFFECT',
];

export interface AgentResult {
  agent: ReferenceAgent;
  /** Pooled over every run of every scenario. */
  score: Score;
  scenarios: ScenarioResult[];
}

/** A run that did not get its expected verdict, or whose execution count disagrees with the backend. */
export interface UnexpectedRun {
  agent: AgentId;
  scenario: ScenarioId;
  run: number;
  verdict: Verdict;
  expectedVerdict: Verdict;
  reason: string;
}

export interface SelfTest {
  passed: boolean;
  /** The chosen scenarios in which the naive agent must FAIL. */
  expectedNaiveFailures: ScenarioId[];
  /** The chosen scenarios in which it did. */
  naiveFailedIn: ScenarioId[];
  unexpectedCount: number;
  /** The first {@link UNEXPECTED_LISTED} unexpected runs. */
  unexpected: UnexpectedRun[];
}

export interface BenchmarkResult {
  options: BenchmarkOptions;
  tools: ToolClassification[];
  agents: AgentResult[];
  selfTest: SelfTest;
}

/** How many unexpected runs are listed (all are counted). */
export const UNEXPECTED_LISTED = 100;

const NO_INPUTS: ScoreInputs = { operations: 0, safe: 0, faultScored: 0, faultPoints: 0 };

/** Accumulates the runs of one (agent, scenario) pair without keeping them. */
class PairTally {
  readonly reasons = new Map<Verdict, string>();
  inputs = NO_INPUTS;
  unexpectedRuns = 0;
  readonly executions = { harness: 0, backend: 0 };
  readonly effects = new Map<EffectsVerdict, { first: RunOutcome['effects']; runs: number }>();

  add(outcome: RunOutcome, unexpected: boolean): void {
    if (!this.reasons.has(outcome.verdict)) this.reasons.set(outcome.verdict, outcome.reason);
    const seen = this.effects.get(outcome.effects.verdict);
    if (seen === undefined) this.effects.set(outcome.effects.verdict, { first: outcome.effects, runs: 1 });
    else seen.runs++;
    this.inputs = addScoreInputs(this.inputs, outcome.inputs);
    if (unexpected) this.unexpectedRuns++;
    this.executions.harness += outcome.executions.harness;
    this.executions.backend += outcome.executions.backend;
  }

  result(scenario: ScenarioId, expectedVerdict: Verdict, runs: number): ScenarioResult {
    const verdict = poolVerdicts([...this.reasons.keys()]);
    return {
      scenario,
      verdict,
      expectedVerdict,
      verdictReason: this.reasons.get(verdict) ?? '',
      runs,
      unexpectedRuns: this.unexpectedRuns,
      score: computeScore(verdict, this.inputs),
      inputs: this.inputs,
      executions: { ...this.executions },
      effects: this.pairEffects(),
    };
  }

  private pairEffects(): PairEffects {
    const verdict = EFFECTS_PRECEDENCE.find((v) => this.effects.has(v)) ?? 'EFFECTS_UNKNOWN';
    const first = this.effects.get(verdict)?.first;
    const runs: Partial<Record<EffectsVerdict, number>> = {};
    for (const v of EFFECTS_PRECEDENCE) {
      const n = this.effects.get(v)?.runs;
      if (n !== undefined) runs[v] = n;
    }
    return { verdict, reason: first?.reason ?? 'no run', explanation: first?.explanation ?? null, runs };
  }
}

/**
 * The effects verdict the backend's own ledger calls for: every executed write books the run's one room,
 * so none is LOST_EFFECT, one EXACTLY_ONCE, more DUPLICATE_EFFECT. The effects view reads the bookings
 * another way (its listing, snapshots and diff); the two must agree.
 */
export function ledgerEffectsVerdict(bookings: number): EffectsVerdict {
  return bookings === 0 ? 'LOST_EFFECT' : bookings === 1 ? 'EXACTLY_ONCE' : 'DUPLICATE_EFFECT';
}

/** Why a run is unexpected, or null when it is as expected. */
function surprise(outcome: RunOutcome, expected: Verdict): string | null {
  const { harness, backend } = outcome.executions;
  if (harness !== backend) return `the harness counted ${harness} write execution(s), the backend executed ${backend}`;
  const byLedger = ledgerEffectsVerdict(backend);
  if (outcome.effects.verdict !== byLedger)
    return `the effects view judged ${outcome.effects.verdict} (${outcome.effects.reason}), the backend holds ${backend} booking(s): ${byLedger}`;
  return outcome.verdict === expected ? null : outcome.reason;
}

/** Lists and classifies the simulated backend's tools once, like the proxy does at start-up. */
async function classifyBackend(
  deps: BenchmarkDeps,
): Promise<{ tools: ToolClassification[]; outputSchemaTools: ReadonlySet<string> }> {
  const probe = deps.newBackend();
  await probe.connect();
  const listed = await probe.listTools();
  await probe.close();
  return {
    tools: new ToolClassifier({}, new KeyFieldMatcher(DEFAULT_KEY_FIELDS)).classifyListed(listed),
    outputSchemaTools: outputSchemaToolsOf(listed),
  };
}

/** Runs the benchmark. */
export async function runBenchmark(options: BenchmarkOptions, deps: BenchmarkDeps): Promise<BenchmarkResult> {
  const { tools, outputSchemaTools } = await classifyBackend(deps);
  const catalog = catalogOf(tools);
  const random = deps.newRandom(options.seed);
  const referenceAgents = referenceAgentsFor(options.scenarios);
  const total = referenceAgents.length * options.scenarios.length * options.runs;
  const unexpected: UnexpectedRun[] = [];
  let unexpectedCount = 0;
  let done = 0;
  const agents: AgentResult[] = [];
  for (const agent of referenceAgents) {
    const scenarios: ScenarioResult[] = [];
    for (const scenario of options.scenarios) {
      const tally = new PairTally();
      const expectedVerdict = agent.expectedVerdict(scenario);
      for (let run = 1; run <= options.runs; run++) {
        const outcome = await runScenario(
          { agent, scenario, run, catalog, outputSchemaTools, jitterMs: options.jitterMs, random },
          deps,
        );
        const reason = surprise(outcome, expectedVerdict);
        tally.add(outcome, reason !== null);
        if (reason !== null && unexpectedCount++ < UNEXPECTED_LISTED) {
          unexpected.push({ agent: agent.id, scenario, run, verdict: outcome.verdict, expectedVerdict, reason });
        }
        deps.onProgress?.(++done, total);
      }
      scenarios.push(tally.result(scenario, expectedVerdict, options.runs));
    }
    agents.push({ agent, score: pooledScore(scenarios), scenarios });
  }
  return { options, tools, agents, selfTest: selfTestOf(options.scenarios, agents, unexpected, unexpectedCount) };
}

function pooledScore(scenarios: readonly ScenarioResult[]): Score {
  const verdict = poolVerdicts(scenarios.map((s) => s.verdict));
  return computeScore(verdict, scenarios.map((s) => s.inputs).reduce(addScoreInputs, NO_INPUTS));
}

function selfTestOf(
  scenarios: readonly ScenarioId[],
  agents: readonly AgentResult[],
  unexpected: UnexpectedRun[],
  unexpectedCount: number,
): SelfTest {
  const naive = agents.find((a) => a.agent.id === NAIVE.id);
  return {
    passed: unexpectedCount === 0,
    expectedNaiveFailures: scenarios.filter((s) => NAIVE.expectedVerdict(s) === 'FAIL'),
    naiveFailedIn: naive?.scenarios.filter((s) => s.verdict === 'FAIL').map((s) => s.scenario) ?? [],
    unexpectedCount,
    unexpected,
  };
}
