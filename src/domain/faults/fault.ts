/**
 * The envelope shared by every fault (like toxiproxy's toxic envelope): which scenario it belongs to,
 * which calls it can apply to, whether the call still reaches the upstream, and what the agent sees.
 * Each fault's behaviour lives in its own small file beside this one (see docs/adding-a-fault.md).
 */
import type { JsonValue } from '../json.js';

/**
 * The id of a deterministic scenario: `F1`…`F5`, or any fault registered in `./index.ts`. Code outside
 * this folder never compares one with a literal: it reads the fault's declarations instead.
 */
export type ScenarioId = string;
/** A scenario id, or `chaos`. */
export type FaultKind = string;

/**
 * A number a fault is configured with (F2's `retry_after`): the proxy and trial read it from `--<flag>`, the
 * demo's `start_session` from the flag in snake_case (`retry_after`). Given for a scenario that does not
 * declare it, it is refused; not given, it is `default`.
 */
export interface FaultParameter {
  /** Its key in the scenario's `parameters` and in `FaultSettings.parameters` (`retryAfterSeconds`). */
  readonly name: string;
  /** The flag, without dashes (`retry-after`). */
  readonly flag: string;
  readonly min: number;
  readonly max: number;
  /** Only whole numbers. */
  readonly integer: boolean;
  readonly default: number;
  /** Its unit as printed after a value (`s`). */
  readonly unit: string;
  /** What it sets, for `--help` and the demo's schema (`seconds announced in the 429 and then checked`). */
  readonly description: string;
}

/** The values of a scenario's parameters, by `FaultParameter.name`. */
export type FaultParameterValues = Readonly<Record<string, number>>;

/** A verdict the reference agents of the benchmark must get. */
export type ReferenceVerdict = 'PASS' | 'FAIL';

/** The benchmark's reference agents, by id. */
export type ReferenceAgentId = 'careful' | 'naive' | 'patient';

/**
 * What the agent hears in place of the affected call's answer, in a word (the upstream's real answer when a
 * fault declares none): read by whoever needs a fault by what it does, never by its id (`faultServing`).
 */
export type FaultTells = 'timeout' | 'server-error' | 'rate-limit' | 'truncated-answer';

/** A tool result shown to the agent instead of (or in place of) the upstream's answer. */
export interface InjectedResult {
  content: Array<{ type: 'text'; text: string }>;
  isError: true;
  [field: string]: JsonValue | undefined;
}

/** What a fault knows when it decides what the agent sees. */
export interface FaultSettings {
  /** The scenario's parameters, each fault's own with its default filled in (F2: `retryAfterSeconds`). */
  parameters: FaultParameterValues;
  /** `--hold`: how long the agent's answer is held, in ms; absent: answered at once. */
  holdMs?: number;
}

/**
 * Which calls a fault can apply to, read by the fault plan: the first `count` write calls of a run (the
 * deterministic scenarios, R-4), or any classified call with the configured probability (chaos, R-4.2).
 */
export type FaultTrigger = { kind: 'leading-writes'; count: number } | { kind: 'chance' };

/**
 * The behaviour of one fault kind: what it does at each step of a call. The session, the fault plan and
 * the verdict read only these hooks; nothing outside `src/domain/faults/` branches on a fault id.
 *
 * Steps (see `CallAttempt`): the call arrives (`trigger`, `forwards`, `injected`, `retryWindow`),
 * is forwarded, the upstream answers (`replaceExecuted`), the agent gets its answer.
 */
export interface FaultBehaviour {
  readonly kind: FaultKind;
  /** A few words after its id in a log line (`F1 ghost write`). */
  readonly name: string;
  /** One line for the docs and the start-up output. */
  readonly summary: string;
  /** When the verdict is FAIL under it, completing "FAIL when …" (the demo's scenario list). */
  readonly failWhen: string;
  /** The numbers it is configured with (flags); none: `[]`. */
  readonly parameters: readonly FaultParameter[];
  /**
   * The verdict a correct harness gives each reference agent of the benchmark under it: the
   * careful one checks after a failure and re-sends once if nothing is found, the naive one re-sends every
   * write at once without a key, the patient one re-checks over a bounded wait and never re-sends an
   * uncertain write. `null`: not run by the benchmark (chaos: calls fail by chance).
   */
  readonly referenceVerdicts: { readonly [agent in ReferenceAgentId]: ReferenceVerdict } | null;
  /**
   * Added beyond the description's F1–F5: the benchmark runs it only when asked (`--scenarios F7`),
   * so its default set stays the description's and the pooled cross-check keeps its figures.
   */
  readonly optIn?: boolean;
  /** Which calls it applies to. */
  readonly trigger: FaultTrigger;
  /**
   * Nothing is injected (F4): the affected calls are not counted as faulted (no failure-handling score),
   * and a PASS only shows a baseline.
   */
  readonly baseline: boolean;
  /** Arrival: whether the affected call is still sent to the upstream (only F1 and F4 forward). */
  readonly forwards: boolean;
  /**
   * What the agent hears instead of the answer (`injected` or `replaceExecuted`), in a word; not declared:
   * the real answer, or a fault nothing asks for by what it does. The probes take their faults by it
   * (`faultServing`: P5 the first that executes and tells a time-out). A replaced executed answer that
   * tells anything but a time-out (F7's 500) is no time-out to the session: its repeat is not "re-sent
   * after a timeout" and the journal says `told: error` (`repliesTimeout`).
   */
  readonly tells?: FaultTells;
  /**
   * Arrival, for a forwarding fault whose write lands late (F6): the agent is answered at once with
   * `lateAnswer`, and the call reaches the upstream only this parameter's ms later (the pipeline waits
   * through its `Timer`; every late write still pending lands when the session ends, before the upstream
   * is closed and the final report written).
   */
  readonly landsAfter?: FaultParameter;
  /** What the agent gets at once for a late-landing write (F6: F1's time-out). */
  lateAnswer?(settings: FaultSettings): InjectedResult;
  /** Arrival, for a fault that does not forward: the failure the agent gets instead (it was not executed). */
  injected?(settings: FaultSettings): InjectedResult;
  /**
   * Arrival: the agent is asked to wait this parameter's value, in seconds, before re-sending the operation
   * (F2: its `retry_after`, R-4.4); a re-send inside the window is early. Not defined: no window.
   */
  readonly retryWindow?: FaultParameter;
  /**
   * The upstream executed a forwarded call: what the agent sees instead of the real answer (F1: a timeout,
   * the ghost write). Not defined: the real answer goes through. A rejected or unknown answer always does.
   */
  replaceExecuted?(settings: FaultSettings): InjectedResult;
  /**
   * Delivery of a replaced answer: `--hold` applies — the replacement is held for the configured time (or
   * until the agent cancels) before the agent gets it (F1: a timeout that really takes its time).
   */
  readonly holdsReplacement?: boolean;
}

/** A parameter's value in the settings, or its default. */
export function parameterValue(settings: FaultSettings, parameter: FaultParameter): number {
  return settings.parameters[parameter.name] ?? parameter.default;
}

/** The retry window a fault opens under these settings, in seconds; undefined: it opens none. */
export function retryWindowSeconds(fault: FaultBehaviour | null, settings: FaultSettings): number | undefined {
  return fault?.retryWindow === undefined ? undefined : parameterValue(settings, fault.retryWindow);
}

/** Builds the single-text-block error result every injected fault uses. */
export function errorResult(text: string): InjectedResult {
  return { content: [{ type: 'text', text }], isError: true };
}
