/**
 * OpenAI Chat Completions (`POST /v1/chat/completions`): the format of OpenAI, Ollama, vLLM and most
 * agent frameworks' "OpenAI-compatible" providers. Messages carry the whole conversation; a tool's
 * answer is a `tool` message naming its `tool_call_id`. Streamed answers are `chat.completion.chunk`
 * events, tool calls sent as a first chunk with the id and name and a second with the arguments, then
 * `data: [DONE]`.
 */
import type { ChatMessage, ChatReply, ChatTool, ChatToolCall } from '../../ports/chat-model.port.js';
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

function decodeMessage(value: unknown, index: number): ChatMessage {
  if (!isObject(value)) throw new Error(`messages[${index}] must be an object`);
  const role = value['role'];
  const content = contentText(value['content']);
  switch (role) {
    case 'system':
    case 'developer':
      return { role: 'system', content };
    case 'user':
      return { role: 'user', content };
    case 'assistant': {
      const calls = Array.isArray(value['tool_calls']) ? value['tool_calls'] : [];
      const toolCalls = calls.map((call, n) => {
        const fn = isObject(call) && isObject(call['function']) ? call['function'] : {};
        return {
          id: requireText(isObject(call) ? call['id'] : undefined, `messages[${index}].tool_calls[${n}].id`),
          name: requireText(fn['name'], `messages[${index}].tool_calls[${n}].function.name`),
          argumentsText: typeof fn['arguments'] === 'string' ? fn['arguments'] : '',
        };
      });
      return toolCalls.length > 0 ? { role: 'assistant', content, toolCalls } : { role: 'assistant', content };
    }
    case 'tool':
      return {
        role: 'tool',
        content,
        toolCallId: requireText(value['tool_call_id'], `messages[${index}].tool_call_id`),
      };
    default:
      throw new Error(`messages[${index}].role must be system, developer, user, assistant or tool`);
  }
}

function decodeTool(value: unknown): ChatTool[] {
  if (!isObject(value) || value['type'] !== 'function' || !isObject(value['function'])) return [];
  const fn = value['function'];
  return [
    {
      name: requireText(fn['name'], 'tools[].function.name'),
      description: typeof fn['description'] === 'string' ? fn['description'] : '',
      parameters: parametersOf(fn['parameters']),
    },
  ];
}

function finishReason(reply: ChatReply): string {
  return reply.finishReason ?? (reply.toolCalls.length > 0 ? 'tool_calls' : 'stop');
}

export const chatCompletions: WireFormat = {
  name: 'chat-completions',

  decode(body: unknown): DecodedRequest {
    if (!isObject(body)) throw new Error('the request body must be a JSON object');
    const model = requireText(body['model'], 'model');
    if (!Array.isArray(body['messages'])) throw new Error('messages must be a list');
    const tools = Array.isArray(body['tools']) ? body['tools'].flatMap(decodeTool) : [];
    return {
      model,
      stream: body['stream'] === true,
      ...(isObject(body['stream_options']) && body['stream_options']['include_usage'] === true ? { streamUsage: true } : {}),
      chat: {
        messages: body['messages'].map(decodeMessage),
        tools,
        ...(typeof body['temperature'] === 'number' ? { temperature: body['temperature'] } : {}),
        ...(typeof body['seed'] === 'number' ? { seed: body['seed'] } : {}),
      },
    };
  },

  encodeJson(reply: ChatReply, model: string, stamp: AnswerStamp): unknown {
    const message: Record<string, unknown> = { role: 'assistant', content: reply.content, refusal: null };
    if (reply.toolCalls.length > 0)
      message['tool_calls'] = reply.toolCalls.map((call) => ({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: call.argumentsText },
      }));
    return {
      id: `chatcmpl-${stamp.id}`,
      object: 'chat.completion',
      created: stamp.created,
      model,
      choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(reply) }],
      usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    };
  },

  encodeStream(reply: ChatReply, model: string, stamp: AnswerStamp, request: DecodedRequest): string[] {
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
      sseFrame({
        id: `chatcmpl-${stamp.id}`,
        object: 'chat.completion.chunk',
        created: stamp.created,
        model,
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      });
    const frames = [chunk({ role: 'assistant', content: '', refusal: null })];
    if (reply.content !== null && reply.content !== '') frames.push(chunk({ content: reply.content }));
    reply.toolCalls.forEach((call, index) => {
      frames.push(
        chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }),
      );
      if (call.argumentsText !== '') frames.push(chunk({ tool_calls: [{ index, function: { arguments: call.argumentsText } }] }));
    });
    frames.push(chunk({}, finishReason(reply)));
    if (request.streamUsage === true)
      frames.push(
        sseFrame({
          id: `chatcmpl-${stamp.id}`,
          object: 'chat.completion.chunk',
          created: stamp.created,
          model,
          choices: [],
          usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
        }),
      );
    frames.push('data: [DONE]\n\n');
    return frames;
  },

  errorBody: openAiErrorBody,

  decodeReply(body: unknown): DecodedReply {
    if (!isObject(body)) throw new Error('the answer is not a JSON object');
    const choice: unknown = Array.isArray(body['choices']) ? body['choices'][0] : undefined;
    if (!isObject(choice) || !isObject(choice['message'])) throw new Error('the answer has no choices[0].message');
    const message = choice['message'];
    const calls = Array.isArray(message['tool_calls']) ? message['tool_calls'] : [];
    const toolCalls = calls.filter(isObject).map((call) => {
      const fn = isObject(call['function']) ? call['function'] : {};
      return {
        id: textOf(call['id']),
        name: textOf(fn['name']),
        argumentsText: typeof fn['arguments'] === 'string' ? fn['arguments'] : '',
      };
    });
    return {
      reply: {
        content: contentText(message['content']),
        toolCalls,
        finishReason: typeof choice['finish_reason'] === 'string' ? choice['finish_reason'] : null,
      },
      ...(typeof body['id'] === 'string' ? { id: body['id'] } : {}),
    };
  },

  decodeStream(events: readonly SseEvent[]): DecodedReply {
    let content: string | null = null;
    let finishReason: string | null = null;
    let id: string | undefined;
    const calls = new Map<number, ChatToolCall>();
    for (const event of events) {
      if (event.data.trim() === '[DONE]') continue;
      const chunk = eventJson(event);
      if (typeof chunk['id'] === 'string') id ??= chunk['id'];
      const choice: unknown = Array.isArray(chunk['choices'])
        ? chunk['choices'].find((c) => isObject(c) && (c['index'] ?? 0) === 0)
        : undefined;
      if (!isObject(choice)) continue;
      if (typeof choice['finish_reason'] === 'string') finishReason = choice['finish_reason'];
      const delta = isObject(choice['delta']) ? choice['delta'] : {};
      if (typeof delta['content'] === 'string') content = (content ?? '') + delta['content'];
      for (const part of Array.isArray(delta['tool_calls']) ? delta['tool_calls'].filter(isObject) : []) {
        const index = typeof part['index'] === 'number' ? part['index'] : calls.size;
        const call = calls.get(index) ?? { id: '', name: '', argumentsText: '' };
        const fn = isObject(part['function']) ? part['function'] : {};
        if (typeof part['id'] === 'string') call.id = part['id'];
        if (typeof fn['name'] === 'string') call.name += fn['name'];
        if (typeof fn['arguments'] === 'string') call.argumentsText += fn['arguments'];
        calls.set(index, call);
      }
    }
    const toolCalls = [...calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
    return { reply: { content, toolCalls, finishReason }, ...(id !== undefined ? { id } : {}) };
  },
};
