/**
 * One model request with bounded retries. The endpoint's failures are not the agent's behaviour: 5xx,
 * 429 (after its Retry-After), time-outs, network errors and unparseable answers are retried; a request
 * that still fails ends the run as NOT_TESTED. Retrying re-sends the same messages — the tool results
 * already in them — so a tool call already made is never made again.
 */
import type { ChatFailure, ChatModel, ChatReply, ChatRequest } from '../../ports/chat-model.port.js';
import type { ModelAgent } from './trial-plan.js';
import type { Transcript } from './transcript.js';

export type ModelAnswer = { ok: true; reply: ChatReply } | { ok: false; reason: string };

export interface RequestContext {
  model: ChatModel;
  /** Aborted when the trial is stopped at once (a second signal): the request is dropped, no retry. */
  signal?: AbortSignal | undefined;
  agent: ModelAgent;
  transcript: Transcript;
  sleep: (ms: number) => Promise<void>;
  turn: number;
  step: number;
}

export async function requestWithRetries(request: ChatRequest, ctx: RequestContext): Promise<ModelAnswer> {
  const attempts = ctx.agent.retries + 1;
  let last: ChatFailure | undefined;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const outcome = await ctx.model.complete(request, ctx.signal);
    if (ctx.signal?.aborted === true) return { ok: false, reason: 'interrupted' };
    if (outcome.ok) {
      ctx.transcript.modelCalls++;
      return outcome;
    }
    last = outcome.failure;
    const wait = waitBefore(attempt + 1, last, ctx.agent);
    const willRetry = last.retryable && attempt < attempts && wait !== null;
    ctx.transcript.endpointError({
      attempt,
      turn: ctx.turn,
      step: ctx.step,
      kind: last.kind,
      detail: last.detail,
      ...(last.status !== undefined ? { status: last.status } : {}),
      ...(willRetry ? { waitMs: wait } : {}),
      ...(last.modelFault !== undefined ? { modelFault: last.modelFault } : {}),
    });
    if (!willRetry) {
      const why = !last.retryable
        ? ''
        : wait === null
          ? ` (Retry-After ${Math.round((last.retryAfterMs ?? 0) / 1000)} s is longer than the ${ctx.agent.maxRetryAfterMs / 1000} s the harness waits)`
          : '';
      return {
        ok: false,
        reason: `model endpoint failed after ${attempt} attempt${attempt === 1 ? '' : 's'}: ${last.detail}${why}`,
      };
    }
    await ctx.sleep(wait);
  }
  return { ok: false, reason: `model endpoint failed: ${last?.detail ?? 'no answer'}` };
}

/** How long to wait before attempt `next`: the endpoint's Retry-After, else exponential back-off; null = too long. */
export function waitBefore(next: number, failure: ChatFailure, agent: ModelAgent): number | null {
  if (failure.retryAfterMs !== undefined) return failure.retryAfterMs > agent.maxRetryAfterMs ? null : failure.retryAfterMs;
  return agent.backoffMs * 2 ** (next - 2);
}
