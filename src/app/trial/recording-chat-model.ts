/**
 * The built-in loop's model with its requests and answers written into the run's recording
 * (`docs/replay.md`): each request as the loop sent it, then the answer or why there was none. Passes
 * everything through unchanged.
 */
import type { ModelRecorder, RecordedModelAnswer } from '../../ports/cassette.port.js';
import type { ChatModel, ChatModelCheck, ChatOutcome, ChatRequest } from '../../ports/chat-model.port.js';
import type { ModelExchange } from '../../ports/model-gateway.port.js';

export class RecordingChatModel implements ChatModel {
  constructor(
    private readonly inner: ChatModel,
    private readonly recorder: ModelRecorder,
  ) {}

  async complete(request: ChatRequest, signal?: AbortSignal): Promise<ChatOutcome> {
    const exchange = this.recorder.request(request);
    const outcome = await this.inner.complete(request, signal);
    this.recorder.answer(
      exchange,
      outcome.ok
        ? { content: outcome.reply.content, toolCalls: outcome.reply.toolCalls, finishReason: outcome.reply.finishReason }
        : {
            error: `${outcome.failure.kind}: ${outcome.failure.detail}`,
            // The harness's own fault (--model-fault): a replay under the same fault injects it again.
            ...(outcome.failure.modelFault !== undefined ? { modelFault: outcome.failure.modelFault } : {}),
          },
    );
    return outcome;
  }

  check(): Promise<ChatModelCheck> {
    return this.inner.check();
  }
}

/** A model gateway's exchange (an agent program's request and its answer) into the run's recording. */
export function recordGatewayExchange(recorder: ModelRecorder, exchange: ModelExchange): void {
  const number = recorder.request(exchange.request);
  const answer: RecordedModelAnswer =
    exchange.reply !== undefined
      ? { content: exchange.reply.content, toolCalls: exchange.reply.toolCalls, finishReason: exchange.reply.finishReason }
      : {
          error: exchange.error ?? `HTTP ${exchange.status}`,
          ...(exchange.fault !== undefined ? { modelFault: exchange.fault } : {}),
        };
  recorder.answer(number, answer);
}
