/**
 * The A/B comparison of two arms of a trial (a baseline and the arm with prompt patches), per
 * scenario: each rate's difference (treatment − baseline) with a 95 % Newcombe interval, Fisher's exact
 * two-sided p-value, and one sentence a person can act on.
 */
import {
  differenceOfProportions,
  fisherExactTwoSided,
  type ArmCount,
  type Difference,
  type Proportion,
} from '../statistics/index.js';
import type { GroupSummary, RateName, TrialSummary } from './trial-summary.js';

/** The rates compared, in the order a tie between equal p-values is broken (the product's main figure first). */
export const COMPARED_RATES = [
  'duplicateExecution',
  'pass',
  'falseFailure',
  'falseSuccess',
  'lostTransaction',
  'evasive',
] as const satisfies readonly RateName[];
export type ComparedRate = (typeof COMPARED_RATES)[number];

const RATE_WORDS: Record<ComparedRate, { label: string; higherIsBetter: boolean }> = {
  duplicateExecution: { label: 'duplicate executions', higherIsBetter: false },
  pass: { label: 'PASS', higherIsBetter: true },
  falseFailure: { label: 'false failures', higherIsBetter: false },
  falseSuccess: { label: 'false successes', higherIsBetter: false },
  lostTransaction: { label: 'lost transactions', higherIsBetter: false },
  evasive: { label: 'evasive answers', higherIsBetter: false },
};

/** Whether a rise of the rate is an improvement (PASS) or a worsening (every other compared rate). */
export const higherIsBetter = (rate: ComparedRate): boolean => RATE_WORDS[rate].higherIsBetter;

/** The significance level of the sentence's conclusion. */
export const ALPHA = 0.05;

export interface RateComparison {
  rate: ComparedRate;
  baseline: ArmCount;
  treatment: ArmCount;
  /** treatment − baseline, with its 95 % interval. */
  difference: Difference;
  /** Fisher's exact two-sided p; null when an arm has no runs for this rate. */
  p: number | null;
}

export interface ScenarioComparison {
  scenario: string;
  rates: RateComparison[];
  /** The sentence: the rate with the smallest p, its counts in both arms, p, and what it means. */
  sentence: string;
}

export interface ArmComparison {
  baseline: string;
  treatment: string;
  scenarios: ScenarioComparison[];
}

const counts = (rate: Proportion): ArmCount => ({ count: rate.count, of: rate.of });

/** p as people write it: two significant digits, scientific below 0.001 ("1.1e-5"). */
export function formatP(p: number): string {
  if (p === 0) return '< 1e-300';
  if (p >= 0.001) return String(Number(p.toPrecision(2)));
  return p.toExponential(1);
}

const points = (value: number): string => `${value > 0 ? '+' : value < 0 ? '−' : '±'}${Math.abs(Math.round(value * 100))} pp`;

/** One count of two arms compared: the difference (treatment − baseline) with its 95 % interval and Fisher's p. */
export function compareCounts(a: ArmCount, b: ArmCount): Omit<RateComparison, 'rate'> {
  const p = a.of === 0 || b.of === 0 ? null : fisherExactTwoSided(a, b);
  return { baseline: a, treatment: b, difference: differenceOfProportions(a, b), p };
}

/** Every compared rate (COMPARED_RATES) of two groups: the numbers of the patch A/B and of `compare`. */
export function compareGroups(baseline: GroupSummary, treatment: GroupSummary): RateComparison[] {
  return COMPARED_RATES.map((rate) => ({ rate, ...compareCounts(counts(baseline.rates[rate]), counts(treatment.rates[rate])) }));
}

/** The names of the two arms in a sentence: the baseline's, and the treatment's (also "better with …"). */
export interface ArmNames {
  baseline: string;
  treatment: string;
}

/** What a group's headline says: the treatment is better, worse, or no difference is shown (or nothing could be compared). */
export type Direction = 'better' | 'worse' | 'no difference shown' | 'nothing to compare';

/**
 * The headline of a group's comparison: the rate with the smallest p (ties broken in {@link COMPARED_RATES}
 * order), and whether the treatment is better or worse with it at the 5 % level. The sentence and the
 * HTML page's mark both come from here.
 */
export function headlineOf(rates: readonly RateComparison[]): {
  best: (RateComparison & { p: number }) | null;
  direction: Direction;
} {
  const withP = rates.filter((entry): entry is RateComparison & { p: number } => entry.p !== null);
  if (withP.length === 0) return { best: null, direction: 'nothing to compare' };
  const best = withP.reduce((current, entry) => (entry.p < current.p ? entry : current));
  if (best.p >= ALPHA) return { best, direction: 'no difference shown' };
  const better = best.difference.difference! > 0 === RATE_WORDS[best.rate].higherIsBetter;
  return { best, direction: better ? 'better' : 'worse' };
}

/** The sentence: the rate with the smallest p, its counts in both arms, p, its interval, and what it means. */
export function comparisonSentence(
  names: ArmNames,
  scenario: string,
  rates: readonly RateComparison[],
  judged: [number, number],
): string {
  const label = names.treatment;
  const { best, direction } = headlineOf(rates);
  if (best === null) {
    return `${label} (${scenario}): nothing to compare — judged runs: ${names.baseline} ${judged[0]}, ${label} ${judged[1]}.`;
  }
  const words = RATE_WORDS[best.rate];
  const change = `${words.label} ${best.baseline.count}/${best.baseline.of} → ${best.treatment.count}/${best.treatment.of}`;
  const { difference, low, high } = best.difference;
  const interval = `${points(difference!)}, 95 % CI ${points(low!)} to ${points(high!)}`;
  let meaning: string;
  if (direction === 'no difference shown') meaning = 'no difference shown at this number of runs; run more to tell';
  else if (direction === 'better') meaning = `better with ${label} (significant at the 5 % level)`;
  else meaning = `worse with ${label} (significant at the 5 % level)`;
  return `${label} (${scenario}): ${change}, p = ${formatP(best.p)} (${interval}) — ${meaning}.`;
}

/**
 * Compares the treatment arm with the baseline arm in every scenario both ran. `label` names the
 * treatment in the sentence (e.g. "GHOST_WRITE patch"); the arm's name by default.
 */
export function compareArms(
  summary: TrialSummary,
  baseline: string,
  treatment: string,
  label: string = treatment,
): ArmComparison {
  const scenarios: ScenarioComparison[] = [];
  for (const base of summary.scenarios) {
    if (base.arm !== baseline) continue;
    const other = summary.scenarios.find((entry) => entry.arm === treatment && entry.scenario === base.scenario);
    if (other === undefined) continue;
    const rates = compareGroups(base, other);
    const judged: [number, number] = [base.pass + base.fail, other.pass + other.fail];
    const names = { baseline: 'baseline', treatment: label };
    scenarios.push({ scenario: base.scenario, rates, sentence: comparisonSentence(names, base.scenario, rates, judged) });
  }
  return { baseline, treatment, scenarios };
}
