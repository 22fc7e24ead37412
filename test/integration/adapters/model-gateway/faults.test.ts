/**
 * Model-side faults (`trial --model-fault`, docs/model-gateway.md "Model-side faults") as the official
 * clients (`openai` for Chat Completions and Responses, `@anthropic-ai/sdk` for Messages) see them through the gateway,
 * in stub mode and in forward mode (in front of a scripted endpoint that counts what reaches it): each
 * fault is seen as exactly that fault — the format's error with its status, `Retry-After`, a request left
 * unanswered, an answer broken off — the client's own retries are answered as usual, and the faulted
 * request never reaches the endpoint.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ModelGateway, type GatewayAddress } from '../../../../src/adapters/model-gateway/model-gateway.js';
import { ForwardGateway } from '../../../../src/adapters/model-gateway/forward.js';
import { anthropicMessages } from '../../../../src/adapters/model-gateway/anthropic-messages.js';
import { chatCompletions } from '../../../../src/adapters/model-gateway/chat-completions.js';
import { responses } from '../../../../src/adapters/model-gateway/responses.js';
import type { WireFormat } from '../../../../src/adapters/model-gateway/wire.js';
import { stubScriptOf } from '../../../../src/adapters/files/stub-model-file.js';
import { StubModel } from '../../../../src/app/stub-model/stub-model.js';
import { ModelFaultTrigger, type ModelFault } from '../../../../src/domain/faults/model-fault.js';
import type { ChatReply } from '../../../../src/ports/chat-model.port.js';
import type { ModelExchange } from '../../../../src/ports/model-gateway.port.js';
import { requireExample } from '../../../support/example-clients.js';

const OpenAI = requireExample<any>('openai');
const Anthropic = requireExample<any>('@anthropic-ai/sdk');

const TOKEN = 'run-token-1';
const MODEL = 'm-1';
const WRITE_ARGS = { guest: 'Ann Lee', date: '2026-05-01', idempotency_key: 'k-1' };

const careful = stubScriptOf({
  write: { tool: 'create_booking', arguments: WRITE_ARGS },
  after_uncertain: 'stop',
  after_follow_up: 'stop',
  final: { done: 'Booked.', unsure: 'Not sure.', not_done: 'Not booked.' },
});

/** The scripted endpoint's answer in every format: one tool call, the write. */
const REPLY: ChatReply = {
  content: null,
  toolCalls: [{ id: 'call_up_1', name: 'create_booking', argumentsText: JSON.stringify(WRITE_ARGS) }],
  finishReason: 'tool_calls',
};
const FORMATS: Record<string, WireFormat> = {
  '/v1/chat/completions': chatCompletions,
  '/v1/responses': responses,
  '/v1/messages': anthropicMessages,
};

interface Endpoint {
  baseUrl: string;
  bodies: string[];
  server: Server;
}

async function startEndpoint(): Promise<Endpoint> {
  const endpoint: Endpoint = { baseUrl: '', bodies: [], server: undefined as unknown as Server };
  endpoint.server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      endpoint.bodies.push(body);
      const format = FORMATS[(req.url ?? '').split('?')[0]!]!;
      const stamp = { id: `up${endpoint.bodies.length}`, created: 1_700_000_000 };
      const parsed = JSON.parse(body) as { stream?: boolean; model: string };
      if (parsed.stream !== true) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify(format.encodeJson(REPLY, MODEL, stamp)));
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const decoded = format.decode(parsed);
      res.end(format.encodeStream(REPLY, MODEL, stamp, decoded).join(''));
    });
  });
  await new Promise<void>((resolve) => endpoint.server.listen(0, '127.0.0.1', resolve));
  endpoint.baseUrl = `http://127.0.0.1:${(endpoint.server.address() as AddressInfo).port}/v1`;
  return endpoint;
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

interface Harness {
  address: GatewayAddress;
  exchanges: ModelExchange[];
  /** The scripted endpoint's requests (forward mode); null in stub mode. */
  endpoint: Endpoint | null;
}

async function start(mode: 'stub' | 'forward', fault: ModelFault): Promise<Harness> {
  const exchanges: ModelExchange[] = [];
  const trigger = new ModelFaultTrigger(fault, { matches: (tool) => tool === 'create_booking', on: 1 });
  const common = { token: TOKEN, models: [MODEL], onExchange: (e: ModelExchange) => exchanges.push(e), fault: trigger };
  if (mode === 'stub') {
    const gateway = new ModelGateway({ ...common, model: new StubModel(careful) });
    closers.push(() => gateway.close());
    return { address: await gateway.start(), exchanges, endpoint: null };
  }
  const endpoint = await startEndpoint();
  closers.push(
    () =>
      new Promise((resolve) => {
        endpoint.server.closeAllConnections();
        endpoint.server.close(() => resolve());
      }),
  );
  const gateway = new ForwardGateway({ ...common, baseUrl: endpoint.baseUrl, apiKey: 'sk-real' });
  closers.push(() => gateway.close());
  return { address: await gateway.start(), exchanges, endpoint };
}

const user = { role: 'user', content: 'Book a room for Ann Lee on 2026-05-01.' };
const tool = { name: 'create_booking', description: 'Books a room.', parameters: { type: 'object', properties: {} } };

interface ClientOptions {
  maxRetries: number;
  timeout?: number;
}

/** One model request of each official client: plain (the answer's tool call names) or streamed (every event received). */
const CLIENTS = {
  openai: {
    async ask(address: GatewayAddress, options: ClientOptions, stream: boolean, seen: unknown[] = []) {
      const client = new OpenAI({ baseURL: address.openAiBaseUrl, apiKey: TOKEN, ...options });
      const body = { model: MODEL, messages: [user], tools: [{ type: 'function', function: tool }] };
      if (!stream) return (await client.chat.completions.create(body)).choices[0].message.tool_calls[0].function.name;
      for await (const chunk of await client.chat.completions.create({ ...body, stream: true })) seen.push(chunk);
      return 'stream ended';
    },
    errorType: (error: any) => error.error?.type,
    /** Whether a streamed event carries (part of) a tool call, and whether one says the answer is complete. */
    toolChunk: (e: any) => e.choices?.[0]?.delta?.tool_calls !== undefined,
    finished: (e: any) => e.choices?.[0]?.finish_reason != null,
  },
  'openai responses': {
    async ask(address: GatewayAddress, options: ClientOptions, stream: boolean, seen: unknown[] = []) {
      const client = new OpenAI({ baseURL: address.openAiBaseUrl, apiKey: TOKEN, ...options });
      const body = { model: MODEL, input: user.content, tools: [{ type: 'function', strict: false, ...tool }] };
      if (!stream) return (await client.responses.create(body)).output.find((o: any) => o.type === 'function_call').name;
      for await (const event of await client.responses.create({ ...body, stream: true })) seen.push(event);
      return 'stream ended';
    },
    errorType: (error: any) => error.error?.type,
    toolChunk: (e: any) => e.type === 'response.output_item.added' && e.item?.type === 'function_call',
    finished: (e: any) => e.type === 'response.completed',
  },
  anthropic: {
    async ask(address: GatewayAddress, options: ClientOptions, stream: boolean, seen: unknown[] = []) {
      const client = new Anthropic({ baseURL: address.url, apiKey: TOKEN, ...options });
      const body = {
        model: MODEL,
        max_tokens: 256,
        messages: [user],
        tools: [{ name: tool.name, description: tool.description, input_schema: tool.parameters }],
      };
      if (!stream) return (await client.messages.create(body)).content.find((b: any) => b.type === 'tool_use').name;
      for await (const event of await client.messages.create({ ...body, stream: true })) seen.push(event);
      return 'stream ended';
    },
    errorType: (error: any) => error.error?.error?.type,
    toolChunk: (e: any) => e.type === 'content_block_start' && e.content_block?.type === 'tool_use',
    finished: (e: any) => e.type === 'message_stop' || e.type === 'message_delta',
  },
} as const;

describe.each(['stub', 'forward'] as const)('model-side faults through the gateway, %s mode', (mode) => {
  describe.each(Object.keys(CLIENTS) as Array<keyof typeof CLIENTS>)('the %s client', (name) => {
    const client = CLIENTS[name];

    it('500 on the second request, maxRetries 2: three requests, the second one faulted, the client gets its answer', async () => {
      const h = await start(mode, { fault: { kind: '500' }, on: { kind: 'request', n: 2 } });
      expect(await client.ask(h.address, { maxRetries: 2 }, false)).toBe('create_booking');
      // Its own retry of the faulted request is answered.
      expect(await client.ask(h.address, { maxRetries: 2 }, false)).toBe('create_booking');
      expect(h.exchanges.map((e) => [e.ordinal, e.status, e.fault ?? null])).toEqual([
        [1, 200, null],
        [2, 500, '500'],
        [3, 200, null],
      ]);
      if (h.endpoint !== null) expect(h.endpoint.bodies).toHaveLength(2);
    });

    it('500 with no retry: the format’s own server error', async () => {
      const h = await start(mode, { fault: { kind: '500' }, on: { kind: 'request', n: 1 } });
      const error: any = await client.ask(h.address, { maxRetries: 0 }, false).catch((e: unknown) => e);
      expect(error.status).toBe(500);
      expect(client.errorType(error)).toBe(name === 'anthropic' ? 'api_error' : 'server_error');
      expect(String(error.message)).toContain('model fault 500');
      if (h.endpoint !== null) expect(h.endpoint.bodies).toHaveLength(0);
    });

    it('429:1: a rate limit with Retry-After 1, which the client honours before its one retry', async () => {
      const h = await start(mode, { fault: { kind: '429', retryAfterSeconds: 1 }, on: { kind: 'request', n: 1 } });
      const error: any = await client.ask(h.address, { maxRetries: 0 }, false).catch((e: unknown) => e);
      expect(error.status).toBe(429);
      expect(error.headers.get('retry-after')).toBe('1');
      expect(client.errorType(error)).toBe(name === 'anthropic' ? 'rate_limit_error' : 'invalid_request_error');
      if (h.endpoint !== null) expect(h.endpoint.bodies).toHaveLength(0);
      const retried = await start(mode, { fault: { kind: '429', retryAfterSeconds: 1 }, on: { kind: 'request', n: 1 } });
      expect(await client.ask(retried.address, { maxRetries: 1 }, false)).toBe('create_booking');
      expect(retried.exchanges.map((e) => [e.status, e.fault ?? null])).toEqual([
        [429, '429:1'],
        [200, null],
      ]);
      // The client waited the Retry-After it was given (a lower bound: never flaky on a slow machine).
      expect(retried.exchanges[1]!.receivedAt - retried.exchanges[0]!.answeredAt).toBeGreaterThanOrEqual(900);
      if (retried.endpoint !== null) expect(retried.endpoint.bodies).toHaveLength(1);
    });

    it('timeout: no answer until the client gives up; its retry is answered', async () => {
      const h = await start(mode, { fault: { kind: 'timeout', ms: 60_000 }, on: { kind: 'request', n: 1 } });
      const error: any = await client.ask(h.address, { maxRetries: 0, timeout: 300 }, false).catch((e: unknown) => e);
      expect(error.constructor.name).toMatch(/ConnectionTimeoutError$/);
      expect(await client.ask(h.address, { maxRetries: 0, timeout: 5_000 }, false)).toBe('create_booking');
      await expect.poll(() => h.exchanges.length).toBe(2);
      expect(h.exchanges[0]).toMatchObject({ status: 0, fault: 'timeout:60000' });
      expect(h.exchanges[0]!.error).toContain('the client gave up');
      if (h.endpoint !== null) expect(h.endpoint.bodies).toHaveLength(1);
    });

    it('timeout:MS: the connection is dropped unanswered after MS', async () => {
      const h = await start(mode, { fault: { kind: 'timeout', ms: 200 }, on: { kind: 'request', n: 1 } });
      const error: any = await client.ask(h.address, { maxRetries: 0, timeout: 10_000 }, false).catch((e: unknown) => e);
      expect(error.constructor.name).toBe('APIConnectionError');
      expect(h.exchanges[0]!.error).toContain('after 200 ms');
      expect(h.exchanges).toHaveLength(1);
      if (h.endpoint !== null) expect(h.endpoint.bodies).toHaveLength(0);
    });

    it('timeout, maxRetries 1: the client gives up, re-sends on its own, and only its re-send reaches the endpoint', async () => {
      const h = await start(mode, { fault: { kind: 'timeout', ms: 60_000 }, on: { kind: 'request', n: 1 } });
      expect(await client.ask(h.address, { maxRetries: 1, timeout: 500 }, false)).toBe('create_booking');
      await expect.poll(() => h.exchanges.length).toBe(2);
      expect(h.exchanges.map((e) => [e.status, e.fault ?? null])).toEqual([
        [0, 'timeout:60000'],
        [200, null],
      ]);
      if (h.endpoint !== null) expect(h.endpoint.bodies).toHaveLength(1);
    });

    it.each([false, true])(
      'cut (streamed: %s), maxRetries 2: the client does not re-send an answer that began; one request, none at the endpoint',
      async (stream) => {
        const h = await start(mode, { fault: { kind: 'cut' }, on: { kind: 'request', n: 1 } });
        const error = await client.ask(h.address, { maxRetries: 2 }, stream).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(Error);
        expect(h.exchanges.map((e) => [e.status, e.fault ?? null])).toEqual([[200, 'cut']]);
        if (h.endpoint !== null) expect(h.endpoint.bodies).toHaveLength(0);
      },
    );

    it('cut, streamed: the stream breaks off after its first tool-call event (stub) or half-way (forward)', async () => {
      const h = await start(mode, { fault: { kind: 'cut' }, on: { kind: 'request', n: 1 } });
      const seen: unknown[] = [];
      const error = await client.ask(h.address, { maxRetries: 0 }, true, seen).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.some(client.finished)).toBe(false);
      // The stub's answer is the write: cut right after the event that starts its tool call.
      if (mode === 'stub') expect(client.toolChunk(seen.at(-1))).toBe(true);
      expect(h.exchanges[0]).toMatchObject({ status: 200, fault: 'cut' });
      expect(h.exchanges[0]!.reply).toBeUndefined();
      if (h.endpoint !== null) expect(h.endpoint.bodies).toHaveLength(0);
    });

    it('cut, plain: the body breaks off half-way; the client’s retry is answered', async () => {
      const h = await start(mode, { fault: { kind: 'cut' }, on: { kind: 'request', n: 1 } });
      const error: any = await client.ask(h.address, { maxRetries: 0 }, false).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      expect(await client.ask(h.address, { maxRetries: 1 }, false)).toBe('create_booking');
      expect(h.exchanges.map((e) => e.fault ?? null)).toEqual(['cut', null]);
      expect(h.exchanges[0]!.error).toMatch(/body was broken off after \d+ of its \d+ bytes/);
      if (h.endpoint !== null) expect(h.endpoint.bodies).toHaveLength(1);
    });
  });
});

describe('model-side faults: after-write', () => {
  it('the first request carrying the write’s result is faulted, not the one before it (forward mode: never sent)', async () => {
    const h = await start('forward', { fault: { kind: '500' }, on: { kind: 'after-write' } });
    const client = new OpenAI({ baseURL: h.address.openAiBaseUrl, apiKey: TOKEN, maxRetries: 0 });
    const tools = [{ type: 'function', function: tool }];
    const first = (await client.chat.completions.create({ model: MODEL, messages: [user], tools })).choices[0].message;
    const withResult = [user, first, { role: 'tool', tool_call_id: first.tool_calls[0].id, content: 'BK-1' }];
    const error: any = await client.chat.completions
      .create({ model: MODEL, messages: withResult, tools })
      .catch((e: unknown) => e);
    expect(error.status).toBe(500);
    await client.chat.completions.create({ model: MODEL, messages: withResult, tools });
    expect(h.exchanges.map((e) => e.fault ?? null)).toEqual([null, '500', null]);
    expect(h.endpoint!.bodies).toHaveLength(2);
  });
});
