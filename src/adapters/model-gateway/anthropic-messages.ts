/**
 * Anthropic Messages (`POST /v1/messages`): the system prompt apart, messages of `user` and `assistant`
 * only, content as blocks — `tool_use` blocks in the assistant's turn, their `tool_result` blocks (with
 * `is_error`) in the next user turn. Streamed answers are `message_start`, a `content_block_start` /
 * `_delta` / `_stop` triple per block (`text_delta`, `input_json_delta`), `message_delta` with the stop
 * reason, `message_stop`.
 */
import type { ChatMessage, ChatReply, ChatTool } from '../../ports/chat-model.port.js';
import {
  textOf,
  argumentsObject,
  contentText,
  eventJson,
  isObject,
  parametersOf,
  requireText,
  sseFrame,
  type AnswerStamp,
  type DecodedReply,
  type DecodedRequest,
  type SseEvent,
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

  decodeReply(body: unknown): DecodedReply {
    if (!isObject(body) || !Array.isArray(body['content'])) throw new Error('the answer has no content list');
    return {
      reply: replyOfBlocks(
        body['content'].filter(isObject).map((b) => ({ ...b, inputText: JSON.stringify(b['input'] ?? {}) })),
        typeof body['stop_reason'] === 'string' ? body['stop_reason'] : null,
      ),
      ...(typeof body['id'] === 'string' ? { id: body['id'] } : {}),
    };
  },

  decodeStream(events: readonly SseEvent[]): DecodedReply {
    const blocks = new Map<number, Record<string, unknown> & { inputText: string }>();
    let stopReason: string | null = null;
    let id: string | undefined;
    for (const event of events) {
      const data = eventJson(event);
      const index = typeof data['index'] === 'number' ? data['index'] : -1;
      switch (data['type']) {
        case 'message_start':
          if (isObject(data['message']) && typeof data['message']['id'] === 'string') id = data['message']['id'];
          break;
        case 'content_block_start':
          if (isObject(data['content_block'])) blocks.set(index, { ...data['content_block'], inputText: '' });
          break;
        case 'content_block_delta': {
          const block = blocks.get(index);
          const delta = isObject(data['delta']) ? data['delta'] : {};
          if (block === undefined) break;
          if (delta['type'] === 'text_delta' && typeof delta['text'] === 'string')
            block['text'] = textOf(block['text']) + delta['text'];
          if (delta['type'] === 'input_json_delta' && typeof delta['partial_json'] === 'string')
            block.inputText += delta['partial_json'];
          break;
        }
        case 'message_delta':
          if (isObject(data['delta']) && typeof data['delta']['stop_reason'] === 'string')
            stopReason = data['delta']['stop_reason'];
          break;
      }
    }
    const ordered = [...blocks.entries()].sort(([a], [b]) => a - b).map(([, block]) => block);
    // A streamed tool_use's input is the JSON its deltas spell; written as the plain answer writes it.
    for (const block of ordered) block.inputText = block.inputText.trim() === '' ? '{}' : compactJson(block.inputText);
    return { reply: replyOfBlocks(ordered, stopReason), ...(id !== undefined ? { id } : {}) };
  },
};

function compactJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return text;
  }
}

/** The reply of an answer's content blocks: the text blocks' text, the tool_use blocks (input as JSON text). */
function replyOfBlocks(
  blocks: ReadonlyArray<Record<string, unknown> & { inputText: string }>,
  stopReason: string | null,
): ChatReply {
  const texts = blocks.flatMap((b) => (b['type'] === 'text' && typeof b['text'] === 'string' ? [b['text']] : []));
  const toolCalls = blocks
    .filter((b) => b['type'] === 'tool_use')
    .map((b) => ({ id: textOf(b['id']), name: textOf(b['name']), argumentsText: b.inputText }));
  return { content: texts.length > 0 ? texts.join('') : null, toolCalls, finishReason: stopReason };
}
