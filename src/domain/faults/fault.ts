/**
 * The envelope shared by every fault (like toxiproxy's toxic envelope): which scenario it belongs to,
 * which calls it can apply to, whether the call still reaches the upstream, and what the agent sees.
 * Each fault's behaviour lives in its own small file beside this one.
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
}

/** The behaviour of one fault kind. */
export interface FaultBehaviour {
  readonly kind: FaultKind;
  /** One line for the docs and the start-up output. */
  readonly summary: string;
  /** Whether the affected call is still sent to the upstream (only F1 and F4 forward). */
  readonly forwards: boolean;
  /**
   * What the agent sees when the call was NOT forwarded, or, for a forwarding fault, when the upstream
   * executed the call. `undefined` means: pass the upstream's real answer through.
   */
  agentResult(settings: FaultSettings): InjectedResult | undefined;
}

/** Builds the single-text-block error result every injected fault uses. */
export function errorResult(text: string): InjectedResult {
  return { content: [{ type: 'text', text }], isError: true };
}
