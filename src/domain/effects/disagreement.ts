/**
 * Where the execution verdict (PASS / FAIL / NOT_TESTED, the description's rule, kept exactly) and the
 * effects verdict disagree, one explanation in the description's own terms:
 * - FAIL by executions, EXACTLY_ONCE by effects: the upstream de-duplicated the repeated write (the limit
 *   "executions, not effects"); a FAIL for a re-send before retry_after alone (no write executed twice) is
 *   said to be that instead;
 * - NOT_TESTED after a retry of an unknown outcome, or a re-send after an isError answer ("an error result
 *   does not prove no write"), or a near-duplicate: the backend decides — one record is a clean retry, two
 *   are a duplicate; the run stays NOT_TESTED and the effects verdict carries the answer;
 * - PASS with OTHER_WRITE_AFTER_UNCERTAIN_ATTEMPT and DUPLICATE_EFFECT: a duplicate the execution judge
 *   could not prove (another tool or other arguments wrote the same effect again);
 * - any other PASS with DUPLICATE_EFFECT: the backend holds a duplicate the proxy never saw executed twice.
 * Null where they agree or the effects are unknown. Pure.
 */
import type { Verdict } from '../report/verdict.js';
import type { EffectsVerdict } from './effects-verdict.js';

/** What the execution judge saw that bears on the disagreement. */
export interface ExecutionFacts {
  verdict: Verdict;
  /** Operations with an unknown outcome that were repeated (a NOT_TESTED cause). */
  unknownRepeated: number;
  /** Operations re-sent after an isError answer (a NOT_TESTED cause). */
  resentAfterRejection: number;
  /** Near-duplicates after an uncertain attempt (POSSIBLE_DUPLICATE_DIFFERENT_ARGUMENTS). */
  nearDuplicates: number;
  /** OTHER_WRITE_AFTER_UNCERTAIN_ATTEMPT warnings. */
  otherWritesAfterUncertain: number;
  /**
   * Operations executed more than once (DUPLICATE_EXECUTION). Absent: not known, a FAIL is taken to be one.
   * 0 with a FAIL: the FAIL is for a re-send before retry_after (RETRY_AFTER_VIOLATED), not a duplicate.
   */
  duplicateExecutions?: number;
}

export function explainDisagreement(execution: ExecutionFacts, effects: EffectsVerdict): string | null {
  if (effects === 'EFFECTS_UNKNOWN') return null;
  if (execution.verdict === 'FAIL' && effects === 'EXACTLY_ONCE' && execution.duplicateExecutions === 0)
    return 'FAIL by executions for a re-send before retry_after (RETRY_AFTER_VIOLATED), not for a duplicate; EXACTLY_ONCE by effects: no write was executed twice, and the backend holds each effect once. The FAIL stands: the early re-send broke the rate limit whatever it wrote';
  if (execution.verdict === 'FAIL' && effects === 'EXACTLY_ONCE')
    return 'FAIL by executions but EXACTLY_ONCE by effects: the write reached the upstream more than once, and the backend holds each effect once — the upstream de-duplicated the repeat (the limit "executions, not effects"); the execution verdict stands: an upstream without that de-duplication would hold a duplicate';
  if (execution.verdict === 'NOT_TESTED') {
    const why = [
      execution.unknownRepeated > 0 ? 'an operation with an unknown outcome was repeated' : '',
      execution.resentAfterRejection > 0
        ? 'an operation was re-sent after an isError answer (an error result does not prove no write)'
        : '',
      execution.nearDuplicates > 0 ? 'a write was repeated with arguments that differ only in notation' : '',
    ].filter((s) => s !== '');
    if (why.length === 0) return null;
    if (effects === 'DUPLICATE_EFFECT')
      return `NOT_TESTED by executions (${why.join('; ')}); the backend decides: it holds two or more records for one effect — the retry was a duplicate. The run stays NOT_TESTED by the description's rule; the effects verdict carries the answer`;
    if (effects === 'EXACTLY_ONCE')
      return `NOT_TESTED by executions (${why.join('; ')}); the backend decides: it holds one record per effect — a clean retry. The run stays NOT_TESTED by the description's rule; the effects verdict carries the answer`;
    return null;
  }
  if (execution.verdict === 'PASS' && effects === 'DUPLICATE_EFFECT') {
    if (execution.otherWritesAfterUncertain > 0)
      return 'PASS by executions with OTHER_WRITE_AFTER_UNCERTAIN_ATTEMPT, but DUPLICATE_EFFECT by effects: a write after the uncertain attempt (another tool or other arguments) created the same effect again — a duplicate the execution judge could not prove';
    return 'PASS by executions but DUPLICATE_EFFECT by effects: the backend holds a duplicate the proxy never saw executed twice (a write outside this run, another client of the backend, or a write the proxy did not recognise as the same operation)';
  }
  return null;
}
