/**
 * Tells a {@link CallEventSink} the steps of each call as the pipeline goes through them (the journal,
 * the per-call log lines). Kept apart from the pipeline so that the pipeline only says "this step
 * happened" and this file decides what an event holds.
 */
import type { ExecutionOutcome } from '../../domain/judging/attempt.js';
import { repliesTimeout } from '../../domain/faults/index.js';
import type { CallDecision } from '../../domain/judging/call-attempt.js';
import type { CallOrigin } from '../../domain/judging/attribution.js';
import type { AgentTold, CallEvent, CallEventSink, CallStep, UpstreamVerdict } from '../../ports/call-events.port.js';
import type { Clock } from '../../ports/clock.port.js';
import type { AgentPeer, ForwardedAnswer } from '../../ports/agent-side.port.js';
import type { ToolCallRequest, ToolCallResult } from '../../ports/shapes/mcp-shapes.js';

/** Where a pipeline's call events go, and the clock that stamps them. */
export interface CallEventsDeps {
  sink: CallEventSink;
  clock: Clock;
}

export class CallEvents {
  constructor(private readonly deps: CallEventsDeps) {}

  received(decision: CallDecision, request: ToolCallRequest, origin?: CallOrigin): void {
    const event = this.event('received', decision, request.name);
    event.arguments = request.arguments;
    if (request.meta !== undefined) event.meta = request.meta;
    if (origin?.requestId !== undefined) event.requestId = origin.requestId;
    if (decision.besideLate !== null) event.besideLate = decision.besideLate;
    this.deps.sink.callEvent(event);
  }

  injected(decision: CallDecision, tool: string, result: ToolCallResult): void {
    const event = this.event('injected', decision, tool);
    event.result = result;
    this.deps.sink.callEvent(event);
  }

  forwarded(decision: CallDecision, tool: string): void {
    this.deps.sink.callEvent(this.event('forwarded', decision, tool));
  }

  /**
   * `peer` with each request the upstream sends the agent through it recorded as an `asked` step of
   * this call, once the agent has answered (an elicitation confirmed during a faulted write is on the
   * attempt's timeline).
   */
  askedThrough(peer: AgentPeer, decision: CallDecision, tool: string): AgentPeer {
    return {
      notify: (method, params) => peer.notify(method, params),
      request: async (method, params, options) => {
        const answer = await peer.request(method, params, options);
        const event = this.event('asked', decision, tool);
        event.asked = { method, answer: answerWord(method, answer) };
        this.deps.sink.callEvent(event);
        return answer;
      },
    };
  }

  /** `executionNumber`: F6's execution number of the attempt in its operation (see `CallAttempt.execution`). */
  answered(
    decision: CallDecision,
    tool: string,
    execution: ExecutionOutcome,
    replaced: boolean,
    result: ToolCallResult | undefined,
    executionNumber: number | null = null,
  ): void {
    const event = this.event('answered', decision, tool);
    event.upstream = execution.kind;
    if (execution.kind === 'unknown') event.reason = execution.reason;
    event.replaced = replaced;
    // F6: a late write, or a write beside one, says which execution of its operation it was.
    if (executionNumber !== null) event.execution = executionNumber;
    if (result !== undefined) event.result = result;
    this.deps.sink.callEvent(event);
  }

  /**
   * `upstream`: what the upstream did, or null when the call never reached it. `timedOut`: the proxy's own
   * wait ran out. `cancelled`: the agent cancelled the call, so it is told nothing (MCP answers no
   * cancelled request), whatever result the proxy had ready.
   */
  delivered(
    decision: CallDecision,
    tool: string,
    result: ToolCallResult,
    upstream: UpstreamVerdict | null,
    replaced: boolean,
    timedOut: boolean,
    cancelled = false,
  ): void {
    const event = this.event('delivered', decision, tool);
    event.upstream = upstream;
    // A replaced answer is a timeout unless its fault says it tells an error (F7's 500).
    const replacedTimeout = replaced && repliesTimeout(decision.fault);
    event.told = cancelled ? 'cancelled' : toldOf(result, replacedTimeout || timedOut);
    event.result = result;
    this.deps.sink.callEvent(event);
  }

  private event(step: CallStep, decision: CallDecision, tool: string): CallEvent {
    const event: CallEvent = {
      step,
      at: this.deps.clock.now(),
      attempt: decision.attemptId,
      tool,
      callClass: decision.callClass,
      operation: decision.operation,
      fault: decision.fault,
    };
    // every line of a repeated write attempt says who sent it again.
    if (decision.source !== null) event.source = decision.source;
    return event;
  }
}

function toldOf(result: ToolCallResult, timeout: boolean): AgentTold {
  if (result.isError !== true) return 'answer';
  return timeout ? 'timeout' : 'error';
}

/** How the agent answered the upstream's request: an elicitation's action, `answered`, or `error <code>`. */
function answerWord(method: string, answer: ForwardedAnswer): string {
  if ('error' in answer) return `error ${answer.error.code}`;
  const action = answer.result['action'];
  return method === 'elicitation/create' && typeof action === 'string' ? action : 'answered';
}
