/**
 * What one evaluation session holds, and the read-only views through which readers outside (the
 * report, the proxy, the benchmark) see it. The state changes only through the session's own events
 * (`session.ts`, whose `mutate()` keeps the totals in step); nothing here changes it.
 */
import type { RepeatAttribution, ModelSide } from './attribution.js';
import type { ToolClass } from './classification.js';
import { FaultPlan, type PlanView, type ScenarioConfig } from '../faults/fault-plan.js';
import { KeyFieldMatcher } from './key-fields.js';
import { ObservationCounter, type ObservationsView } from './observations.js';
import type { OperationState, OperationView } from './operation-state.js';
import { RepeatAttributor } from './repeat-attributor.js';
import { SessionTotals, type TotalsView } from './session-totals.js';
import type { Clock, RandomSource } from '../time-and-chance.js';
import { TimingLog } from './timing.js';

/** What the session needs to know about the upstream's tools. */
export interface ToolCatalog {
  /** The class of a listed tool; a name the upstream did not list is 'unclassified'. */
  classOf(name: string): ToolClass;
  /** Whether the tool's input schema declares a key field. */
  acceptsKey(name: string): boolean;
  /**
   * whether the write tool is annotated `idempotentHint: true` and the hint is honoured (an
   * identical re-send is then no duplicate). Absent: no tool is.
   */
  isIdempotent?(name: string): boolean;
}

export interface SessionSettings {
  scenario: ScenarioConfig;
  keyFields: readonly string[];
}

export abstract class SessionState {
  protected readonly counters = new SessionTotals();
  protected readonly observationCounter = new ObservationCounter();
  protected readonly ops = new Map<string, OperationState>();
  /** Operations currently in violation or with an observation, kept so the report never scans all. */
  protected readonly violatingOps = new Set<OperationState>();
  protected readonly observedOps = new Set<OperationState>();
  protected readonly faultPlan: FaultPlan;
  protected readonly keyMatcher: KeyFieldMatcher;
  protected readonly unclassifiedSeen = new Map<string, Set<string>>();
  /** Per-attempt timing (latency, hold, cancellation;); empty unless one of them happened. */
  protected readonly timingLog = new TimingLog();
  /** who sent each repeated write attempt. */
  protected readonly attributor: RepeatAttributor;
  /** Calls a replayed recording had no answer for (`--upstream-replay`): the session then cannot be judged. */
  protected replayMissCount = 0;
  protected firstResend: { op: OperationView; attempt: number } | null = null;
  protected ended = false;
  /**
   * Bookkeeping steps decided but not yet applied, in order (see `EvaluationSession.catchUp`): every view
   * below applies them first, so a reader never sees the state behind the events it was told of.
   */
  protected readonly backlog: Array<() => void> = [];
  private applying = false;
  /**
   * Whether bookkeeping may wait for a catch-up: not when the model's side is attached, whose state
   * (its tool calls, its user turns) may change between a step and a later catch-up.
   */
  protected readonly defersBookkeeping: boolean;

  constructor(
    readonly settings: SessionSettings,
    protected readonly catalog: ToolCatalog,
    protected readonly clock: Clock,
    protected readonly random: RandomSource,
    /** the model's side of the agent (the built-in loop, the model gateway); null: not seen (plain proxy). */
    modelSide: ModelSide | null = null,
  ) {
    this.faultPlan = new FaultPlan(settings.scenario, random);
    this.keyMatcher = new KeyFieldMatcher(settings.keyFields);
    this.attributor = new RepeatAttributor(modelSide);
    this.defersBookkeeping = modelSide === null;
  }

  /**
   * Applies the bookkeeping steps not applied yet, in the order they happened; free when there are none.
   * The state is then exactly what applying every step at once would have made: each step was recorded
   * with its time, and nothing it reads changes before it is applied (every event and view catches up first).
   * A driver may call it when it is idle (the proxy: while the upstream works on a call, and after an answer
   * has gone to the agent), so the next event finds nothing to apply.
   */
  catchUp(): void {
    if (this.applying || this.backlog.length === 0) return;
    this.applying = true;
    let next = 0;
    try {
      while (next < this.backlog.length) this.backlog[next++]!();
    } finally {
      // A step that threw is dropped with those before it; the rest wait for the next catch-up.
      this.backlog.splice(0, next);
      this.applying = false;
    }
  }

  /** Whether steps wait to be booked (a driver then has something for `catchUp()` to do). */
  get behind(): boolean {
    return this.backlog.length > 0;
  }

  /** Running totals of the session (the verdict and the score are computed from these). */
  get totals(): TotalsView {
    this.catchUp();
    return this.counters;
  }

  /** Calls a replayed recording had no answer for; any makes the verdict NOT_TESTED ("replay miss"). */
  get replayMisses(): number {
    this.catchUp();
    return this.replayMissCount;
  }

  /**
   * the first operation re-sent after the upstream answered it with isError, and the attempt that
   * re-sent it (its number among the operation's attempts), so the verdict names them; null: none.
   */
  get firstResentAfterRejection(): { op: OperationView; attempt: number } | null {
    this.catchUp();
    return this.firstResend;
  }

  /** Tool-level observations counted so far. */
  get toolObservations(): ObservationsView {
    this.catchUp();
    return this.observationCounter;
  }

  /** Every operation, by identity, in order of first arrival. */
  get operations(): ReadonlyMap<string, OperationView> {
    this.catchUp();
    return this.ops;
  }

  /** Operations currently in violation (FAIL causes). */
  get violating(): ReadonlySet<OperationView> {
    this.catchUp();
    return this.violatingOps;
  }

  /** Operations that currently earn an operation-level observation. */
  get observed(): ReadonlySet<OperationView> {
    this.catchUp();
    return this.observedOps;
  }

  /** The fault plan: the configuration, whether it triggered and how often it was applied. */
  get plan(): PlanView {
    this.catchUp();
    return this.faultPlan;
  }

  /** The attempts that had a latency, a held answer or a cancellation, in order of delivery. */
  get timing(): TimingLog {
    this.catchUp();
    return this.timingLog;
  }

  /** whether the model's side of the agent is seen (then every repeat's source is decided). */
  get modelSeen(): boolean {
    this.catchUp();
    return this.attributor.modelSeen;
  }

  /** the `attribution[]` entries so far, as comma-separated JSON (the report document's bytes). */
  get attributionJson(): string {
    this.catchUp();
    return this.attributor.json;
  }

  /** every repeated write attempt so far and who sent it, in order of arrival. */
  attribution(): RepeatAttribution[] {
    this.catchUp();
    return this.attributor.entries();
  }

  /** True once `finish()` ran: calls still open then have an unknown outcome. */
  get finished(): boolean {
    return this.ended;
  }

  /** Names of tools called while unclassified (listed as such, or not listed by the upstream). */
  unclassifiedCalled(): IterableIterator<string> {
    this.catchUp();
    return this.unclassifiedSeen.keys();
  }
}
