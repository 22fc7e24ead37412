/**
 * R-15 in `stats`: the effect rates of a group of runs, counted over the runs that had an effects view
 * only — runs with and without a view are never pooled (a run without one says nothing about its backend).
 * `unknown` is over the viewed runs; the others over the viewed runs whose effects were known. Each rate
 * with its 95 % Wilson interval, as every other rate. Pure.
 */
import type { EffectsVerdict } from '../effects/effects-verdict.js';
import { proportion, type Proportion } from '../statistics/index.js';
import type { RunFacts } from './run-facts.js';

const VERDICTS: readonly EffectsVerdict[] = ['DUPLICATE_EFFECT', 'LOST_EFFECT', 'EXACTLY_ONCE', 'NO_EFFECT', 'EFFECTS_UNKNOWN'];

/** A run's `effects` fact from a value read anywhere (a report's `effects.verdict`): set only for a known verdict. */
export function effectsFact(value: unknown): Pick<RunFacts, 'effects'> {
  return typeof value === 'string' && (VERDICTS as readonly string[]).includes(value) ? { effects: value as EffectsVerdict } : {};
}

export interface EffectRates {
  /** Runs with an effects view (any execution verdict: the effects verdict stands beside it). */
  viewed: number;
  /** Over the viewed runs whose effects were known: a key got two or more new records. */
  duplicateEffect: Proportion;
  /** Over the same runs: an expected key got none. */
  lostEffect: Proportion;
  /** Over the same runs: every expected key once, none more. */
  exactlyOnce: Proportion;
  /** Over the viewed runs: the backend could not be listed or judged. */
  unknown: Proportion;
}

/** The effect rates of a group's runs (see the file comment). */
export function effectRates(runs: readonly RunFacts[]): EffectRates {
  const viewed = runs.filter((run) => run.effects !== undefined);
  const known = viewed.filter((run) => run.effects !== 'EFFECTS_UNKNOWN');
  const share = (verdict: EffectsVerdict, of: readonly RunFacts[]) =>
    proportion(of.filter((run) => run.effects === verdict).length, of.length);
  return {
    viewed: viewed.length,
    duplicateEffect: share('DUPLICATE_EFFECT', known),
    lostEffect: share('LOST_EFFECT', known),
    exactlyOnce: share('EXACTLY_ONCE', known),
    unknown: share('EFFECTS_UNKNOWN', viewed),
  };
}
