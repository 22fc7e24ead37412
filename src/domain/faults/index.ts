/**
 * The fault registry (like toxiproxy's `toxics.Register`): every fault the harness knows, in order. The
 * built-in ones are registered here; everything else — the flag parsers, the demo, the report's schema, the
 * HTML timeline, the benchmark — reads the registry, so a fault is one file plus its line below.
 */
import { chaosError } from './chaos.js';
import { executedThenError } from './executed-then-error.js';
import type {
  FaultBehaviour,
  FaultKind,
  FaultParameter,
  FaultSettings,
  FaultTells,
  ReferenceAgentId,
  ReferenceVerdict,
  ScenarioId,
} from './fault.js';
import { ghostWrite } from './ghost-write.js';
import { lateGhostWrite } from './late-ghost-write.js';
import { passThrough } from './pass-through.js';
import { rateLimit } from './rate-limit.js';
import { serverError } from './server-error.js';
import { truncatedJson } from './truncated-json.js';

export { parameterValue, retryWindowSeconds } from './fault.js';
export type {
  FaultBehaviour,
  FaultKind,
  FaultParameter,
  FaultParameterValues,
  FaultSettings,
  FaultTells,
  FaultTrigger,
  InjectedResult,
  ReferenceAgentId,
  ReferenceVerdict,
  ScenarioId,
} from './fault.js';

const registry = new Map<FaultKind, FaultBehaviour>();

/**
 * Adds a fault to the registry, after the ones already there. Its id must be new and in capitals (the flags
 * read `--scenario f2` as `F2`); a fault that triggers by chance is chaos mode, of which there is one.
 * Register before the command line is built: the flags, their help and the report's schema are read from the
 * registry when their modules load.
 */
export function registerFault(fault: FaultBehaviour): void {
  if (registry.has(fault.kind)) throw new Error(`fault ${fault.kind} is registered twice`);
  if (fault.trigger.kind === 'leading-writes' && fault.kind !== fault.kind.toUpperCase())
    throw new Error(`fault ${fault.kind}: a scenario id is written in capitals`);
  // What the benchmark's reference agents must get is part of adding a scenario, not a list elsewhere.
  if (fault.trigger.kind === 'leading-writes' && fault.referenceVerdicts === null)
    throw new Error(`fault ${fault.kind}: a scenario declares its referenceVerdicts (the benchmark runs every scenario)`);
  registry.set(fault.kind, fault);
}

for (const fault of [
  ghostWrite,
  rateLimit,
  truncatedJson,
  passThrough,
  serverError,
  lateGhostWrite,
  executedThenError,
  chaosError,
])
  registerFault(fault);

/** Chaos mode's behaviour (R-4.2). */
export const CHAOS: FaultBehaviour = chaosError;

/** The behaviour of a registered fault; throws for an id nothing registered (a programming error). */
export function faultOf(kind: FaultKind): FaultBehaviour {
  const fault = registry.get(kind);
  if (fault === undefined) throw new Error(`no fault ${kind} is registered`);
  return fault;
}

/** Whether a text (from a report file, say) names a registered fault. */
export function isFaultKind(value: string): value is FaultKind {
  return registry.has(value);
}

/** Every registered fault kind, chaos included, in order (the report's schema). */
export function faultKinds(): FaultKind[] {
  return [...registry.keys()];
}

/** The deterministic scenario ids in order, for flag validation and the benchmark's default. */
export function scenarioIds(): ScenarioId[] {
  return [...registry.values()].filter((f) => f.trigger.kind === 'leading-writes').map((f) => f.kind);
}

/** What a caller needs a scenario to do to the call it applies to (a probe's faulted call), by declarations. */
export interface FaultNeed {
  /** The upstream executes the call (`forwards`), or never sees it. */
  executes: boolean;
  /** What the agent hears instead of the answer (`tells`). */
  tells: FaultTells;
  /**
   * The call reaches the upstream only later, after the agent was answered (`landsAfter`, F6); absent or
   * false: a fault whose call (if forwarded) goes on at once.
   */
  late?: boolean;
}

/**
 * The first registered deterministic scenario that does what is needed (registry order: the description's
 * F1–F5 before any added later), so a fault added in its own file can serve a probe with no line changed
 * there. Throws when none does (a programming error: the registry lost a fault the harness relies on).
 */
export function faultServing(need: FaultNeed): ScenarioId {
  for (const fault of registry.values()) {
    if (
      fault.trigger.kind === 'leading-writes' &&
      fault.forwards === need.executes &&
      fault.tells === need.tells &&
      (fault.landsAfter !== undefined) === (need.late === true)
    )
      return fault.kind;
  }
  throw new Error(
    `no registered scenario ${need.executes ? `executes the call${need.late === true ? ' late' : ''}` : 'leaves the call unexecuted'} and tells ${need.tells}`,
  );
}

/** The scenarios the benchmark runs without `--scenarios`: every one but those added as `optIn` (R-11: F1–F5). */
export function defaultBenchmarkScenarios(): ScenarioId[] {
  return scenarioIds().filter((id) => faultOf(id).optIn !== true);
}

/**
 * Whether a fault's replacement of an executed answer tells the agent a time-out (F1's ghost write; also a
 * replacing fault that declares no `tells`), not an error (F7's 500 after the write).
 */
export function repliesTimeout(kind: FaultKind | null): boolean {
  return (behaviourOf(kind)?.tells ?? 'timeout') === 'timeout';
}

/** The behaviour of a fault applied to a call, or null when none was. */
export function behaviourOf(kind: FaultKind | null): FaultBehaviour | null {
  return kind === null ? null : faultOf(kind);
}

/** Whether a configured scenario only shows a baseline (nothing injected, F4). */
export function isBaselineScenario(id: ScenarioId): boolean {
  return faultOf(id).baseline;
}

/** The verdict a correct harness gives a reference agent of the benchmark under a scenario (R-11). */
export function referenceVerdict(id: ScenarioId, agent: ReferenceAgentId): ReferenceVerdict {
  const verdicts = faultOf(id).referenceVerdicts;
  if (verdicts === null) throw new Error(`fault ${id} declares no reference verdicts`);
  return verdicts[agent];
}

/** Type guard for user input such as `--scenario F1` (already in capitals). */
export function isScenarioId(value: string): value is ScenarioId {
  return scenarioIds().includes(value);
}

/** A parameter flag and the scenarios that declare it, for the flag parsers (`--retry-after`: F2). */
export interface ParameterFlag {
  parameter: FaultParameter;
  scenarios: ScenarioId[];
}

/** Every scenario parameter by flag, in registry order; scenarios sharing a flag share its declaration. */
export function parameterFlags(): ParameterFlag[] {
  const byFlag = new Map<string, ParameterFlag>();
  for (const id of scenarioIds()) {
    for (const parameter of faultOf(id).parameters) {
      const entry = byFlag.get(parameter.flag);
      if (entry === undefined) byFlag.set(parameter.flag, { parameter, scenarios: [id] });
      else entry.scenarios.push(id);
    }
  }
  return [...byFlag.values()];
}

/**
 * The settings a fault decided with, as far as a report tells them: each parameter's default, the retry
 * window as the report recorded it (`requiredMs`), and `--hold`. For the HTML timeline's words.
 */
export function recordedSettings(
  fault: FaultBehaviour,
  retryWindowMs: number | undefined,
  holdMs: number | undefined,
): FaultSettings {
  const parameters: Record<string, number> = {};
  for (const parameter of fault.parameters) parameters[parameter.name] = parameter.default;
  if (fault.retryWindow !== undefined && retryWindowMs !== undefined)
    parameters[fault.retryWindow.name] = Math.round(retryWindowMs / 1000);
  return { parameters, ...(holdMs === undefined ? {} : { holdMs }) };
}
