/**
 * Anthropic Messages (`POST /v1/messages`): the system prompt apart, messages of `user` and `assistant`
 * only, content as blocks — `tool_use` blocks in the assistant's turn, their `tool_result` blocks (with
 * `is_error`) in the next user turn. Streamed answers are `message_start`, a `content_block_start` /
 * `_delta` / `_stop` triple per block (`text_delta`, `input_json_delta`), `message_delta` with the stop
 * reason, `message_stop`.
 */
import type { ChatMessage, ChatReply, ChatTool } from '../../ports/chat-model.port.js';
import {
  argumentsObject,
  contentText,
  isObject,
  parametersOf,
  requireText,
  sseFrame,
  type AnswerStamp,
  type DecodedRequest,
  type WireFormat,
} from './wire.js';

/** A tool's answer: `is_error` is shown to the model the way the built-in loop shows it (`isError: true`). */
function toolResult(block: Record<string, unknown>, where: string): ChatMessage {
  const text = contentText(block['content']) ?? '';
  return {
    role: 'tool',
    content: block['is_error'] === true ? `Tool error (isError: true): ${text}` : text,
    toolCallId: requireText(block['tool_use_id'], `${where}.tool_use_id`),
  };
}

function decodeMessage(value: unknown, index: number): ChatMessage[] {
  if (!isObject(value)) throw new Error(`messages[${index}] must be an object`);
  const role = value['role'];
  if (role !== 'user' && role !== 'assistant') throw new Error(`messages[${index}].role must be user or assistant`);
  const content = value['content'];
  if (typeof content === 'string') return [{ role, content }];
  if (!Array.isArray(content)) throw new Error(`messages[${index}].content must be a string or a list of blocks`);
  const blocks = content.filter(isObject);
  const text = contentText(blocks.filter((b) => b['type'] === 'text'));
  if (role === 'assistant') {
    const toolCalls = blocks
      .filter((b) => b['type'] === 'tool_use')
      .map((b, n) => ({
        id: requireText(b['id'], `messages[${index}].content[${n}].id`),
        name: requireText(b['name'], `messages[${index}].content[${n}].name`),
        argumentsText: JSON.stringify(b['input'] ?? {}),
      }));
    return [toolCalls.length > 0 ? { role, content: text, toolCalls } : { role, content: text }];
  }
  const results = blocks.filter((b) => b['type'] === 'tool_result').map((b) => toolResult(b, `messages[${index}].content[]`));
  return text === null ? results : [...results, { role: 'user', content: text }];
}

function decodeTool(value: unknown): ChatTool[] {
  // Anthropic's own server tools (web search, …) have a type and no input_schema: not the agent's tools.
  if (!isObject(value) || !isObject(value['input_schema'])) return [];
  return [
    {
      name: requireText(value['name'], 'tools[].name'),
      description: typeof value['description'] === 'string' ? value['description'] : '',
      parameters: parametersOf(value['input_schema']),
    },
  ];
}

function blocksOf(reply: ChatReply): Array<Record<string, unknown>> {
  const blocks: Array<Record<string, unknown>> = [];
  if (reply.content !== null && reply.content !== '') blocks.push({ type: 'text', text: reply.content });
  for (const call of reply.toolCalls)
    blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: argumentsObject(call.argumentsText) });
  return blocks;
}

function stopReason(reply: ChatReply): string {
  return reply.toolCalls.length > 0 ? 'tool_use' : 'end_turn';
}

const USAGE = { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };

export const anthropicMessages: WireFormat = {
  name: 'anthropic-messages',

  decode(body: unknown): DecodedRequest {
    if (!isObject(body)) throw new Error('the request body must be a JSON object');
    const model = requireText(body['model'], 'model');
    if (!Array.isArray(body['messages'])) throw new Error('messages must be a list');
    const system = contentText(body['system']);
    const messages: ChatMessage[] = system !== null ? [{ role: 'system', content: system }] : [];
    messages.push(...body['messages'].flatMap(decodeMessage));
    return {
      model,
      stream: body['stream'] === true,
      chat: {
        messages,
        tools: Array.isArray(body['tools']) ? body['tools'].flatMap(decodeTool) : [],
        ...(typeof body['temperature'] === 'number' ? { temperature: body['temperature'] } : {}),
      },
    };
  },

  encodeJson(reply: ChatReply, model: string, stamp: AnswerStamp): unknown {
    return {
      id: `msg_${stamp.id}`,
      type: 'message',
      role: 'assistant',
      model,
      content: blocksOf(reply),
      stop_reason: stopReason(reply),
      stop_sequence: null,
      usage: USAGE,
    };
  },

  encodeStream(reply: ChatReply, model: string, stamp: AnswerStamp): string[] {
    const event = (type: string, fields: Record<string, unknown>) => sseFrame({ type, ...fields }, type);
    const frames = [
      event('message_start', {
        message: {
          id: `msg_${stamp.id}`,
          type: 'message',
          role: 'assistant',
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: USAGE,
        },
      }),
    ];
    blocksOf(reply).forEach((block, index) => {
      if (block['type'] === 'text') {
        frames.push(
          event('content_block_start', { index, content_block: { type: 'text', text: '' } }),
          event('content_block_delta', { index, delta: { type: 'text_delta', text: block['text'] } }),
        );
      } else {
        frames.push(
          event('content_block_start', { index, content_block: { ...block, input: {} } }),
          event('content_block_delta', {
            index,
            delta: { type: 'input_json_delta', partial_json: JSON.stringify(block['input']) },
          }),
        );
      }
      frames.push(event('content_block_stop', { index }));
    });
    frames.push(
      event('message_delta', { delta: { stop_reason: stopReason(reply), stop_sequence: null }, usage: { output_tokens: 0 } }),
      event('message_stop', {}),
    );
    return frames;
  },

  errorBody(status: number, message: string): unknown {
    const type =
      status === 401
        ? 'authentication_error'
        : status === 404
          ? 'not_found_error'
          : status === 413
            ? 'request_too_large'
            : status === 429
              ? 'rate_limit_error'
              : status >= 500
                ? 'api_error'
                : 'invalid_request_error';
    return { type: 'error', error: { type, message } };
  },
};
