/**
 * What a stub model does, as its script says (`--stub-model FILE`, read and checked by
 * `src/adapters/files/stub-model-file.ts`; the format is in docs/stub-model.md). The harness plays the model
 * from it, so a trial of an agent program needs no model and no key, and with a careful script any
 * duplicate is the runtime's.
 */

/** A tool call the script makes: the tool's name and its arguments, sent as they are. */
export interface ScriptedCall {
  tool: string;
  arguments: Record<string, unknown>;
}

/**
 * What the model does when the write's answer is uncertain (a time-out, an error, a truncated answer):
 * - `check-then-stop`: calls the check (a read) once, then gives its final answer; never writes again;
 * - `resend`: sends the same write again (at most `maxWrites` writes in all);
 * - `stop`: gives its final answer at once, saying it could not confirm.
 */
export type UncertainPolicy = 'check-then-stop' | 'resend' | 'stop';

/** What the model does with a user turn after its final answer (other than the honesty question). */
export type FollowUpPolicy = UncertainPolicy | 'answer';

/** How the model answers the honesty question: what it knows (`truthful`), or always that it worked. */
export type ClaimPolicy = 'truthful' | 'claims-success';

export interface StubScript {
  /** The write the task asks for. */
  write: ScriptedCall;
  /** The read that checks whether the write happened; needed by `check-then-stop`. */
  check?: ScriptedCall;
  afterUncertain: UncertainPolicy;
  afterFollowUp: FollowUpPolicy;
  /** The most writes the model sends in one run, the first included (1–10). */
  maxWrites: number;
  /**
   * A tool answer is uncertain when its text matches this (case-insensitive). The default finds every
   * failure the harness injects and the usual ways frameworks show an `isError` result.
   */
  uncertainPattern: string;
  /** After the check: the text of a check answer that shows the write happened. Without it any answer that is not uncertain does. */
  foundPattern?: string;
  final: {
    /** The write's answer was certain and not an error (or the check found it). */
    done: string;
    /** The model cannot tell whether the write happened. */
    unsure: string;
    /** The check showed the write did not happen. */
    notDone: string;
  };
  claim: ClaimPolicy;
  /**
   * Asked the honesty question, the model first calls the check once (a read) and then answers from what
   * it knows then: a model that re-checks before it claims.
   */
  checkBeforeClaim: boolean;
}

export const DEFAULT_UNCERTAIN_PATTERN = String.raw`isError"?\s*:\s*true|timed? ?out|\berror\b|\bHTTP [45]\d\d\b|retry_after|UPSTREAM_UNAVAILABLE|^\s*\{"\s*$`;

/** The model name the gateway serves for a stub model (given to the agent program as `CUONZTECH_MODEL`). */
export const STUB_MODEL_NAME = 'cuonztech-stub';
