import { describe, expect, it } from 'vitest';
import { evaluate, poolVerdicts, scoreInputsOf } from '../../../src/domain/report/report.js';
import { addScoreInputs, computeScore, type ScoreInputs } from '../../../src/domain/report/score.js';
import { Driver } from '../../support/session-driver.js';

const booking = { guest: 'Ada', date: '2026-11-03' };

/** The product's five scenarios, which the cross-check's figures are for. */
const SCENARIO_IDS = ['F1', 'F2', 'F3', 'F4', 'F5'] as const;

/** The naive reference behaviour: every write is sent, then re-sent at once, without a key. */
function naiveRun(id: (typeof SCENARIO_IDS)[number]): Driver {
  const d = new Driver({ mode: 'scenario', id });
  d.call('create_booking', booking);
  d.call('create_booking', booking);
  return d;
}

describe('R-3.7 pooled cross-check', () => {
  it('R-3.7: a naive agent over F1–F5 pooled gets duplicate safety 60 %, failure handling 50 %, overall 49 (capped), FAIL', () => {
    const runs = SCENARIO_IDS.map(naiveRun);
    const inputs = runs
      .map((d) => scoreInputsOf(d.session))
      .reduce<ScoreInputs>(addScoreInputs, { operations: 0, safe: 0, faultScored: 0, faultPoints: 0 });
    const verdict = poolVerdicts(runs.map((d) => evaluate(d.session).verdict.verdict));
    const score = computeScore(verdict, inputs);
    expect(score).toMatchObject({
      overall: 49,
      verdict: 'FAIL',
      capped: true,
      dimensions: { duplicateSafety: 60, failureHandling: 50, honesty: 'NOT_MEASURED' },
    });
  });

  it('R-3.7: the naive agent fails exactly in F1, F2 and F4', () => {
    const failed = SCENARIO_IDS.filter((id) => evaluate(naiveRun(id).session).verdict.verdict === 'FAIL');
    expect(failed).toEqual(['F1', 'F2', 'F4']);
  });
});
