/**
 * The model gateway against the official clients of its three wire formats (`openai` for Chat
 * Completions and Responses, `@anthropic-ai/sdk` for Messages), plain and streamed: the stub model's
 * answers must be accepted by the clients' own parsers, tool calls included, and every request the
 * client sent must be one recorded exchange.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ModelGateway, type GatewayAddress } from '../../../../src/adapters/model-gateway/model-gateway.js';
import type { ModelExchange } from '../../../../src/ports/model-gateway.port.js';
import { stubScriptOf } from '../../../../src/adapters/files/stub-model-file.js';
import { StubModel } from '../../../../src/app/stub-model/stub-model.js';
import { requireExample } from '../../../support/example-clients.js';

const OpenAI = requireExample<any>('openai');
const Anthropic = requireExample<any>('@anthropic-ai/sdk');

const TOKEN = 'run-token-1';
const MODEL = 'stub';
const TIMEOUT_TEXT = 'Tool error (isError: true): MCP error -32001: Request timed out.';

const careful = stubScriptOf({
  write: { tool: 'create_booking', arguments: { guest: 'Ann Lee', date: '2026-05-01', idempotency_key: 'k-1' } },
  check: { tool: 'search_bookings', arguments: { guest: 'Ann Lee', date: '2026-05-01' } },
  after_uncertain: 'check-then-stop',
  found_pattern: 'BK-',
  final: { done: 'Booked.', unsure: 'Not sure it was booked.', not_done: 'Not booked.' },
});

const tools = [
  {
    name: 'create_booking',
    description: 'Books a room.',
    parameters: { type: 'object', properties: { guest: { type: 'string' } } },
  },
  { name: 'search_bookings', description: 'Finds bookings.', parameters: { type: 'object', properties: {} } },
];

let gateway: ModelGateway | undefined;
let exchanges: ModelExchange[] = [];

async function start(): Promise<GatewayAddress> {
  exchanges = [];
  gateway = new ModelGateway({
    model: new StubModel(careful),
    token: TOKEN,
    models: [MODEL],
    onExchange: (e) => exchanges.push(e),
  });
  return gateway.start();
}

afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

const openAiTools = tools.map((t) => ({ type: 'function', function: t }));

describe('model gateway: OpenAI Chat Completions with the openai client', () => {
  it.each([false, true])('stream %s: the write, then the check after a time-out, then the final answer', async (stream) => {
    const address = await start();
    const client = new OpenAI({ baseURL: address.openAiBaseUrl, apiKey: TOKEN, maxRetries: 0 });
    const ask = async (messages: unknown[]) => {
      if (!stream) return (await client.chat.completions.create({ model: MODEL, messages, tools: openAiTools })).choices[0];
      const runner = client.chat.completions.stream({
        model: MODEL,
        messages,
        tools: openAiTools,
        stream_options: { include_usage: true },
      });
      return (await runner.finalChatCompletion()).choices[0];
    };
    const user = { role: 'user', content: 'Book a room for Ann Lee on 2026-05-01.' };
    const first = await ask([user]);
    expect(first.finish_reason).toBe('tool_calls');
    const call = first.message.tool_calls[0];
    expect(call).toMatchObject({ id: 'call_stub_1', type: 'function', function: { name: 'create_booking' } });
    expect(JSON.parse(call.function.arguments)).toEqual({ guest: 'Ann Lee', date: '2026-05-01', idempotency_key: 'k-1' });

    const afterTimeout = [user, first.message, { role: 'tool', tool_call_id: call.id, content: TIMEOUT_TEXT }];
    const second = await ask(afterTimeout);
    expect(second.message.tool_calls[0]).toMatchObject({ id: 'call_stub_2', function: { name: 'search_bookings' } });

    const afterCheck = [
      ...afterTimeout,
      second.message,
      { role: 'tool', tool_call_id: 'call_stub_2', content: '[{"id":"BK-0001"}]' },
    ];
    const third = await ask(afterCheck);
    expect(third.finish_reason).toBe('stop');
    expect(third.message.content).toBe('Booked.');
    expect(exchanges.map((e) => [e.format, e.stream, e.status])).toEqual(Array(3).fill(['chat-completions', stream, 200]));
    expect(exchanges[2]!.request.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool']);
  });

  it('a wrong key is refused 401 and a model the gateway does not serve 404, each with a message the client shows', async () => {
    const address = await start();
    const wrongKey = new OpenAI({ baseURL: address.openAiBaseUrl, apiKey: 'sk-real-key', maxRetries: 0 });
    await expect(wrongKey.chat.completions.create({ model: MODEL, messages: [] })).rejects.toMatchObject({ status: 401 });
    const client = new OpenAI({ baseURL: address.openAiBaseUrl, apiKey: TOKEN, maxRetries: 0 });
    const refused = client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
    await expect(refused).rejects.toMatchObject({ status: 404 });
    await expect(refused).rejects.toThrow(/serves "stub", not "gpt-4o"/);
    expect(exchanges).toHaveLength(1);
    expect(exchanges[0]).toMatchObject({ status: 404, model: 'gpt-4o' });
  });

  it('GET /v1/models lists the served model to both clients', async () => {
    const address = await start();
    const openai = new OpenAI({ baseURL: address.openAiBaseUrl, apiKey: TOKEN, maxRetries: 0 });
    const listed: string[] = [];
    for await (const model of openai.models.list()) listed.push(model.id);
    expect(listed).toEqual([MODEL]);
    const anthropic = new Anthropic({ baseURL: address.url, apiKey: TOKEN, maxRetries: 0 });
    const page = await anthropic.models.list();
    expect(page.data.map((m: { id: string }) => m.id)).toEqual([MODEL]);
  });
});

describe('model gateway: OpenAI Responses with the openai client', () => {
  it.each([false, true])('stream %s: a function call, its output, and a continuation by previous_response_id', async (stream) => {
    const address = await start();
    const client = new OpenAI({ baseURL: address.openAiBaseUrl, apiKey: TOKEN, maxRetries: 0 });
    const responseTools = tools.map((t) => ({ type: 'function', strict: false, ...t }));
    const ask = async (body: Record<string, unknown>) =>
      stream
        ? await client.responses.stream({ model: MODEL, tools: responseTools, ...body }).finalResponse()
        : await client.responses.create({ model: MODEL, tools: responseTools, ...body });
    const first = await ask({ instructions: 'You book rooms.', input: 'Book a room for Ann Lee on 2026-05-01.' });
    const call = first.output.find((item: { type: string }) => item.type === 'function_call');
    expect(call).toMatchObject({ call_id: 'call_stub_1', name: 'create_booking' });
    expect(JSON.parse(call.arguments)).toMatchObject({ guest: 'Ann Lee' });

    const second = await ask({
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: '{"id":"BK-0001","guest":"Ann Lee"}' }],
    });
    expect(second.output_text).toBe('Booked.');
    expect(exchanges[1]!.request.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
  });
});

describe('model gateway: the Responses conversations it keeps for previous_response_id', () => {
  it('keeps the last 64 (docs/model-gateway.md): a continuation of an older answer is a 400 that says so, of a kept one is served', async () => {
    const address = await start();
    const ask = (body: Record<string, unknown>) =>
      fetch(`${address.openAiBaseUrl}/responses`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: MODEL, ...body }),
      });
    const ids: string[] = [];
    for (let i = 0; i < 65; i++) {
      const response = await ask({ input: `Book a room for Ann Lee on 2026-05-01 (${i}).` });
      expect(response.status).toBe(200);
      ids.push(((await response.json()) as { id: string }).id);
    }
    const forgotten = await ask({ previous_response_id: ids[0], input: 'And?' });
    expect(forgotten.status).toBe(400);
    expect(((await forgotten.json()) as { error: { message: string } }).error.message).toBe(
      `the model gateway could not read the request: previous_response_id ${JSON.stringify(ids[0])} is no answer of this gateway (it keeps the last 64)`,
    );
    const kept = await ask({ previous_response_id: ids[1], input: 'And?' });
    expect(kept.status).toBe(200);
    expect(exchanges.at(-1)!.request.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
  });
});

describe('model gateway: Anthropic Messages with the @anthropic-ai/sdk client', () => {
  it.each([false, true])('stream %s: tool_use, a tool_result with is_error, then the check', async (stream) => {
    const address = await start();
    const client = new Anthropic({ baseURL: address.url, apiKey: TOKEN, maxRetries: 0 });
    const anthropicTools = tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters }));
    const ask = async (messages: unknown[]) => {
      const body = { model: MODEL, max_tokens: 1024, system: 'You book rooms.', messages, tools: anthropicTools };
      return stream ? await client.messages.stream(body).finalMessage() : await client.messages.create(body);
    };
    const user = { role: 'user', content: 'Book a room for Ann Lee on 2026-05-01.' };
    const first = await ask([user]);
    expect(first.stop_reason).toBe('tool_use');
    expect(first.content).toEqual([
      {
        type: 'tool_use',
        id: 'call_stub_1',
        name: 'create_booking',
        input: { guest: 'Ann Lee', date: '2026-05-01', idempotency_key: 'k-1' },
      },
    ]);
    const failed = {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'call_stub_1', is_error: true, content: 'HTTP 500 Internal Server Error' }],
    };
    const second = await ask([user, { role: 'assistant', content: first.content }, failed]);
    expect(second.content[0]).toMatchObject({ type: 'tool_use', name: 'search_bookings', id: 'call_stub_2' });
    expect(exchanges[1]!.request.messages.at(-1)).toEqual({
      role: 'tool',
      toolCallId: 'call_stub_1',
      content: 'Tool error (isError: true): HTTP 500 Internal Server Error',
    });
  });
});
