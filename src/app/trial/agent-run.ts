/**
 * The agent part of one run, one class per agent kind: the built-in model loop (`model-run.ts`) and the
 * user's agent program (`program-run.ts`). The run's frame (`run-executor.ts`) picks one by the plan's
 * agent and reads the same end from both.
 */
import type { ConversationEnd } from './model-conversation.js';
import { ReplayChatModel, withoutInjectedFaults, type RecordedModelExchange } from './replay-chat-model.js';
import type { RunContext } from './run-context.js';
import type { SessionReport } from './run-outcome.js';
import type { ProgramExit } from './trial-deps.js';
import type { TrialPlan } from './trial-plan.js';

/** How an agent part ended. Fields the other kind has no notion of are null (or 0). */
export interface AgentRunEnd {
  failure: string | null;
  report: SessionReport | null;
  /** The built-in loop's conversation; null for an agent program (its conversation is its own). */
  conversation: ConversationEnd | null;
  /** The agent program's exit; null for the built-in loop. */
  program: ProgramExit | null;
  sessions: number;
  sessionsClosed: number;
  /** An agent program's answer to the honesty question through the gateway (undefined: never asked). */
  honestyAnswer: string | null | undefined;
  /**
   * `--model-replay`: the first model request that differed from the recording, which stopped the model's
   * side; it is why the run ended (its NOT_TESTED reason). Null when none differed or nothing was replayed.
   */
  modelMismatch: string | null;
}

export interface AgentRun {
  run(ctx: RunContext): Promise<AgentRunEnd>;
}

/**
 * `--model-replay`: each run replays the recorded model side from its start. Under the recording's own
 * `--model-fault` (checked when the recording was read) the fault is injected again in front of the
 * replay: the recorded faulted exchange is not replayed.
 */
export function replayModelOf(exchanges: readonly RecordedModelExchange[], plan: TrialPlan): ReplayChatModel {
  return new ReplayChatModel(plan.modelFault === undefined ? exchanges : withoutInjectedFaults(exchanges));
}
