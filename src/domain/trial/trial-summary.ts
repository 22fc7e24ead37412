/**
 * The summary of many runs: per arm and scenario, and per task within it, the verdict counts,
 * the rates with 95 % Wilson intervals, pass^k, how often the fault fired, and the NOT_TESTED runs
 * counted apart with their reasons. NOT_TESTED runs are excluded from every rate (a run that could not
 * be judged is neither a pass nor a failure). The result does not depend on the order of the runs, so
 * merged shards give the summary of one trial.
 */
import { passKCurve, proportion, type PassK, type Proportion } from '../statistics/index.js';
import { HONESTY_CLASSES, type HonestyClass } from './honesty.js';
import type { RunFacts } from './run-facts.js';
import { effectRates, type EffectRates } from './effects-rates.js';
import { REPEAT_SOURCES, type RepeatSource } from '../judging/attribution.js';

/** The rates of a group; each over its judged runs (PASS or FAIL), honesty over those that answered. */
export interface GroupRates {
  pass: Proportion;
  /** Runs with at least one operation executed twice. */
  duplicateExecution: Proportion;
  lostTransaction: Proportion;
  /** Runs whose task write never executed and whose agent said so (a reported abort; never lost). */
  abandonedWrite: Proportion;
  /** Over the judged runs whose honesty was measured (UNPARSED answers included in the denominator). */
  honest: Proportion;
  falseFailure: Proportion;
  falseSuccess: Proportion;
  evasive: Proportion;
  unparsed: Proportion;
}
export type RateName = keyof GroupRates;

export interface ReasonCount {
  reason: string;
  count: number;
}

export interface GroupSummary {
  runs: number;
  pass: number;
  fail: number;
  notTested: number;
  /** Why runs were NOT_TESTED, most frequent first. */
  notTestedReasons: ReasonCount[];
  /** Runs (all of them, NOT_TESTED included) in which the scenario's fault was applied. */
  faultFired: number;
  rates: GroupRates;
  /** Judged runs whose honesty was measured, and how many fell in each class. */
  honesty: { measured: number } & Record<HonestyClass, number>;
  /**
   * the duplicate rate by source — judged runs with a duplicate of that source (its violation's
   * `duplicate.source`) over the judged runs, with its 95 % Wilson interval. A run with duplicates of two
   * sources counts under both.
   */
  duplicateBySource: Record<RepeatSource, Proportion>;
  /** pass^k for k = 1 … min(runs of the smallest task, 8), averaged over the tasks. */
  passK: PassK[];
  /** Median tool calls per run (all runs); null without runs. */
  medianToolCalls: number | null;
  /** the effect rates, over the runs with an effects view only (`viewed` 0: none had one). */
  effects: EffectRates;
}

export interface TaskSummary extends GroupSummary {
  taskId: string;
}

export interface ScenarioSummary extends GroupSummary {
  arm: string;
  scenario: string;
  tasks: TaskSummary[];
}

export interface TrialSummary {
  /** The arms, in code-unit order (`baseline` before most names; the comparison names its arms itself). */
  arms: string[];
  /** One entry per arm and scenario, ordered by arm, then scenario. */
  scenarios: ScenarioSummary[];
}

const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Groups by a key into a Map (never an object, so no key such as `__proto__` can pollute anything). */
function groupBy(runs: readonly RunFacts[], key: (run: RunFacts) => string): Map<string, RunFacts[]> {
  const groups = new Map<string, RunFacts[]>();
  for (const run of runs) {
    const k = key(run);
    const group = groups.get(k);
    if (group === undefined) groups.set(k, [run]);
    else group.push(run);
  }
  return groups;
}

/** The middle value (the mean of the two middle values for an even count); null for none. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function countWhere(runs: readonly RunFacts[], test: (run: RunFacts) => boolean): number {
  return runs.reduce((count, run) => count + (test(run) ? 1 : 0), 0);
}

function summariseGroup(runs: readonly RunFacts[]): GroupSummary {
  const judged = runs.filter((run) => run.verdict !== 'NOT_TESTED');
  const answered = judged.filter((run) => run.honesty !== 'NOT_MEASURED');
  const pass = countWhere(judged, (run) => run.verdict === 'PASS');
  const honestyCount = (kind: HonestyClass) => countWhere(answered, (run) => run.honesty === kind);
  const notTested = runs.filter((run) => run.verdict === 'NOT_TESTED');
  const reasons = [...groupBy(notTested, (run) => run.reason)].map(([reason, list]) => ({ reason, count: list.length }));
  reasons.sort((a, b) => b.count - a.count || byText(a.reason, b.reason));
  const tasks = [...groupBy(judged, (run) => run.taskId).values()].map((list) => ({
    runs: list.length,
    passed: countWhere(list, (run) => run.verdict === 'PASS'),
  }));
  const honesty = { measured: answered.length } as GroupSummary['honesty'];
  for (const kind of HONESTY_CLASSES) honesty[kind] = honestyCount(kind);
  return {
    runs: runs.length,
    pass,
    fail: judged.length - pass,
    notTested: notTested.length,
    notTestedReasons: reasons,
    faultFired: countWhere(runs, (run) => run.faultFired),
    rates: {
      pass: proportion(pass, judged.length),
      duplicateExecution: proportion(
        countWhere(judged, (run) => run.duplicatedOperations > 0),
        judged.length,
      ),
      lostTransaction: proportion(
        countWhere(judged, (run) => run.lostTransaction),
        judged.length,
      ),
      abandonedWrite: proportion(
        countWhere(judged, (run) => run.abandonedWrite),
        judged.length,
      ),
      honest: proportion(honesty.HONEST, answered.length),
      falseFailure: proportion(honesty.FALSE_FAILURE, answered.length),
      falseSuccess: proportion(honesty.FALSE_SUCCESS, answered.length),
      evasive: proportion(honesty.EVASIVE, answered.length),
      unparsed: proportion(honesty.UNPARSED, answered.length),
    },
    honesty,
    duplicateBySource: duplicateBySource(judged),
    passK: passKCurve(tasks),
    medianToolCalls: median(runs.map((run) => run.toolCalls)),
    effects: effectRates(runs),
  };
}

/** The sources of a run's duplicates; a run file written before attribution: its duplicates are `unknown`. */
export function duplicateSourcesOf(run: RunFacts): readonly RepeatSource[] {
  return run.duplicateSources ?? (run.duplicatedOperations > 0 ? ['unknown'] : []);
}

/** per source, the judged runs with a duplicate of that source over the judged runs. */
function duplicateBySource(judged: readonly RunFacts[]): Record<RepeatSource, Proportion> {
  const rates = {} as Record<RepeatSource, Proportion>;
  for (const source of REPEAT_SOURCES)
    rates[source] = proportion(
      countWhere(judged, (run) => duplicateSourcesOf(run).includes(source)),
      judged.length,
    );
  return rates;
}

/** The summary of a set of runs, per arm and scenario and per task; independent of the runs' order. */
export function summariseRuns(runs: readonly RunFacts[]): TrialSummary {
  const arms = [...new Set(runs.map((run) => run.arm))].sort(byText);
  const scenarios: ScenarioSummary[] = [];
  for (const arm of arms) {
    const ofArm = groupBy(
      runs.filter((run) => run.arm === arm),
      (run) => run.scenario,
    );
    for (const scenario of [...ofArm.keys()].sort(byText)) {
      const list = ofArm.get(scenario)!;
      const byTask = groupBy(list, (run) => run.taskId);
      const tasks = [...byTask.keys()].sort(byText).map((taskId) => ({ taskId, ...summariseGroup(byTask.get(taskId)!) }));
      scenarios.push({ arm, scenario, ...summariseGroup(list), tasks });
    }
  }
  return { arms, scenarios };
}
