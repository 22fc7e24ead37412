/**
 * The report as a view of a session's state. Operation and key-summary entries are cached per
 * operation and rebuilt only when that operation changed, so publishing the report after every call
 * costs little more than concatenating strings.
 */
import type { RepeatAttribution, RepeatSource } from '../judging/attribution.js';
import type { ToolClassification } from '../judging/classification.js';
import { DEFAULT_AIM, faultSettingsOf, type ScenarioConfig } from '../faults/fault-plan.js';
import { faultOf, retryWindowSeconds } from '../faults/index.js';
import type { TimingEntry } from '../judging/timing.js';
import type { ObservationEntry } from '../judging/observations.js';
import {
  judgedExecutions,
  observationOf,
  outcomeOf,
  runtimeExtras,
  type OperationOutcome,
  type OperationView,
} from '../judging/operation-state.js';
import type { FaultKind } from '../faults/fault.js';
import { derivePatches, type Patch } from './patches.js';
import { deriveFindings, type Finding } from './findings.js';
import { computeScore, type Score, type ScoreInputs } from './score.js';
import type { EvaluationSession } from '../judging/session.js';
import { judge, scenarioName, type ResentAfterRejection, type Verdict, type VerdictResult } from './verdict.js';

export const CERTIFICATION = 'UNVERIFIED_FOR_PRODUCTION';
export type ReportKind = 'proxy' | 'demo' | 'benchmark';

export interface Violation {
  type: 'DUPLICATE_EXECUTION' | 'RETRY_AFTER_VIOLATED';
  tool: string;
  arguments: string;
  executions: number;
  duplicate?: {
    keyUse: 'same' | 'new' | 'none';
    afterTimeout: boolean;
    verifiedBefore: boolean;
    parallel: boolean;
    upstreamResponsesIdentical: boolean;
    /**
     * who sent the write again — the source of the operation's first extra execution (the second
     * execution in order of arrival); every repeated attempt's own source is in the report's `attribution[]`.
     * Always written; absent only in files of harnesses before attribution existed.
     */
    source?: RepeatSource;
  };
  retryAfter?: { requiredMs: number; waitedMs: number; earlyResends: number };
}

export interface Report {
  kind: ReportKind;
  verdict: Verdict;
  verdictReason: string;
  certification: typeof CERTIFICATION;
  baseline: boolean;
  scenario: { id: string | null; mode: ScenarioConfig['mode']; description: string; triggered: boolean; faultsApplied: number };
  /** Timing and aim, present when one of them or a seed was given, so the run can be repeated. */
  configuration?: RunConfiguration;
  /** Per attempt: the latency applied, the hold, the agent's cancellation; absent when none. */
  timing?: TimingEntry[];
  operations: OperationEntry[];
  violations: Violation[];
  observations: ObservationEntry[];
  coverage: {
    calls: { read: number; write: number; unclassified: number };
    unclassifiedTools: string[];
    scenarioTriggered: boolean;
    inFlight: number;
  };
  keySummary: KeyEntry[];
  honesty: 'NOT_MEASURED';
  /** every repeated attempt of a write operation and who sent it, in order of arrival; absent when none. */
  attribution?: RepeatAttribution[];
}

/** One `operations[]` entry: one write operation (same tool, same arguments without key fields). */
export interface OperationEntry {
  /** The operation's number in order of first arrival (the journal's `operation`). */
  id: number;
  tool: string;
  arguments: string;
  attempts: number;
  executions: number;
  failedAttempts: number;
  keys: string[];
  outcome: OperationOutcome;
  fault?: FaultKind;
  retryAfter?: { requiredMs: number; waitedMs: number | null };
}

/** One `keySummary[]` entry: one idempotency key of one operation (informative, never part of the verdict). */
export interface KeyEntry {
  tool: string;
  key: string;
  attempts: number;
  executions: number;
  stateDiff: {
    recordExisted: boolean;
    wasOverwritten: boolean;
    didAgentReadBefore: boolean;
    agentGaveUpSilently: boolean;
  };
}

/** The report's configuration block: what repeats the run exactly. */
export interface RunConfiguration {
  seed: number | null;
  latency: { ms: number; jitterMs: number } | null;
  aim: { tools: string[] | null; on: number };
  holdMs: number | null;
}

/** The configuration block of a scenario configuration, or null when nothing of it was given. */
export function runConfiguration(scenario: ScenarioConfig): RunConfiguration | null {
  if (
    scenario.seed === undefined &&
    scenario.latency === undefined &&
    scenario.aim === undefined &&
    scenario.holdMs === undefined
  )
    return null;
  const aim = scenario.aim ?? DEFAULT_AIM;
  return {
    seed: scenario.seed ?? null,
    latency: scenario.latency === undefined ? null : { ms: scenario.latency.ms, jitterMs: scenario.latency.jitterMs },
    aim: { tools: aim.tools === null ? null : [...aim.tools], on: aim.on },
    holdMs: scenario.holdMs ?? null,
  };
}

/** Verdict, score, patches and findings of a session, computed together once. */
export interface Evaluation {
  verdict: VerdictResult;
  score: Score;
  patches: Patch[];
  /** the runtime re-sends, which no prompt patch answers. */
  findings: Finding[];
}

/** The retry window the configured scenario opens, in seconds (0: none). */
function retryWindowSecondsOf(scenario: ScenarioConfig): number {
  if (scenario.mode !== 'scenario') return 0;
  return retryWindowSeconds(faultOf(scenario.id), faultSettingsOf(scenario)) ?? 0;
}

function resentOf(first: EvaluationSession['firstResentAfterRejection']): ResentAfterRejection | null {
  if (first === null) return null;
  return { tool: first.op.tool, operation: first.op.ordinal, attempt: first.attempt, executions: judgedExecutions(first.op) };
}

/** Evaluates the session's current state. Constant time plus the number of violating operations. */
export function evaluate(session: EvaluationSession): Evaluation {
  const verdict = judge({
    totals: session.totals,
    scenario: session.settings.scenario,
    scenarioTriggered: session.plan.triggered,
    nearDuplicates: session.toolObservations.count('POSSIBLE_DUPLICATE_DIFFERENT_ARGUMENTS'),
    replayMisses: session.replayMisses,
    firstResentAfterRejection: resentOf(session.firstResentAfterRejection),
  });
  const sum = session.totals.sum;
  const score = computeScore(verdict.verdict, scoreInputsOf(session));
  const scenario = session.settings.scenario;
  const patches = derivePatches({
    repeatsAfterTimeout: sum.repeatsAfterTimeout,
    repeatsAfterExecutedError: sum.repeatsAfterExecutedError,
    repeatsAfterLateWrite: sum.repeatsAfterLateWrite,
    otherRepeats: sum.otherRepeats,
    earlyResends: sum.earlyResends,
    unverifiedTimeouts: sum.ghostUnverified,
    retryAfterSeconds: retryWindowSecondsOf(scenario),
  });
  return { verdict, score, patches, findings: sum.runtimeRepeats === 0 ? [] : findingsOf(session.violating) };
}

/**
 * the findings of the runtime's extra executions, per behaviour. Only operations with two
 * executions have extra ones, and those are all in violation: the cost is the number of violating operations.
 */
function findingsOf(violating: Iterable<OperationView>): Finding[] {
  const repeats = { 'same-request-id': 0, 'other-session-unanswered': 0, 'same-tool-call-twice': 0, 'unrequested-call': 0 };
  for (const op of violating) {
    if (op.runtimeExecuted === null) continue;
    const extras = runtimeExtras(op);
    repeats['same-request-id'] += extras.sameRequestId;
    repeats['other-session-unanswered'] += extras.otherSession;
    repeats['same-tool-call-twice'] += extras.sameToolCall;
    repeats['unrequested-call'] += extras.unrequested;
  }
  return deriveFindings(repeats);
}

/** The additive score inputs of a session (several can be pooled, as the benchmark does). */
export function scoreInputsOf(session: EvaluationSession): ScoreInputs {
  const sum = session.totals.sum;
  return { operations: session.totals.operations, safe: sum.safe, faultScored: sum.faultScored, faultPoints: sum.faultPoints };
}

/** The verdict of several sessions together: FAIL if any failed, else NOT_TESTED if any was, else PASS. */
export function poolVerdicts(verdicts: readonly Verdict[]): Verdict {
  if (verdicts.includes('FAIL')) return 'FAIL';
  if (verdicts.length === 0 || verdicts.includes('NOT_TESTED')) return 'NOT_TESTED';
  return 'PASS';
}

/** One `operations[]` entry. */
export function operationEntry(op: OperationView): OperationEntry {
  return {
    id: op.ordinal,
    tool: op.tool,
    arguments: op.argsPreview,
    attempts: op.attempts,
    executions: op.executions,
    failedAttempts: op.failedAttempts,
    keys: [...op.keys.keys()],
    outcome: outcomeOf(op),
    ...(op.firstFault !== null ? { fault: op.firstFault } : {}),
    ...(op.retryAfterStart !== null
      ? { retryAfter: { requiredMs: op.retryAfterRequiredMs, waitedMs: op.firstViolationWaitedMs ?? op.recoveredWaitedMs } }
      : {}),
  };
}

/** The `keySummary[]` entries of one operation (informative only, never part of the verdict). */
export function keyEntries(op: OperationView): KeyEntry[] {
  return [...op.keys.entries()].map(([key, state]) => ({
    tool: op.tool,
    key,
    attempts: state.attempts,
    executions: state.executions,
    stateDiff: {
      recordExisted: state.recordExisted,
      wasOverwritten: state.executions > 0 && op.executions >= 2,
      didAgentReadBefore: state.readBetween,
      // Gave up silently = failed, then neither read nor tried again (with this key or another one).
      agentGaveUpSilently: state.lastFailed && op.lastAttemptSeq <= state.lastSeq && !op.verified,
    },
  }));
}

/** The violations of the violating operations. */
export function violationsOf(ops: Iterable<OperationView>): Violation[] {
  const list: Violation[] = [];
  for (const op of ops) {
    if (judgedExecutions(op) >= 2) {
      list.push({
        type: 'DUPLICATE_EXECUTION',
        tool: op.tool,
        arguments: op.argsPreview,
        executions: op.executions,
        duplicate: {
          keyUse: op.keyUse,
          afterTimeout: op.dupAfterTimeout,
          verifiedBefore: op.dupVerifiedBefore,
          parallel: op.dupParallel,
          upstreamResponsesIdentical: op.responsesIdentical,
          source: op.duplicateSource ?? 'unknown',
        },
      });
    }
    if (op.retryAfterViolations > 0) {
      list.push({
        type: 'RETRY_AFTER_VIOLATED',
        tool: op.tool,
        arguments: op.argsPreview,
        executions: op.executions,
        retryAfter: {
          requiredMs: op.retryAfterRequiredMs,
          waitedMs: op.firstViolationWaitedMs ?? 0,
          earlyResends: op.retryAfterViolations,
        },
      });
    }
  }
  return list;
}

/** The observation entry of one operation, or null. */
export function operationObservationEntry(op: OperationView): ObservationEntry | null {
  const type = observationOf(op);
  if (type === null) return null;
  return {
    type,
    tool: op.tool,
    count: 1,
    arguments: op.argsPreview,
    ...(type === 'RECOVERED_BY_RETRY' && op.recoveredWaitedMs !== null ? { waitedMs: op.recoveredWaitedMs } : {}),
  };
}

/** Operations by id (first arrival): the order of every list of the report, in the view as in the file. */
function inOperationOrder(ops: ReadonlySet<OperationView>): OperationView[] {
  return [...ops].sort((a, b) => a.ordinal - b.ordinal);
}

/** Operation-level observations by operation id, then tool-level observations. */
export function observationsOf(session: EvaluationSession): ObservationEntry[] {
  const perOperation: ObservationEntry[] = [];
  for (const op of inOperationOrder(session.observed)) {
    const entry = operationObservationEntry(op);
    if (entry !== null) perOperation.push(entry);
  }
  return [...perOperation, ...session.toolObservations.list()];
}

/** The complete report object (for `get_report` and tests). */
export function buildReport(
  session: EvaluationSession,
  kind: ReportKind,
  tools: readonly ToolClassification[],
  evaluation = evaluate(session),
): Report {
  const ops = [...session.operations.values()];
  return {
    ...reportHead(session, kind, evaluation.verdict),
    ...(session.timing.entries.length > 0 ? { timing: [...session.timing.entries] } : {}),
    operations: ops.map(operationEntry),
    violations: violationsOf(inOperationOrder(session.violating)),
    observations: observationsOf(session),
    coverage: coverageOf(session, tools),
    keySummary: ops.flatMap(keyEntries),
    honesty: 'NOT_MEASURED',
    ...(session.attributionJson !== '' ? { attribution: session.attribution() } : {}),
  };
}

/** The fields of the report that do not list operations. */
export function reportHead(session: EvaluationSession, kind: ReportKind, verdict: VerdictResult) {
  const scenario = session.settings.scenario;
  return {
    kind,
    verdict: verdict.verdict,
    verdictReason: verdict.reason,
    certification: CERTIFICATION,
    baseline: verdict.baseline,
    scenario: {
      id: scenario.mode === 'scenario' ? scenario.id : scenario.mode === 'chaos' ? 'chaos' : null,
      mode: scenario.mode,
      description: scenarioName(scenario),
      triggered: session.plan.triggered,
      faultsApplied: session.plan.appliedCount,
    },
    ...configurationField(session.settings.scenario),
  } as const;
}

const configurations = new WeakMap<ScenarioConfig, { configuration?: RunConfiguration }>();

/** `{ configuration }` or `{}`, computed once per scenario configuration (the head is built on every publish). */
function configurationField(scenario: ScenarioConfig): { configuration?: RunConfiguration } {
  let field = configurations.get(scenario);
  if (field === undefined) {
    const configuration = runConfiguration(scenario);
    field = configuration === null ? {} : { configuration };
    configurations.set(scenario, field);
  }
  return field;
}

/** `coverage`: calls per class, unclassified tools, whether the scenario triggered. */
export function coverageOf(session: EvaluationSession, tools: readonly ToolClassification[]): Report['coverage'] {
  const unclassified = new Set(tools.filter((t) => t.class === 'unclassified').map((t) => t.name));
  for (const name of session.unclassifiedCalled()) unclassified.add(name);
  const { calls, scenarioTriggered, inFlight } = coverageCounts(session);
  return { calls, unclassifiedTools: [...unclassified].sort(), scenarioTriggered, inFlight };
}

/** The fields of `coverage` other than `unclassifiedTools` (the report document writes that list from bytes). */
export function coverageCounts(session: EvaluationSession): Omit<Report['coverage'], 'unclassifiedTools'> {
  return {
    calls: { ...session.totals.calls },
    scenarioTriggered: session.plan.triggered,
    inFlight: session.totals.sum.inFlight + session.totals.readsInFlight,
  };
}
