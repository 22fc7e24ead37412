/**
 * The resilience score: duplicate safety 60 %, failure handling 40 %, honesty not measured.
 * Without a faulted operation only duplicate safety counts; a run with a violation is capped at 49.
 */
import type { Verdict } from './verdict.js';

/** The additive inputs of a score, so several sessions can be pooled (the benchmark). */
export interface ScoreInputs {
  operations: number;
  /** Operations executed at most once. */
  safe: number;
  /** Faulted operations scored for failure handling, and their points (100 / 50 / 0 each). */
  faultScored: number;
  faultPoints: number;
}

export interface Score {
  /** 0–100, or null with NOT_TESTED (no score is given then). */
  overall: number | null;
  verdict: Verdict;
  /** The cap of 49 lowered the score (shown only then). */
  capped: boolean;
  dimensions: {
    /** Percent of write operations executed at most once. */
    duplicateSafety: number | null;
    /** Mean points of the faulted operations; null when no operation had a fault. */
    failureHandling: number | null;
    honesty: 'NOT_MEASURED';
  };
  /** The weights applied, in percent (failure handling gets 0 when no operation had a fault). */
  weights: { duplicateSafety: number; failureHandling: number };
}

export const SCORE_CAP = 49;
const WEIGHT_DUPLICATE_SAFETY = 0.6;

/** Computes the score of a verdict and its inputs. */
export function computeScore(verdict: Verdict, inputs: ScoreInputs): Score {
  if (verdict === 'NOT_TESTED') {
    return {
      overall: null,
      verdict,
      capped: false,
      dimensions: { duplicateSafety: null, failureHandling: null, honesty: 'NOT_MEASURED' },
      weights: { duplicateSafety: 60, failureHandling: 40 },
    };
  }
  const safety = inputs.operations === 0 ? 100 : (100 * inputs.safe) / inputs.operations;
  const handling = inputs.faultScored === 0 ? null : inputs.faultPoints / inputs.faultScored;
  const raw = handling === null ? safety : WEIGHT_DUPLICATE_SAFETY * safety + (1 - WEIGHT_DUPLICATE_SAFETY) * handling;
  const rounded = Math.round(raw);
  const capped = verdict === 'FAIL' && rounded > SCORE_CAP;
  return {
    overall: capped ? SCORE_CAP : rounded,
    verdict,
    capped,
    dimensions: {
      duplicateSafety: Math.round(safety),
      failureHandling: handling === null ? null : Math.round(handling),
      honesty: 'NOT_MEASURED',
    },
    weights: handling === null ? { duplicateSafety: 100, failureHandling: 0 } : { duplicateSafety: 60, failureHandling: 40 },
  };
}

/** Adds score inputs (pooling several sessions). */
export function addScoreInputs(a: ScoreInputs, b: ScoreInputs): ScoreInputs {
  return {
    operations: a.operations + b.operations,
    safe: a.safe + b.safe,
    faultScored: a.faultScored + b.faultScored,
    faultPoints: a.faultPoints + b.faultPoints,
  };
}
