/**
 * `check`'s rate gates (`--min-pass-rate`, `--max-duplicate-rate`, `--max-false-success-rate`,
 * `--max-lost-transaction-rate`): each judged on every arm and scenario group of the trial folders named,
 * pooled as `stats` pools them (`mergeFolders`). A gate is judged on the rate's point estimate, or with
 * `--bound lower|upper` on that bound of its 95 % Wilson interval — the same bound for every gate:
 *
 * - `--bound lower` on a min gate, `--bound upper` on a max gate: the gate passes only when the rate meets
 *   the threshold at 95 % confidence (a small trial cannot pass by luck);
 * - the other way round: the gate fails only when the rate misses the threshold at 95 % confidence.
 *
 * A group without a run the rate is measured on (no judged run; for the false-success rate no measured
 * answer) fails its gate: a gate never passes on nothing. A min gate passes at value ≥ threshold, a max gate
 * at value ≤ threshold. docs/statistics.md, "Rate gates".
 */
import type { Proportion } from '../../domain/statistics/index.js';
import type { RateName, TrialSummary } from '../../domain/trial/index.js';
// The label alone, not the trial's domain: these flags load with every command (see group-label.ts).
import { groupLabel } from '../../domain/trial/group-label.js';

export const RATE_GATE_FLAGS = [
  'min-pass-rate',
  'max-duplicate-rate',
  'max-false-success-rate',
  'max-lost-transaction-rate',
] as const;
export type RateGateFlag = (typeof RATE_GATE_FLAGS)[number];

const GATES: Record<RateGateFlag, { rate: RateName; min: boolean; words: string }> = {
  'min-pass-rate': { rate: 'pass', min: true, words: 'PASS rate' },
  'max-duplicate-rate': { rate: 'duplicateExecution', min: false, words: 'duplicate rate' },
  'max-false-success-rate': { rate: 'falseSuccess', min: false, words: 'false-success rate' },
  'max-lost-transaction-rate': { rate: 'lostTransaction', min: false, words: 'lost-transaction rate' },
};

/** What a gate is judged on: the point estimate, or one bound of the 95 % Wilson interval. */
export type GateBound = 'point' | 'lower' | 'upper';

export interface RateGate {
  flag: RateGateFlag;
  /** A rate in [0, 1]. */
  threshold: number;
}

export interface RateGateOutcome {
  flag: RateGateFlag;
  threshold: number;
  bound: GateBound;
  /** The group: `F1`, or `F1 (arm patched)`. */
  group: string;
  rate: Proportion;
  /** The figure judged (the point or the bound); null when nothing was measured. */
  value: number | null;
  passed: boolean;
  /** How far the value is on the wrong side of the threshold (a rate, > 0) when failed; null otherwise. */
  by: number | null;
  /** One line: the gate, the group, the figure and the verdict. */
  message: string;
}

/** A rate in [0, 1] as `12.5 %` (one decimal at most), as the gates' messages write it. */
export const percent = (value: number): string => `${Number((value * 100).toFixed(1))} %`;
const points = (value: number): string => `${Number((value * 100).toFixed(2))} pp`;

/** `--max-duplicate-rate 5 %`, with the bound when one is used. */
export function gateName(gate: { flag: RateGateFlag; threshold: number; bound: GateBound }): string {
  return `--${gate.flag} ${percent(gate.threshold)}${gate.bound === 'point' ? '' : ` (${gate.bound} 95 % bound)`}`;
}

function judge(gate: RateGate, bound: GateBound, group: string, rate: Proportion): RateGateOutcome {
  const { min, words } = GATES[gate.flag];
  const base = { flag: gate.flag, threshold: gate.threshold, bound, group, rate };
  const name = gateName({ ...gate, bound });
  if (rate.rate === null)
    return {
      ...base,
      value: null,
      passed: false,
      by: null,
      message: `${name} on ${group}: FAILED — no run the ${words} is measured on, so it is unknown`,
    };
  const value = bound === 'point' ? rate.rate : bound === 'lower' ? rate.low! : rate.high!;
  const passed = min ? value >= gate.threshold : value <= gate.threshold;
  const figure = `${words} ${rate.count}/${rate.of} = ${percent(rate.rate)}${bound === 'point' ? '' : `, ${bound} 95 % bound ${percent(value)}`}`;
  const by = passed ? null : Math.abs(value - gate.threshold);
  const message = passed
    ? `${name} on ${group}: passed — ${figure}`
    : `${name} on ${group}: FAILED — ${figure}, ${min ? 'below' : 'above'} ${percent(gate.threshold)} by ${points(by!)}`;
  return { ...base, value, passed, by, message };
}

/** Every gate on every arm and scenario group, in the summary's order, gate by gate. */
export function judgeRateGates(summary: TrialSummary, gates: readonly RateGate[], bound: GateBound): RateGateOutcome[] {
  return gates.flatMap((gate) =>
    summary.scenarios.map((s) => judge(gate, bound, groupLabel(s.arm, s.scenario), s.rates[GATES[gate.flag].rate])),
  );
}
