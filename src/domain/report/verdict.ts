/**
 * The verdict: FAIL on a proven violation; NOT_TESTED whenever the run cannot tell (never a silent
 * PASS); PASS otherwise, marked as a mere baseline when no fault was configured or F4 ran.
 * Computed from the session totals in constant time.
 */
import type { ScenarioConfig } from '../faults/fault-plan.js';
import { isBaselineScenario } from '../faults/index.js';
import type { TotalsView } from '../judging/session-totals.js';

export type Verdict = 'PASS' | 'FAIL' | 'NOT_TESTED';

export interface VerdictFacts {
  totals: TotalsView;
  scenario: ScenarioConfig;
  scenarioTriggered: boolean;
  /** Near-duplicates after an uncertain attempt. */
  nearDuplicates: number;
  /**
   * Calls a replayed recording had no answer for (`--upstream-replay`). The run left its recording, so
   * nothing it did after can be judged: NOT_TESTED, before any FAIL or PASS.
   */
  replayMisses?: number;
  /** the first operation re-sent after an isError answer, to name it and the attempt; absent: none. */
  firstResentAfterRejection?: ResentAfterRejection | null;
}

/** The first operation re-sent after the upstream answered it with isError. */
export interface ResentAfterRejection {
  tool: string;
  /** The operation's number (the report's `operations[].id`). */
  operation: number;
  /** The attempt that re-sent it, counted among the operation's attempts from 1. */
  attempt: number;
  /** Its executions the proxy saw (certain). */
  executions: number;
}

export interface VerdictResult {
  verdict: Verdict;
  /** One sentence: the first cause, or all of them joined. */
  reason: string;
  /** Every cause that applies, most important first. */
  causes: string[];
  /** PASS only means "baseline": no fault was injected (no scenario, or F4). */
  baseline: boolean;
}

/** Judges a session from its totals. */
export function judge(facts: VerdictFacts): VerdictResult {
  const { totals, scenario } = facts;
  const sum = totals.sum;
  const baseline = scenario.mode === 'none' || (scenario.mode === 'scenario' && isBaselineScenario(scenario.id));
  if (totals.totalCalls === 0) return notTested(['no calls were made'], baseline);
  const misses = facts.replayMisses ?? 0;
  if (misses > 0) return notTested([`replay miss: ${misses} call(s) had no recorded answer in the replayed recording`], baseline);
  const failures: string[] = [];
  if (sum.duplicate > 0) failures.push(`DUPLICATE_EXECUTION: ${sum.duplicate} operation(s) executed more than once`);
  if (sum.retryAfterViolated > 0) {
    failures.push(`RETRY_AFTER_VIOLATED: ${sum.retryAfterViolated} operation(s) re-sent before retry_after expired`);
  }
  if (failures.length > 0) return { verdict: 'FAIL', reason: failures.join('; '), causes: failures, baseline };
  const causes = notTestedCauses(facts);
  if (causes.length > 0) return notTested(causes, baseline);
  const what = scenarioName(scenario);
  const reason = baseline
    ? `baseline only (${what}): no fault was injected; no write was executed more than once`
    : `${what} triggered; no write was executed more than once and no retry_after was violated`;
  return { verdict: 'PASS', reason, causes: [], baseline };
}

function notTestedCauses(facts: VerdictFacts): string[] {
  const { totals, scenario } = facts;
  const sum = totals.sum;
  const causes: string[] = [];
  if (totals.calls.write === 0) causes.push('no write tool was called');
  if (scenario.mode !== 'none' && !facts.scenarioTriggered) {
    causes.push(scenario.mode === 'chaos' ? 'chaos mode injected no fault' : `scenario ${scenario.id} never triggered`);
  }
  const inFlight = sum.inFlight + totals.readsInFlight;
  if (inFlight > 0) causes.push(`${inFlight} call(s) still in flight when the report was written`);
  if (sum.unknownRepeated > 0) {
    causes.push(`${sum.unknownRepeated} operation(s) with an unknown outcome were repeated (possible duplicate)`);
  }
  if (sum.resentAfterRejection > 0) {
    causes.push(
      `${sum.resentAfterRejection} operation(s) re-sent after the upstream answered them with isError${resentDetail(facts.firstResentAfterRejection, sum.resentAfterRejection)}`,
    );
  }
  if (facts.nearDuplicates > 0) {
    causes.push(
      `${facts.nearDuplicates} call(s) after a timeout or unanswered attempt repeated a write with arguments that differ only in notation (POSSIBLE_DUPLICATE_DIFFERENT_ARGUMENTS)`,
    );
  }
  if (totals.calls.write > 0 && sum.definite === 0) causes.push('the execution of every write is unknown');
  return causes;
}

/** `: move_file (operation 1) as attempt 3, after 1 certain execution; …` — which attempt, and what is known. */
function resentDetail(first: ResentAfterRejection | null | undefined, count: number): string {
  if (first == null) return '';
  const certain = first.executions === 0 ? 'with no certain execution' : `after ${first.executions} certain execution(s)`;
  return (
    `: ${count > 1 ? 'first ' : ''}${first.tool} (operation ${first.operation}) as attempt ${first.attempt}, ${certain}; ` +
    'whether its attempts answered with isError wrote is unknown (isError does not prove no write)'
  );
}

function notTested(causes: string[], baseline: boolean): VerdictResult {
  return { verdict: 'NOT_TESTED', reason: causes.join('; '), causes, baseline };
}

/** How a scenario configuration is named in reasons and reports. */
export function scenarioName(scenario: ScenarioConfig): string {
  if (scenario.mode === 'none') return 'no scenario';
  if (scenario.mode === 'chaos') return `chaos mode (error rate ${scenario.errorRate})`;
  return `scenario ${scenario.id}`;
}
