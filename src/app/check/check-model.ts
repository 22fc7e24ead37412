/**
 * What `check` concludes about each session or run it read: the shape every projection (the console
 * lines, JUnit, Markdown, HTML) renders. One suite per path the user named; one case per session or run.
 */
import type { Patch } from '../../domain/report/patches.js';
import type { Finding } from '../../domain/report/findings.js';
import type { Violation } from '../../domain/report/report.js';
import type { HonestyClass, TrialSummary } from '../../domain/trial/index.js';
import type { Verdict } from '../../domain/report/verdict.js';
import type { HonestyClaimDocument, SessionReportDocument } from '../../ports/shapes/report-documents.js';
import type { RepeatAttribution, RepeatSource } from '../../domain/judging/attribution.js';
import type { RateGateOutcome } from './rate-gates.js';
import type { EffectsReport } from '../../domain/effects/effects-report.js';
import type { EffectsVerdict } from '../../domain/effects/effects-verdict.js';

/**
 * An attribution entry as `check` shows it: with, for a `runtime` repeat, the decisive signal a newer
 * harness records in `evidence.signal` (`same-request-id`, `other-session-unanswered`,
 * `same-tool-call-twice`, `unrequested-call`), or null.
 */
export type CheckedAttribution = RepeatAttribution & { runtimeSignal: string | null };

/** A case's result: a verdict, or ERROR when the harness itself failed (the file tells nothing reliable). */
export type CaseStatus = 'PASS' | 'FAIL' | 'NOT_TESTED' | 'ERROR';

/** The effects verdicts `--fail-on` can gate on: what the backend holds says the run went wrong, or cannot say. */
export type GatedEffect = Extract<EffectsVerdict, 'DUPLICATE_EFFECT' | 'LOST_EFFECT' | 'EFFECTS_UNKNOWN'>;

/**
 * What `--fail-on` can gate on: the verdicts, what a trial run measured beyond its verdict — its
 * honesty class (FALSE_SUCCESS, FALSE_FAILURE) and a lost transaction —, and the effects verdict of a
 * session or run with an effects view.
 */
export type GatedVerdict = 'FAIL' | 'NOT_TESTED' | 'FALSE_SUCCESS' | 'FALSE_FAILURE' | 'LOST_TRANSACTION' | GatedEffect;

/** The effects verdicts among the `--fail-on` values. */
export const GATED_EFFECTS: readonly GatedEffect[] = ['DUPLICATE_EFFECT', 'LOST_EFFECT', 'EFFECTS_UNKNOWN'];

/** Every value `--fail-on` takes besides `none`, in the order the help names them. */
export const GATED_VALUES: readonly GatedVerdict[] = [
  'FAIL',
  'NOT_TESTED',
  'FALSE_SUCCESS',
  'FALSE_FAILURE',
  'LOST_TRANSACTION',
  ...GATED_EFFECTS,
];

export interface CheckOptions {
  /** Which results make `check` exit non-zero (default both). */
  failOn: ReadonlySet<GatedVerdict>;
  /** A PASS whose score is below this is a FAIL; null = no minimum. */
  minScore: number | null;
}

export interface CheckedCase {
  /** JUnit `classname`: the harness and what ran (`cuonztech-agent-harness.F1`, `benchmark.naive`). */
  classname: string;
  /** JUnit `name`: the file, or the agent and scenario of a benchmark run. */
  name: string;
  /** The file it came from. */
  path: string;
  /** What the console line names: the file, with the scenario or the benchmark run. */
  title: string;
  status: CaseStatus;
  /** A PASS with no fault injected (no scenario, or F4): never shown as a tested PASS. */
  baseline: boolean;
  /** The verdict written in the file, when it has one. */
  verdict: Verdict | null;
  score: number | null;
  /** One sentence: why this status. */
  reason: string;
  /** The report was still `running`: the proxy was killed, its verdict is incomplete. */
  incomplete: boolean;
  /**
   * The upstream (or the model) was a recording (`replayed: true`, docs/replay.md): the case repeats a
   * recorded sample, it is not a new one. Every projection says so.
   */
  replayed: boolean;
  /** The violations, each with who sent its repeated writes when the file says (see `check-attribution.ts`). */
  violations: CheckedViolation[];
  patches: Patch[];
  /** the findings a prompt cannot fix (runtime re-sends). */
  findings: Finding[];
  /** The whole report, for the projections that show more (HTML); null for benchmark runs and errors. */
  document: SessionReportDocument | null;
  /**
   * Honesty as measured: a trial run's class (or NOT_MEASURED), NOT_MEASURED for a proxy session,
   * null where there is nothing to measure (a benchmark pair, a harness error) or a run file that does not say.
   */
  honesty: HonestyClass | 'NOT_MEASURED' | null;
  /** A trial run's honesty claim and why it is UNPARSED, as its file records them; null for anything else. */
  honestyClaim: HonestyClaimDocument | null;
  /** A trial run that ended with its write never executed and the agent done; null when not recorded. */
  lostTransaction: boolean | null;
  /** How long the run took, when the file says (a trial run); null otherwise. */
  durationMs: number | null;
  /**
   * what the backend held after the session or run, by its effects view (the report's or run file's
   * `effects`); null without a view. It stands beside the verdict and changes `status` only through `--fail-on`.
   */
  effects: EffectsReport | null;
  /** The `--fail-on` values beyond the verdicts that this case hit (FALSE_SUCCESS, DUPLICATE_EFFECT, …); it is then a FAIL. */
  gatedBy: GatedVerdict[];
  /** Who sent each repeated write: the run file's `attribution`, else the report's; empty when neither says. */
  attribution: readonly CheckedAttribution[];
  /** A trial run's `transcript` as written (entries unchecked: untrusted); empty for anything else. */
  transcript: readonly unknown[];
}

/** A violation with the sources of its repeated writes (each once, in the order of the repeats); empty when the file does not say. */
export type CheckedViolation = Violation & { sources: readonly RepeatSource[] };

export interface CheckedSuite {
  /** The path the user named. */
  name: string;
  /** The reader that took it (`file`, `report folder`, …). */
  reader: string;
  cases: CheckedCase[];
}

export interface CheckCounts {
  total: number;
  pass: number;
  /** PASS cases that are only a baseline (included in `pass`). */
  baseline: number;
  fail: number;
  notTested: number;
  error: number;
  /** FAIL cases made so by a `--fail-on` honesty or effects value (FALSE_SUCCESS, LOST_TRANSACTION, DUPLICATE_EFFECT, …); included in `fail`. */
  gated: number;
  /** Cases with an effects view (a report or run file with `effects`). */
  withEffects: number;
}

export interface CheckResult {
  suites: CheckedSuite[];
  counts: CheckCounts;
  /** The rate gates (`--min-pass-rate`, …) and how each group fared; empty without a rate gate. */
  gates: RateGateOutcome[];
  /**
   * The trial folders named, pooled as `stats` pools them, for the HTML page's picture of the rates per
   * scenario; null when no trial folder was named or they cannot be pooled (the gates then say why).
   */
  trial: TrialSummary | null;
  exitCode: number;
}

/**
 * Exit codes of `check` (the table in docs/commands/check.md):
 *  0 every session or run PASSed (or only results `--fail-on` does not name);
 *  1 the harness itself failed for at least one (it wins: the other results are then incomplete);
 *  2 a FAIL (or a trial run hitting a `--fail-on` honesty value, or a rate gate failed); 3 a NOT_TESTED and no FAIL.
 */
export const CHECK_EXIT = { pass: 0, harnessFailed: 1, fail: 2, notTested: 3 } as const;

/**
 * The check's result with the gates: a failed gate makes the exit code 2 (FAIL) unless a harness failure
 * (1) already decided it.
 */
export function withRateGates(result: CheckResult, gates: readonly RateGateOutcome[]): CheckResult {
  const failed = gates.some((gate) => !gate.passed);
  const exitCode = failed && result.exitCode !== CHECK_EXIT.harnessFailed ? CHECK_EXIT.fail : result.exitCode;
  return { ...result, gates: [...gates], exitCode };
}

/** The check's result with the pooled summary of its trial folders (the HTML page draws its rates). */
export function withTrialSummary(result: CheckResult, trial: TrialSummary | null): CheckResult {
  return { ...result, trial };
}
