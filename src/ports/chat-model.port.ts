/**
 * A chat model with tools, as the built-in agent loop of `trial` uses it: OpenAI-compatible Chat
 * Completions in practice (Ollama, vLLM, llama.cpp's server, LM Studio, OpenAI), an in-memory script in
 * tests. The loop never sees HTTP: every way a request can end is a {@link ChatOutcome}.
 */

/** One tool call as the model wrote it. `argumentsText` is the raw text (it may not even be JSON). */
export interface ChatToolCall {
  id: string;
  name: string;
  argumentsText: string;
}

/** One message of the conversation, in the order it happened. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  /** assistant only: the tool calls of this reply. */
  toolCalls?: ChatToolCall[];
  /** tool only: the call this message answers. */
  toolCallId?: string;
}

/** A tool offered to the model: an upstream tool's name, description and inputSchema (as parameters). */
export interface ChatTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface ChatRequest {
  messages: readonly ChatMessage[];
  tools: readonly ChatTool[];
  /** Passed to the endpoint only when given. */
  temperature?: number;
  /** Passed to the endpoint only when given. */
  seed?: number;
}

/** The model's answer: a final text, tool calls, or both. */
export interface ChatReply {
  content: string | null;
  toolCalls: ChatToolCall[];
  finishReason: string | null;
  /** The token counts the answer reported (`usage`), when it did: for the traces (`gen_ai.usage.*`), never judged. */
  usage?: TokenUsage;
}

export interface TokenUsage {
  inputTokens?: number;
  outputTokens?: number;
}

/**
 * Why the endpoint gave no usable answer. These are never the agent's behaviour: the caller retries the
 * retryable ones a bounded number of times and otherwise gives up on the run (NOT_TESTED).
 */
export interface ChatFailure {
  /**
   * `redirect`: the endpoint sent the request elsewhere and it was not followed (another origin, or too
   * many hops); `request`: the request could not be built (the conversation is too large to encode).
   */
  kind: 'http' | 'timeout' | 'network' | 'unparseable' | 'redirect' | 'request';
  /** 5xx, 429, time-outs, network errors and unparseable answers are retryable; 4xx (but 429) are not. */
  retryable: boolean;
  /** The HTTP status, when there was one. */
  status?: number;
  /** From a Retry-After header, when the endpoint sent one. */
  retryAfterMs?: number;
  /** One line: what went wrong. */
  detail: string;
  /** `trial --model-fault`: the harness injected this failure (e.g. `500`); the request never reached the endpoint. */
  modelFault?: string;
}

export type ChatOutcome = { ok: true; reply: ChatReply } | { ok: false; failure: ChatFailure };

/** The result of the check made once before any run. */
export type ChatModelCheck = { ok: true } | { ok: false; reason: string };

export interface ChatModel {
  /** Asks the model once. Never rejects: every way the request can end is an outcome. */
  complete(request: ChatRequest, signal?: AbortSignal): Promise<ChatOutcome>;
  /** Checks, before any run, that the endpoint is reachable and knows the model. */
  check(): Promise<ChatModelCheck>;
}
