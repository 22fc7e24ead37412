/**
 * The transcript of an agent program's run, which the harness sees from both sides: its MCP calls (an
 * observer of each session's call pipeline) and, with the model gateway, its model requests and answers.
 * The entries go into the run file's `transcript` in the order they happened.
 */
import type { CallEvent, CallEventSink } from '../../ports/call-events.port.js';
import type { ChatMessage } from '../../ports/chat-model.port.js';
import type { ModelExchange } from '../../ports/model-gateway.port.js';
import { jsonBytes, MAX_CONVERSATION_BYTES, megabytes, PREVIEW_CHARS } from './conversation-size.js';
import { resultText } from './tool-message.js';
import { notKeptText } from '../../domain/text/kept-text.js';
import type { Transcript } from './transcript.js';

/**
 * The bound on what an agent program's run file keeps of its texts (messages, answers, tool results):
 * the built-in loop's conversation limit, 32 MB (UTF-8 bytes of their JSON text). A program re-sends its
 * whole conversation with every request (20 requests of 30 MiB each; a Responses chain continued by
 * `previous_response_id`, expanded by the gateway), so without it the run file outgrows what can be
 * written ("Invalid string length") and the readers' 64 MiB input limit. Past it every text is kept as
 * its first 1024 characters, its length and its sha256, and a model request's messages only as their
 * count, size and hash; the run is judged as before (its MCP calls are the report's), and a notice says
 * where the transcript was cut.
 */
export class TranscriptBudget {
  private used = 0;
  private cut = false;

  constructor(
    private readonly hash: (text: string) => string,
    private readonly onCut: (line: string) => void,
    readonly limit: number = MAX_CONVERSATION_BYTES,
  ) {}

  /** Whether the transcript was cut. */
  get exceeded(): boolean {
    return this.cut;
  }

  /** Whether the texts fit (they are counted); once some did not, nothing fits any more. */
  fits(texts: ReadonlyArray<string | null | undefined>, where: string): boolean {
    if (this.cut) return false;
    let bytes = 0;
    for (const text of texts) if (text !== null && text !== undefined) bytes += jsonBytes(text);
    if (this.used + bytes <= this.limit) {
      this.used += bytes;
      return true;
    }
    this.cut = true;
    this.onCut(
      `the transcript outgrew its limit of ${megabytes(this.limit)} at ${where}: from there on each text is kept as its first ${PREVIEW_CHARS} characters, its length and its sha256, and a model request's messages as their count, size and sha256`,
    );
    return false;
  }

  /** A text past the bound: its head, how much was left out and the hash of the whole. */
  preview(text: string): string {
    return text.length <= PREVIEW_CHARS
      ? text
      : notKeptText(text, `sha256:${this.hash(text)}`, 'the transcript outgrew its limit');
  }

  /** A request's messages past the bound: how many, their size and the hash of their JSON. */
  messagesSummary(messages: readonly ChatMessage[]): { count: number; bytes: number; sha256: string } {
    const json = JSON.stringify(messages);
    return { count: messages.length, bytes: jsonBytes(json) - 2, sha256: this.hash(json) };
  }
}

/** One MCP session's calls: `mcp-call` when received, `tool-result` with what the agent was given. */
export class McpCallTranscript implements CallEventSink {
  constructor(
    private readonly transcript: Transcript,
    private readonly session: number,
    private readonly budget?: TranscriptBudget,
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
    if (event.step === 'asked' && event.asked !== undefined) {
      this.transcript.addAt(event.at, {
        kind: 'note',
        text: `MCP session ${this.session}, attempt ${event.attempt}: during ${event.tool} the upstream asked ${event.asked.method}; the agent answered ${event.asked.answer}`,
      });
    }
    if (event.step === 'delivered' && event.result !== undefined) {
      const text = resultText(event.result);
      const content =
        this.budget === undefined ||
        this.budget.fits([text], `the result of ${event.tool} (MCP session ${this.session}, attempt ${event.attempt})`)
          ? text
          : this.budget.preview(text);
      this.transcript.addAt(event.at, {
        kind: 'tool-result',
        callId: `mcp-${this.session}-${event.attempt}`,
        tool: event.tool,
        isError: event.result.isError === true,
        forwarded: true,
        content,
        upstream: event.upstream ?? null,
        ...(event.told !== undefined ? { told: event.told } : {}),
      });
    }
  }
}

/** A gateway exchange as two entries: the request (the whole conversation) and the answer, within `budget`. */
export function recordExchange(transcript: Transcript, exchange: ModelExchange, budget?: TranscriptBudget): void {
  const { messages } = exchange.request;
  const where = `model request ${exchange.ordinal}`;
  const keepRequest = budget === undefined || budget.fits(messages.flatMap(messageTexts), where);
  transcript.addAt(exchange.receivedAt, {
    kind: 'model-request',
    exchange: exchange.ordinal,
    format: exchange.format,
    model: exchange.model,
    stream: exchange.stream,
    ...(keepRequest ? { messages } : { messages: [], messagesNotKept: budget.messagesSummary(messages) }),
    tools: exchange.request.tools.map((t) => t.name),
  });
  const calls = exchange.reply?.toolCalls ?? [];
  const content = exchange.reply?.content ?? null;
  const keepAnswer =
    budget === undefined || budget.fits([content, ...calls.map((c) => c.argumentsText)], `the answer to ${where}`);
  const text = (value: string): string => (keepAnswer ? value : budget.preview(value));
  transcript.addAt(exchange.answeredAt, {
    kind: 'model-answer',
    exchange: exchange.ordinal,
    status: exchange.status,
    content: content === null ? null : text(content),
    toolCalls: calls.map((c) => ({ id: c.id, name: c.name, arguments: text(c.argumentsText) })),
    ...(exchange.error !== undefined ? { error: exchange.error } : {}),
    ...(exchange.fault !== undefined ? { fault: exchange.fault } : {}),
    ...(exchange.gatewayFailure === true ? { gatewayFailure: true } : {}),
  });
  if (exchange.reply !== undefined) transcript.modelCalls++;
}

/** The texts of a message the bound counts: its content and its tool calls' arguments. */
function messageTexts(message: ChatMessage): Array<string | null | undefined> {
  return [message.content, ...(message.toolCalls ?? []).map((c) => c.argumentsText)];
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
