/**
 * OpenAI Responses (`POST /v1/responses`): the format of the OpenAI Agents SDK and of newer OpenAI
 * clients. The conversation is a list of items — messages, `function_call`s and their
 * `function_call_output`s, joined by `call_id` — with the system prompt as `instructions`; a request may
 * continue an earlier answer by `previous_response_id` instead of repeating it. Streamed answers are
 * typed events (`response.created` … `response.completed`), each with its `sequence_number`.
 */
import type { ChatMessage, ChatReply, ChatTool } from '../../ports/chat-model.port.js';
import {
  textOf,
  contentText,
  eventJson,
  isObject,
  openAiErrorBody,
  parametersOf,
  requireText,
  sseFrame,
  type AnswerStamp,
  type DecodedReply,
  type DecodedRequest,
  type SseEvent,
  type WireFormat,
} from './wire.js';

function decodeItem(item: unknown, index: number): ChatMessage[] {
  if (!isObject(item)) throw new Error(`input[${index}] must be an object`);
  const type = item['type'];
  if (type === 'function_call') {
    return [
      {
        role: 'assistant',
        content: null,
        toolCalls: [
          {
            id: requireText(item['call_id'], `input[${index}].call_id`),
            name: requireText(item['name'], `input[${index}].name`),
            argumentsText: typeof item['arguments'] === 'string' ? item['arguments'] : '',
          },
        ],
      },
    ];
  }
  if (type === 'function_call_output') {
    const output = item['output'];
    return [
      {
        role: 'tool',
        content: typeof output === 'string' ? output : (contentText(output) ?? JSON.stringify(output ?? null)),
        toolCallId: requireText(item['call_id'], `input[${index}].call_id`),
      },
    ];
  }
  if (type !== undefined && type !== 'message') return []; // reasoning and other items the harness does not read
  const content = contentText(item['content']);
  switch (item['role']) {
    case 'system':
    case 'developer':
      return [{ role: 'system', content }];
    case 'user':
      return [{ role: 'user', content }];
    case 'assistant':
      return [{ role: 'assistant', content }];
    default:
      throw new Error(`input[${index}].role must be system, developer, user or assistant`);
  }
}

/** Consecutive assistant items (a text and its function calls) are one assistant message, as in Chat Completions. */
function joinAssistantTurns(messages: ChatMessage[]): ChatMessage[] {
  const joined: ChatMessage[] = [];
  for (const message of messages) {
    const previous = joined.at(-1);
    if (message.role === 'assistant' && previous?.role === 'assistant' && message.toolCalls !== undefined) {
      joined[joined.length - 1] = { ...previous, toolCalls: [...(previous.toolCalls ?? []), ...message.toolCalls] };
    } else joined.push(message);
  }
  return joined;
}

function decodeTool(value: unknown): ChatTool[] {
  if (!isObject(value) || value['type'] !== 'function') return [];
  return [
    {
      name: requireText(value['name'], 'tools[].name'),
      description: typeof value['description'] === 'string' ? value['description'] : '',
      parameters: parametersOf(value['parameters']),
    },
  ];
}

interface OutputItems {
  items: Array<Record<string, unknown>>;
}

function outputItems(reply: ChatReply, stamp: AnswerStamp): OutputItems {
  const items: Array<Record<string, unknown>> = [];
  if (reply.content !== null && reply.content !== '')
    items.push({
      type: 'message',
      id: `msg_${stamp.id}`,
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: reply.content, annotations: [], logprobs: [] }],
    });
  reply.toolCalls.forEach((call, n) =>
    items.push({
      type: 'function_call',
      id: `fc_${stamp.id}_${n}`,
      call_id: call.id,
      name: call.name,
      arguments: call.argumentsText,
      status: 'completed',
    }),
  );
  return { items };
}

function responseObject(model: string, stamp: AnswerStamp, status: string, output: unknown[]): Record<string, unknown> {
  return {
    id: `resp_${stamp.id}`,
    object: 'response',
    created_at: stamp.created,
    status,
    error: null,
    incomplete_details: null,
    instructions: null,
    max_output_tokens: null,
    model,
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    temperature: null,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: [],
    top_p: null,
    truncation: 'disabled',
    usage:
      status === 'completed'
        ? {
            input_tokens: 0,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens: 0,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: 0,
          }
        : null,
    metadata: {},
  };
}

export const responses: WireFormat = {
  name: 'responses',

  decode(body: unknown): DecodedRequest {
    if (!isObject(body)) throw new Error('the request body must be a JSON object');
    const model = requireText(body['model'], 'model');
    const input = body['input'];
    const messages: ChatMessage[] = [];
    if (typeof body['instructions'] === 'string' && body['instructions'] !== '')
      messages.push({ role: 'system', content: body['instructions'] });
    if (typeof input === 'string') messages.push({ role: 'user', content: input });
    else if (Array.isArray(input)) messages.push(...input.flatMap(decodeItem));
    else if (input !== undefined) throw new Error('input must be a string or a list of items');
    const tools = Array.isArray(body['tools']) ? body['tools'].flatMap(decodeTool) : [];
    const previous = body['previous_response_id'];
    return {
      model,
      stream: body['stream'] === true,
      ...(typeof previous === 'string' && previous !== '' ? { previousResponseId: previous } : {}),
      chat: {
        messages: joinAssistantTurns(messages),
        tools,
        ...(typeof body['temperature'] === 'number' ? { temperature: body['temperature'] } : {}),
      },
    };
  },

  encodeJson(reply: ChatReply, model: string, stamp: AnswerStamp): unknown {
    return responseObject(model, stamp, 'completed', outputItems(reply, stamp).items);
  },

  encodeStream(reply: ChatReply, model: string, stamp: AnswerStamp): string[] {
    let sequence = 0;
    const event = (type: string, fields: Record<string, unknown>) =>
      sseFrame({ type, sequence_number: sequence++, ...fields }, type);
    const frames = [
      event('response.created', { response: responseObject(model, stamp, 'in_progress', []) }),
      event('response.in_progress', { response: responseObject(model, stamp, 'in_progress', []) }),
    ];
    const { items } = outputItems(reply, stamp);
    items.forEach((item, outputIndex) => {
      const itemId = item['id'];
      if (item['type'] === 'message') {
        const text = reply.content ?? '';
        const part = { type: 'output_text', text: '', annotations: [], logprobs: [] };
        frames.push(
          event('response.output_item.added', {
            output_index: outputIndex,
            item: { ...item, status: 'in_progress', content: [] },
          }),
          event('response.content_part.added', { item_id: itemId, output_index: outputIndex, content_index: 0, part }),
          event('response.output_text.delta', {
            item_id: itemId,
            output_index: outputIndex,
            content_index: 0,
            delta: text,
            logprobs: [],
          }),
          event('response.output_text.done', {
            item_id: itemId,
            output_index: outputIndex,
            content_index: 0,
            text,
            logprobs: [],
          }),
          event('response.content_part.done', {
            item_id: itemId,
            output_index: outputIndex,
            content_index: 0,
            part: { ...part, text },
          }),
          event('response.output_item.done', { output_index: outputIndex, item }),
        );
      } else {
        const args = String(item['arguments']);
        frames.push(
          event('response.output_item.added', {
            output_index: outputIndex,
            item: { ...item, arguments: '', status: 'in_progress' },
          }),
          event('response.function_call_arguments.delta', { item_id: itemId, output_index: outputIndex, delta: args }),
          event('response.function_call_arguments.done', {
            item_id: itemId,
            output_index: outputIndex,
            name: item['name'],
            arguments: args,
          }),
          event('response.output_item.done', { output_index: outputIndex, item }),
        );
      }
    });
    frames.push(event('response.completed', { response: responseObject(model, stamp, 'completed', items) }));
    return frames;
  },

  errorBody: openAiErrorBody,

  decodeReply(body: unknown): DecodedReply {
    if (!isObject(body) || !Array.isArray(body['output'])) throw new Error('the answer has no output list');
    return {
      reply: replyOfItems(body['output'], typeof body['status'] === 'string' ? body['status'] : null),
      ...(typeof body['id'] === 'string' ? { id: body['id'] } : {}),
    };
  },

  decodeStream(events: readonly SseEvent[]): DecodedReply {
    // The last event (`response.completed`, `.incomplete` or `.failed`) carries the whole answer; without
    // it the answer is assembled from the items as they were done, the text from its deltas.
    const done: unknown[] = [];
    let text = '';
    let id: string | undefined;
    for (const event of events) {
      const data = eventJson(event);
      const type = data['type'];
      const response = data['response'];
      if (isObject(response) && typeof response['id'] === 'string') id ??= response['id'];
      if (
        (type === 'response.completed' || type === 'response.incomplete' || type === 'response.failed') &&
        isObject(response) &&
        Array.isArray(response['output'])
      )
        return responses.decodeReply(response);
      if (type === 'response.output_item.done') done.push(data['item']);
      if (type === 'response.output_text.delta' && typeof data['delta'] === 'string') text += data['delta'];
    }
    const reply = replyOfItems(done, null);
    if (reply.content === null && text !== '') reply.content = text;
    return { reply, ...(id !== undefined ? { id } : {}) };
  },
};

/** The reply of a Responses answer's output items: the messages' text, the function calls. */
function replyOfItems(items: readonly unknown[], status: string | null): ChatReply {
  const texts: string[] = [];
  const toolCalls: ChatReply['toolCalls'] = [];
  for (const item of items.filter(isObject)) {
    if (item['type'] === 'message') {
      const parts = Array.isArray(item['content']) ? item['content'].filter(isObject) : [];
      texts.push(...parts.flatMap((p) => (p['type'] === 'output_text' && typeof p['text'] === 'string' ? [p['text']] : [])));
    } else if (item['type'] === 'function_call')
      toolCalls.push({
        id: textOf(item['call_id']),
        name: textOf(item['name']),
        argumentsText: typeof item['arguments'] === 'string' ? item['arguments'] : '',
      });
  }
  return { content: texts.length > 0 ? texts.join('') : null, toolCalls, finishReason: status };
}
