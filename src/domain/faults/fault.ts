/**
 * The envelope shared by every fault (like toxiproxy's toxic envelope): which scenario it belongs to,
 * which calls it can apply to, whether the call still reaches the upstream, and what the agent sees.
 * Each fault's behaviour lives in its own small file beside this one (see docs/adding-a-fault.md).
 */
import type { JsonValue } from '../json.js';

/** The deterministic scenarios of the product plus chaos mode. */
export type ScenarioId = 'F1' | 'F2' | 'F3' | 'F4' | 'F5';
export type FaultKind = ScenarioId | 'chaos';

/** A tool result shown to the agent instead of (or in place of) the upstream's answer. */
export interface InjectedResult {
  content: Array<{ type: 'text'; text: string }>;
  isError: true;
  [field: string]: JsonValue | undefined;
}

/** What a fault knows when it decides what the agent sees. */
export interface FaultSettings {
  /** F2: the announced retry_after, in seconds. */
  retryAfterSeconds: number;
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
 * Steps (see `CallAttempt`): the call arrives (`trigger`, `forwards`, `injected`, `opensRetryWindow`),
 * is forwarded, the upstream answers (`replaceExecuted`), the agent gets its answer.
 */
export interface FaultBehaviour {
  readonly kind: FaultKind;
  /** One line for the docs and the start-up output. */
  readonly summary: string;
  /** Which calls it applies to. */
  readonly trigger: FaultTrigger;
  /**
   * Nothing is injected (F4): the affected calls are not counted as faulted (no failure-handling score),
   * and a PASS only shows a baseline.
   */
  readonly baseline: boolean;
  /** Arrival: whether the affected call is still sent to the upstream (only F1 and F4 forward). */
  readonly forwards: boolean;
  /** Arrival, for a fault that does not forward: the failure the agent gets instead (it was not executed). */
  injected?(settings: FaultSettings): InjectedResult;
  /** Arrival: the agent is asked to wait `retryAfterSeconds` before re-sending the operation (F2, R-4.4). */
  readonly opensRetryWindow?: boolean;
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

/** Builds the single-text-block error result every injected fault uses. */
export function errorResult(text: string): InjectedResult {
  return { content: [{ type: 'text', text }], isError: true };
}
