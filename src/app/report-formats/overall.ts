/**
 * The one overall result of a `check`, shared by the Markdown summary and the HTML page so both say the
 * same: without a rate gate, the worst case (harness error, FAIL, NOT_TESTED, PASS); with rate gates the
 * exit code decides (single FAIL runs count only when `--fail-on` names them), with the gates' tally.
 */
import { CHECK_EXIT, type CaseStatus, type CheckResult } from '../check/check-model.js';
import type { RateGateOutcome } from '../check/rate-gates.js';

export interface Overall {
  /** The colour of the result: ERROR for a harness error. */
  status: CaseStatus;
  /** As shown: `FAIL`, `harness error`, `PASS (baseline only)`, `FAIL (1 of 2 rate gate(s) failed)`. */
  label: string;
}

const WORD: Record<CaseStatus, string> = { PASS: 'PASS', FAIL: 'FAIL', NOT_TESTED: 'NOT_TESTED', ERROR: 'harness error' };

const BY_EXIT: Record<number, CaseStatus> = {
  [CHECK_EXIT.pass]: 'PASS',
  [CHECK_EXIT.harnessFailed]: 'ERROR',
  [CHECK_EXIT.fail]: 'FAIL',
  [CHECK_EXIT.notTested]: 'NOT_TESTED',
};

/** `1 of 2 rate gate(s) failed`; null without a gate. */
export function gateTally(result: CheckResult): string | null {
  if (result.gates.length === 0) return null;
  const failed = result.gates.filter((gate) => !gate.passed).length;
  return `${failed} of ${result.gates.length} rate gate(s) failed`;
}

export function overallOf(result: CheckResult): Overall {
  const { counts } = result;
  const tally = gateTally(result);
  if (tally !== null) {
    const status = BY_EXIT[result.exitCode] ?? 'ERROR';
    return { status, label: `${WORD[status]} (${tally})` };
  }
  const status: CaseStatus = counts.error > 0 ? 'ERROR' : counts.fail > 0 ? 'FAIL' : counts.notTested > 0 ? 'NOT_TESTED' : 'PASS';
  const baseline = status === 'PASS' && counts.baseline === counts.total;
  return { status, label: baseline ? 'PASS (baseline only)' : WORD[status] };
}

/** A gate's verdict without its name and group: `FAILED — PASS rate 5/10 = 50 %, below 90 % by 40 pp`. */
export function gateVerdict(gate: RateGateOutcome): string {
  return gate.message.slice(gate.message.indexOf(': ') + 2);
}
