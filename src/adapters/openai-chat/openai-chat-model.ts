/**
 * An OpenAI-compatible Chat Completions endpoint (`POST {baseUrl}/chat/completions`, non-streaming, with
 * tools) over Node's fetch. The protocol Ollama (`/v1`), vLLM, llama.cpp's server, LM Studio and OpenAI
 * speak. Every failure becomes a {@link ChatFailure}; this adapter never retries (the trial does).
 */
import { errorMessage } from '../../domain/error-message.js';
import type {
  ChatFailure,
  ChatMessage,
  ChatModel,
  ChatModelCheck,
  ChatOutcome,
  ChatReply,
  ChatRequest,
  ChatToolCall,
  TokenUsage,
} from '../../ports/chat-model.port.js';
import { redactUrl } from '../../domain/text/url-redaction.js';

export interface OpenAiChatOptions {
  /** e.g. `http://127.0.0.1:11434/v1` (Ollama). */
  baseUrl: string;
  model: string;
  /** Sent as `Authorization: Bearer <key>` when given. */
  apiKey?: string;
  /** How long one request may take before it counts as a time-out. */
  timeoutMs: number;
  /** Test seam: the fetch to use (default: the global fetch). */
  fetch?: typeof fetch;
}

/** The check before any run waits at most this long for the model list. */
const CHECK_TIMEOUT_MS = 30_000;

/** The largest answer read (a chat completion is kilobytes): a bigger one is a failure, not held in memory. */
const MAX_ANSWER_BYTES = 32 * 1024 * 1024;

/** The body as text, or null when it is larger than {@link MAX_ANSWER_BYTES} (reading stops there). */
async function boundedText(response: Response): Promise<string | null> {
  if (response.body === null) return '';
  const reader = response.body.getReader() as ReadableStreamDefaultReader<Uint8Array>;
  const decoder = new TextDecoder();
  let bytes = 0;
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    bytes += value.byteLength;
    if (bytes > MAX_ANSWER_BYTES) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    text += decoder.decode(value, { stream: true });
  }
}

/** Longest piece of an error body quoted in a failure's one-line detail. */
const MAX_BODY_CHARS = 300;

/** `{baseUrl}/{path}`, a query of the base URL (e.g. Azure's `?api-version=`) kept after the path. */
function endpoint(baseUrl: string, path: string): string {
  const url = new URL(baseUrl);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/${path}`;
  url.hash = '';
  return url.href;
}

/** Retry-After as seconds or an HTTP date, in ms; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, nowMs: number): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  // An HTTP date names its day and month ("Wed, 21 Oct 2015 07:28:00 GMT"); Date.parse would read "-1" as a year.
  if (!/[A-Za-z]/.test(text)) return undefined;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MAX_BODY_CHARS ? `${line.slice(0, MAX_BODY_CHARS)}…` : line;
}

function errorMessageOf(body: string): string {
  try {
    const parsed: unknown = JSON.parse(body);
    const error = typeof parsed === 'object' && parsed !== null ? (parsed as { error?: unknown }).error : undefined;
    if (typeof error === 'string') return oneLine(error);
    if (typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string') {
      return oneLine((error as { message: string }).message);
    }
  } catch {
    // not JSON: the body itself
  }
  return oneLine(body);
}

function toWire(message: ChatMessage): Record<string, unknown> {
  if (message.role === 'tool') return { role: 'tool', tool_call_id: message.toolCallId, content: message.content ?? '' };
  if (message.role === 'assistant' && message.toolCalls !== undefined && message.toolCalls.length > 0) {
    return {
      role: 'assistant',
      content: message.content,
      tool_calls: message.toolCalls.map((c) => ({
        id: c.id,
        type: 'function',
        function: { name: c.name, arguments: c.argumentsText },
      })),
    };
  }
  return { role: message.role, content: message.content ?? '' };
}

/**
 * Content sent as a list of parts (`[{type: "text", text}]`): the text parts joined, null when there are
 * none; undefined (not a completion) when an entry is not a part.
 */
function textOfParts(parts: readonly unknown[]): string | null | undefined {
  const texts: string[] = [];
  for (const part of parts) {
    if (typeof part !== 'object' || part === null) return undefined;
    const { type, text } = part as { type?: unknown; text?: unknown };
    if (type === 'text' && typeof text === 'string') texts.push(text);
  }
  return texts.length === 0 ? null : texts.join('');
}

/** Reads one choice's message; null when the body is not a Chat Completions answer. */
export function parseCompletion(body: unknown): ChatReply | null {
  if (typeof body !== 'object' || body === null) return null;
  const choices = (body as { choices?: unknown }).choices;
  if (!Array.isArray(choices) || choices.length === 0) return null;
  const choice: unknown = choices[0];
  if (typeof choice !== 'object' || choice === null) return null;
  const message = (choice as { message?: unknown }).message;
  if (typeof message !== 'object' || message === null) return null;
  const { content: raw, tool_calls: calls } = message as { content?: unknown; tool_calls?: unknown };
  const content = Array.isArray(raw) ? textOfParts(raw) : raw;
  if (Array.isArray(raw) && content === undefined) return null;
  if (content !== undefined && content !== null && typeof content !== 'string') return null;
  if (calls !== undefined && calls !== null && !Array.isArray(calls)) return null;
  const toolCalls: ChatToolCall[] = [];
  for (const [index, raw] of (Array.isArray(calls) ? calls : []).entries()) {
    const call = typeof raw === 'object' && raw !== null ? (raw as { id?: unknown; function?: unknown }) : {};
    const fn =
      typeof call.function === 'object' && call.function !== null
        ? (call.function as { name?: unknown; arguments?: unknown })
        : {};
    const args = fn.arguments;
    toolCalls.push({
      id: typeof call.id === 'string' && call.id !== '' ? call.id : `call_${index + 1}`,
      name: typeof fn.name === 'string' ? fn.name : '',
      // Some servers send the arguments as an object instead of JSON text.
      argumentsText: typeof args === 'string' ? args : args === undefined ? '' : JSON.stringify(args),
    });
  }
  const finish = (choice as { finish_reason?: unknown }).finish_reason;
  const usage = usageOf((body as { usage?: unknown }).usage);
  return {
    content: typeof content === 'string' ? content : null,
    toolCalls,
    finishReason: typeof finish === 'string' ? finish : null,
    ...(usage === undefined ? {} : { usage }),
  };
}

function tokenCount(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

/**
 * The answer's `usage` (`prompt_tokens`, `completion_tokens`), for the traces' `gen_ai.usage.*` only; a
 * count that is not a whole non-negative number is left out, never guessed.
 */
function usageOf(raw: unknown): TokenUsage | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const { prompt_tokens: input, completion_tokens: output } = raw as { prompt_tokens?: unknown; completion_tokens?: unknown };
  const inputTokens = tokenCount(input);
  const outputTokens = tokenCount(output);
  if (inputTokens === undefined && outputTokens === undefined) return undefined;
  return { ...(inputTokens === undefined ? {} : { inputTokens }), ...(outputTokens === undefined ? {} : { outputTokens }) };
}

export class OpenAiChatModel implements ChatModel {
  private readonly fetch: typeof fetch;

  constructor(private readonly options: OpenAiChatOptions) {
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  async complete(request: ChatRequest, signal?: AbortSignal): Promise<ChatOutcome> {
    const body: Record<string, unknown> = {
      model: this.options.model,
      messages: request.messages.map(toWire),
      stream: false,
    };
    if (request.tools.length > 0) {
      body['tools'] = request.tools.map((t) => ({
        type: 'function',
        function: { name: t.name, description: t.description, parameters: t.parameters },
      }));
    }
    if (request.temperature !== undefined) body['temperature'] = request.temperature;
    if (request.seed !== undefined) body['seed'] = request.seed;
    let text: string;
    try {
      text = JSON.stringify(body);
    } catch (error) {
      // V8 cannot hold a string that long (about 512 MB): the conversation grew past what can be sent.
      const why = errorMessage(error);
      return { ok: false, failure: { kind: 'request', retryable: false, detail: `the request cannot be encoded: ${why}` } };
    }
    const answer = await this.send('POST', 'chat/completions', text, signal);
    if (!answer.ok) return answer;
    let parsed: unknown;
    try {
      parsed = JSON.parse(answer.text);
    } catch {
      return {
        ok: false,
        failure: { kind: 'unparseable', retryable: true, detail: `the answer is not JSON: ${oneLine(answer.text) || '(empty)'}` },
      };
    }
    const reply = parseCompletion(parsed);
    if (reply === null && typeof parsed === 'object' && parsed !== null && (parsed as { error?: unknown }).error != null)
      return {
        ok: false,
        failure: {
          kind: 'unparseable',
          retryable: true,
          detail: `the answer is an error (HTTP 200): ${errorMessageOf(answer.text)}`,
        },
      };
    if (reply === null)
      return {
        ok: false,
        failure: { kind: 'unparseable', retryable: true, detail: `the answer is not a chat completion: ${oneLine(answer.text)}` },
      };
    return { ok: true, reply };
  }

  async check(): Promise<ChatModelCheck> {
    const answer = await this.send('GET', 'models', undefined, undefined, Math.min(this.options.timeoutMs, CHECK_TIMEOUT_MS));
    if (!answer.ok) {
      const f = answer.failure;
      // An endpoint without a model list (404/405) is still usable: the first request will tell.
      if (f.kind === 'http' && (f.status === 404 || f.status === 405)) return { ok: true };
      return { ok: false, reason: `model endpoint ${redactUrl(this.options.baseUrl)} is not usable: ${f.detail}` };
    }
    let ids: string[] | null = null;
    try {
      const data = (JSON.parse(answer.text) as { data?: unknown }).data;
      if (Array.isArray(data))
        ids = data.map((m) => (typeof m === 'object' && m !== null ? String((m as { id?: unknown }).id) : ''));
    } catch {
      ids = null;
    }
    if (ids === null) return { ok: true };
    const wanted = this.options.model;
    if (ids.includes(wanted) || ids.includes(`${wanted}:latest`)) return { ok: true };
    // The endpoint's own words: a line feed in an id would cut the one-line error it ends up in.
    const known =
      ids
        .slice(0, 10)
        .map((id) => (/[\u0000-\u001f\u007f-\u009f]/.test(id) ? JSON.stringify(id) : id))
        .join(', ') + (ids.length > 10 ? ', …' : '');
    return {
      ok: false,
      reason: `unknown model ${JSON.stringify(wanted)} at ${redactUrl(this.options.baseUrl)} (it lists: ${known || 'no models'})`,
    };
  }

  private async send(
    method: 'GET' | 'POST',
    path: string,
    body: string | undefined,
    signal?: AbortSignal,
    timeoutMs = this.options.timeoutMs,
  ): Promise<{ ok: true; text: string } | { ok: false; failure: ChatFailure }> {
    const timeout = AbortSignal.timeout(timeoutMs);
    const combined = signal === undefined ? timeout : AbortSignal.any([signal, timeout]);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.options.apiKey !== undefined) headers['authorization'] = `Bearer ${this.options.apiKey}`;
    let response: Response;
    let text: string | null;
    try {
      const followed = await this.fetchFollowingSameOrigin(endpoint(this.options.baseUrl, path), {
        method,
        headers,
        body,
        signal: combined,
      });
      if (!followed.ok) return followed;
      response = followed.response;
      text = await boundedText(response);
    } catch (error) {
      if (timeout.aborted)
        return { ok: false, failure: { kind: 'timeout', retryable: true, detail: `no answer within ${timeoutMs / 1000} s` } };
      const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
      return {
        ok: false,
        failure: {
          kind: 'network',
          retryable: true,
          detail: `${errorMessage(error)}${cause}`,
        },
      };
    }
    if (text === null) {
      const detail = `the answer is larger than ${MAX_ANSWER_BYTES / 1024 / 1024} MB; not read further`;
      return { ok: false, failure: { kind: 'unparseable', retryable: true, detail } };
    }
    if (response.ok) return { ok: true, text };
    const status = response.status;
    const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), Date.now());
    const failure: ChatFailure = {
      kind: 'http',
      status,
      retryable: status === 429 || status === 408 || status >= 500,
      detail: `HTTP ${status}${text.trim() === '' ? '' : `: ${errorMessageOf(text)}`}`,
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    };
    return { ok: false, failure };
  }

  /**
   * Redirects are followed only within the endpoint's origin (scheme, host, port), with the same method,
   * body and headers, at most {@link MAX_REDIRECTS} times. A redirect to another origin is refused: it would
   * send the conversation and the key to a host the user never named. Only the other origin is quoted
   * (its path may carry a token).
   */
  private async fetchFollowingSameOrigin(
    url: string,
    init: RequestInit,
  ): Promise<{ ok: true; response: Response } | { ok: false; failure: ChatFailure }> {
    let current = new URL(url);
    for (let hop = 0; ; hop++) {
      const response = await this.fetch(current.href, { ...init, redirect: 'manual' });
      const location = response.headers.get('location');
      if (!REDIRECTS.has(response.status) || location === null) return { ok: true, response };
      await response.body?.cancel().catch(() => undefined);
      let next: URL;
      try {
        next = new URL(location, current);
      } catch {
        return redirectFailure(response.status, 'to a location that is not a URL; not followed');
      }
      if (next.origin !== current.origin)
        return redirectFailure(
          response.status,
          `to another origin (${next.protocol === 'http:' || next.protocol === 'https:' ? next.origin : next.protocol}); not followed: the conversation and the key are sent only to ${current.origin}`,
        );
      if (hop + 1 > MAX_REDIRECTS) return redirectFailure(response.status, `more than ${MAX_REDIRECTS} times; not followed`);
      current = next;
    }
  }
}

/** Redirect statuses: each is followed with the same method and body, within the origin only. */
const REDIRECTS: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;

function redirectFailure(status: number, what: string): { ok: false; failure: ChatFailure } {
  return {
    ok: false,
    failure: { kind: 'redirect', status, retryable: false, detail: `HTTP ${status}: the endpoint redirected ${what}` },
  };
}
