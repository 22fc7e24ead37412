/**
 * The `effects` object of a report: the view it was read through, the two snapshots in their
 * bounded form, the verdict with its reason, the explanation where it disagrees with the execution
 * verdict, and every key that changed or was expected. Built once, when the run has ended; the execution
 * verdict is read, never changed. Pure.
 */
import type { SessionState } from '../judging/session-state.js';
import type { Verdict } from '../report/verdict.js';
import { explainDisagreement, type ExecutionFacts } from './disagreement.js';
import type { EffectsViewSettings } from './effects-settings.js';
import { judgeEffects, type EffectsVerdict, type KeyDiff } from './effects-verdict.js';
import { boundedSnapshot, type BoundedSnapshot, type SnapshotResult } from './snapshot.js';

export interface EffectsReport {
  verdict: EffectsVerdict;
  reason: string;
  /** Where the execution verdict and the effects verdict disagree, why (the description's terms); else null. */
  explanation: string | null;
  /** The verdict by executions the explanation was made against. */
  executionVerdict: Verdict;
  /** The view: a read tool with its arguments, or a command with its arguments; where the records are, the key. */
  view: {
    tool?: string;
    arguments?: Record<string, unknown>;
    command?: string;
    args?: string[];
    path: string[];
    keyFields: string[];
    expected: string[];
  };
  snapshots: { before: BoundedSnapshot; after: BoundedSnapshot };
  keys: KeyDiff[];
}

/** Why the effects cannot be judged although both snapshots may exist (another session overlapped). */
export interface EffectsOverride {
  reason: string;
}

/** The report's `effects` from the snapshots, the execution facts and, when set, a reason that makes them unknown. */
export function effectsReport(
  view: EffectsViewSettings,
  before: SnapshotResult,
  after: SnapshotResult,
  execution: ExecutionFacts,
  unknown: EffectsOverride | null = null,
): EffectsReport {
  const judged =
    unknown === null
      ? judgeEffects(before, after, view.expectations)
      : { verdict: 'EFFECTS_UNKNOWN' as const, reason: unknown.reason, keys: [] };
  return {
    verdict: judged.verdict,
    reason: judged.reason,
    explanation: explainDisagreement(execution, judged.verdict),
    executionVerdict: execution.verdict,
    view: {
      ...(view.command === undefined
        ? { tool: view.tool, arguments: view.arguments }
        : { command: view.command, args: [...view.args] }),
      path: [...view.path],
      keyFields: [...view.keyFields],
      expected: view.expectations.map((e) => e.text),
    },
    snapshots: { before: boundedSnapshot(before), after: boundedSnapshot(after) },
    keys: judged.keys,
  };
}

/** What the execution judge saw of a session that bears on a disagreement, beside its verdict. */
export function executionFactsOf(session: SessionState, verdict: Verdict): ExecutionFacts {
  const sum = session.totals.sum;
  return {
    verdict,
    unknownRepeated: sum.unknownRepeated,
    resentAfterRejection: sum.resentAfterRejection,
    nearDuplicates: session.toolObservations.count('POSSIBLE_DUPLICATE_DIFFERENT_ARGUMENTS'),
    otherWritesAfterUncertain: session.toolObservations.count('OTHER_WRITE_AFTER_UNCERTAIN_ATTEMPT'),
    duplicateExecutions: sum.duplicate,
  };
}
