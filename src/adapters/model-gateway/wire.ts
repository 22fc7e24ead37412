/**
 * What the three wire formats of the model gateway have in common: a request decoded into the harness's
 * own conversation ({@link ChatRequest}), and the model's answer ({@link ChatReply}) encoded back as one
 * JSON body or as the format's stream of server-sent events. Each format is one file beside this one:
 * OpenAI Chat Completions (`chat-completions.ts`), OpenAI Responses (`responses.ts`), Anthropic Messages
 * (`anthropic-messages.ts`).
 */
import type { ChatReply, ChatRequest } from '../../ports/chat-model.port.js';

import type { ModelExchange, WireFormatName } from '../../ports/model-gateway.port.js';

export type { WireFormatName };

/** A request as the gateway understood it. */
export interface DecodedRequest {
  model: string;
  stream: boolean;
  /** Chat Completions: `stream_options.include_usage`, a last chunk with the usage. */
  streamUsage?: boolean;
  /** Responses: the earlier answer this request continues (its conversation is the gateway's to prepend). */
  previousResponseId?: string;
  chat: ChatRequest;
}

/** Ids and time of one answer, chosen by the gateway (so a test can fix them). */
export interface AnswerStamp {
  /** A unique id for the answer (the format's prefix is added by the encoder). */
  id: string;
  /** Seconds since the epoch. */
  created: number;
}

export interface WireFormat {
  readonly name: WireFormatName;
  /** Decodes a parsed request body; throws an Error with one line when it is not this format's request. */
  decode(body: unknown): DecodedRequest;
  /** The answer as one JSON body. */
  encodeJson(reply: ChatReply, model: string, stamp: AnswerStamp): unknown;
  /** The answer as the format's server-sent events, each a complete `event:`/`data:` frame ending in a blank line. */
  encodeStream(reply: ChatReply, model: string, stamp: AnswerStamp, request: DecodedRequest): string[];
  /** An error body in this format's shape. */
  errorBody(status: number, message: string): unknown;
  /** Forward mode: a real endpoint's plain JSON answer read back (throws an Error with one line when it is none). */
  decodeReply(body: unknown): DecodedReply;
  /** Forward mode: a real endpoint's streamed answer, assembled from its server-sent events (text and tool calls). */
  decodeStream(events: readonly SseEvent[]): DecodedReply;
}

/** An answer as the gateway read it back from a real endpoint: the reply, and the endpoint's id for it. */
export interface DecodedReply {
  reply: ChatReply;
  /** The answer's id (Responses: what a later `previous_response_id` names). */
  id?: string;
}

/** One server-sent event: its `event:` name when given, and its `data:` lines joined by line feeds. */
export interface SseEvent {
  event?: string;
  data: string;
}

/**
 * The events of a whole server-sent-events body, as the HTML standard reads them: lines end in CRLF, LF
 * or CR; a blank line ends an event; `:` starts a comment; one space after a field's colon is dropped.
 * A last event without its blank line is kept (the answer is being recorded, not acted upon).
 */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  let data: string[] = [];
  let event: string | undefined;
  const dispatch = () => {
    if (data.length > 0) events.push({ ...(event !== undefined ? { event } : {}), data: data.join('\n') });
    data = [];
    event = undefined;
  };
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === '') {
      dispatch();
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
  }
  dispatch();
  return events;
}

/** The JSON of an event's data; an error event (`{"error": …}` or `type: "error"`) throws its message. */
export function eventJson(event: SseEvent): Record<string, unknown> {
  const parsed: unknown = JSON.parse(event.data);
  if (!isObject(parsed)) throw new Error('an event of the stream is not a JSON object');
  if (parsed['type'] === 'error' || (isObject(parsed['error']) && parsed['type'] === undefined))
    throw new Error(`the stream carried an error: ${errorMessageOf(parsed) ?? 'no message'}`);
  return parsed;
}

/** The message of an error body of any of the three formats (`{error: {message}}`), if it has one. */
export function errorMessageOf(body: unknown): string | undefined {
  if (!isObject(body)) return undefined;
  const error = body['error'];
  if (isObject(error) && typeof error['message'] === 'string') return error['message'];
  return typeof error === 'string' ? error : undefined;
}

/** One server-sent event frame. */
export function sseFrame(data: unknown, event?: string): string {
  return `${event !== undefined ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The text of a content that is a string or a list of text parts (`{type: 'text' | 'input_text' | 'output_text', text}`). */
export function contentText(content: unknown): string | null {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return null;
  const texts = content.flatMap((part) =>
    isObject(part) && typeof part['text'] === 'string' ? [part['text']] : typeof part === 'string' ? [part] : [],
  );
  return texts.length === 0 ? null : texts.join('\n');
}

/** A string field's value, or '' when it is absent or not a string (an answer read back is recorded, not refused). */
export function textOf(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

export function requireText(value: unknown, where: string): string {
  if (typeof value !== 'string' || value === '') throw new Error(`${where} must be a non-empty string`);
  return value;
}

export function parametersOf(value: unknown): Record<string, unknown> {
  return isObject(value) ? value : { type: 'object', properties: {} };
}

/** A tool call's arguments as an object (Anthropic's `input`); text that is no JSON object becomes `{}`. */
export function argumentsObject(argumentsText: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(argumentsText);
    return isObject(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

/** An error in OpenAI's shape (Chat Completions and Responses): the official client reads `error.message`. */
export function openAiErrorBody(status: number, message: string): unknown {
  const type =
    status === 401
      ? 'authentication_error'
      : status === 404
        ? 'not_found_error'
        : status >= 500
          ? 'server_error'
          : 'invalid_request_error';
  return { error: { message, type, param: null, code: status === 404 ? 'model_not_found' : null } };
}

/** A text on one line (runs of white space become one space), shortened to 300 characters. */
export function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

/**
 * The exchange a request leaves in the run when the gateway itself failed on it (forward and stub gateway
 * alike): no model, no messages, the status the program got and why (`gatewayFailure`, issue 41 §2).
 */
export function gatewayFailureExchange(
  ordinal: number,
  format: WireFormatName,
  status: number,
  error: string,
  at: number,
): ModelExchange {
  return {
    ordinal,
    format,
    model: '',
    stream: false,
    request: { messages: [], tools: [] },
    status,
    error,
    gatewayFailure: true,
    receivedAt: at,
    answeredAt: at,
  };
}
