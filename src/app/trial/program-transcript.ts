/**
 * The transcript of an agent program's run, which the harness sees from both sides: its MCP calls (an
 * observer of each session's call pipeline) and, with the model gateway, its model requests and answers.
 * The entries go into the run file's `transcript` in the order they happened.
 */
import type { CallEvent, CallEventSink } from '../../ports/call-events.port.js';
import type { ChatMessage } from '../../ports/chat-model.port.js';
import type { ModelExchange } from '../../ports/model-gateway.port.js';
import { resultText } from './tool-message.js';
import type { Transcript } from './transcript.js';

/** One MCP session's calls: `mcp-call` when received, `tool-result` with what the agent was given. */
export class McpCallTranscript implements CallEventSink {
  constructor(
    private readonly transcript: Transcript,
    private readonly session: number,
  ) {}

  callEvent(event: CallEvent): void {
    if (event.step === 'received') {
      this.transcript.addAt(event.at, {
        kind: 'mcp-call',
        session: this.session,
        attempt: event.attempt,
        tool: event.tool,
        arguments: event.arguments ?? null,
        operation: event.operation,
        fault: event.fault,
      });
    }
    if (event.step === 'delivered' && event.result !== undefined) {
      this.transcript.addAt(event.at, {
        kind: 'tool-result',
        callId: `mcp-${this.session}-${event.attempt}`,
        tool: event.tool,
        isError: event.result.isError === true,
        forwarded: true,
        content: resultText(event.result),
        upstream: event.upstream ?? null,
        ...(event.told !== undefined ? { told: event.told } : {}),
      });
    }
  }
}

/** A gateway exchange as two entries: the request (the whole conversation) and the answer. */
export function recordExchange(transcript: Transcript, exchange: ModelExchange): void {
  transcript.addAt(exchange.receivedAt, {
    kind: 'model-request',
    exchange: exchange.ordinal,
    format: exchange.format,
    model: exchange.model,
    stream: exchange.stream,
    messages: exchange.request.messages,
    tools: exchange.request.tools.map((t) => t.name),
  });
  transcript.addAt(exchange.answeredAt, {
    kind: 'model-answer',
    exchange: exchange.ordinal,
    status: exchange.status,
    content: exchange.reply?.content ?? null,
    toolCalls: (exchange.reply?.toolCalls ?? []).map((c) => ({ id: c.id, name: c.name, arguments: c.argumentsText })),
    ...(exchange.error !== undefined ? { error: exchange.error } : {}),
    ...(exchange.fault !== undefined ? { fault: exchange.fault } : {}),
    ...(exchange.gatewayFailure === true ? { gatewayFailure: true } : {}),
  });
  if (exchange.reply !== undefined) transcript.modelCalls++;
}

/**
 * The model's answer to the honesty question: the text of the answer that ends the turn the question
 * opened — the first answer without tool calls, after the request whose last turn is the question, in that
 * conversation (requests that carry that request's messages first). Tool calls the model makes while
 * answering (a read to re-check) are judged like any other. Null when that turn ended without text or did
 * not end; undefined when the question was never sent.
 */
export function honestyAnswerOf(exchanges: readonly ModelExchange[], question: string): string | null | undefined {
  const start = exchanges.findIndex((exchange) => {
    const last = exchange.request.messages.at(-1);
    return last?.role === 'user' && last.content?.trim() === question.trim();
  });
  if (start < 0) return undefined;
  const opened = exchanges[start]!.request.messages;
  for (const exchange of exchanges.slice(start)) {
    if (!continues(exchange.request.messages, opened)) continue;
    const reply = exchange.reply;
    if (reply !== undefined && reply.toolCalls.length === 0) return reply.content;
  }
  return null;
}

/** Whether a conversation begins with the messages of another request (the same conversation, further on). */
function continues(messages: readonly ChatMessage[], opened: readonly ChatMessage[]): boolean {
  if (messages.length < opened.length) return false;
  return opened.every((m, i) => {
    const other = messages[i]!;
    return other.role === m.role && (other.content ?? null) === (m.content ?? null);
  });
}
