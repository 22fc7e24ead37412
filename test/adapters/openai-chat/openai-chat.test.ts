/**
 * The OpenAI-compatible Chat Completions adapter against a recorded fetch: the request it
 * sends (tools, tool messages, only the parameters given, the key as a Bearer header), how every
 * failure becomes a ChatFailure (retryable or not, Retry-After), and the check made before any run.
 */
import { describe, expect, it } from 'vitest';
import { OpenAiChatModel, parseCompletion, parseRetryAfter } from '../../../src/adapters/openai-chat/index.js';

interface Sent {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: unknown;
}

function fakeFetch(answer: (sent: Sent) => Response | Promise<Response>): { fetch: typeof fetch; sent: Sent[] } {
  const sent: Sent[] = [];
  const fetchFn = (async (url: string | URL | Request, init?: RequestInit) => {
    const s: Sent = {
      // eslint-disable-next-line @typescript-eslint/no-base-to-string -- fetch gets a URL string here
      url: String(url),
      method: init?.method ?? 'GET',
      headers: init?.headers as Record<string, string>,
      // eslint-disable-next-line @typescript-eslint/no-base-to-string -- the adapter sends a JSON string body
      body: init?.body === undefined ? undefined : JSON.parse(String(init.body)),
    };
    sent.push(s);
    return answer(s);
  }) as typeof fetch;
  return { fetch: fetchFn, sent };
}

const ok = (body: unknown, headers: Record<string, string> = {}) => new Response(JSON.stringify(body), { status: 200, headers });
const completion = (message: unknown) => ({ choices: [{ index: 0, message, finish_reason: 'stop' }] });

function model(f: typeof fetch, apiKey?: string) {
  return new OpenAiChatModel({
    baseUrl: 'http://127.0.0.1:11434/v1/',
    model: 'qwen3:14b',
    timeoutMs: 1000,
    fetch: f,
    ...(apiKey ? { apiKey } : {}),
  });
}

describe('R-13 OpenAI-compatible chat adapter', () => {
  it('sends the conversation, the tools as functions, temperature and seed only when given, the key as Bearer', async () => {
    const { fetch, sent } = fakeFetch(() => ok(completion({ role: 'assistant', content: 'hi' })));
    const outcome = await model(fetch, 'sk-test').complete({
      messages: [
        { role: 'system', content: 'S' },
        { role: 'user', content: 'U' },
        { role: 'assistant', content: null, toolCalls: [{ id: 'c1', name: 'create_booking', argumentsText: '{"a":1}' }] },
        { role: 'tool', toolCallId: 'c1', content: 'R' },
      ],
      tools: [{ name: 'create_booking', description: 'Books.', parameters: { type: 'object' } }],
      seed: 7,
    });
    expect(outcome).toEqual({ ok: true, reply: { content: 'hi', toolCalls: [], finishReason: 'stop' } });
    expect(sent[0]!.url).toBe('http://127.0.0.1:11434/v1/chat/completions');
    expect(sent[0]!.headers['authorization']).toBe('Bearer sk-test');
    expect(sent[0]!.body).toEqual({
      model: 'qwen3:14b',
      stream: false,
      seed: 7,
      messages: [
        { role: 'system', content: 'S' },
        { role: 'user', content: 'U' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'create_booking', arguments: '{"a":1}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'R' },
      ],
      tools: [{ type: 'function', function: { name: 'create_booking', description: 'Books.', parameters: { type: 'object' } } }],
    });
  });

  it('reads tool calls; arguments sent as an object are kept as JSON text; a missing id is made up', () => {
    expect(
      parseCompletion(
        completion({
          content: null,
          tool_calls: [{ function: { name: 'x', arguments: { a: 1 } } }, { id: 'k', function: { name: 'y', arguments: '{' } }],
        }),
      ),
    ).toEqual({
      content: null,
      finishReason: 'stop',
      toolCalls: [
        { id: 'call_1', name: 'x', argumentsText: '{"a":1}' },
        { id: 'k', name: 'y', argumentsText: '{' },
      ],
    });
    expect(parseCompletion({ choices: [] })).toBeNull();
    expect(parseCompletion({ choices: [{ message: { content: 5 } }] })).toBeNull();
    expect(parseCompletion('x')).toBeNull();
  });

  it("R-18: reads the answer's token usage for the traces; a count that is not a whole number is left out", () => {
    const withUsage = (usage: unknown): unknown => ({ ...(completion({ content: 'ok' }) as object), usage });
    expect(parseCompletion(withUsage({ prompt_tokens: 120, completion_tokens: 7, total_tokens: 127 }))?.usage).toEqual({
      inputTokens: 120,
      outputTokens: 7,
    });
    expect(parseCompletion(withUsage({ prompt_tokens: 3, completion_tokens: -1 }))?.usage).toEqual({ inputTokens: 3 });
    expect(parseCompletion(withUsage({ prompt_tokens: '3', completion_tokens: 1.5 }))?.usage).toBeUndefined();
    expect(parseCompletion(withUsage(null))?.usage).toBeUndefined();
    expect(parseCompletion(completion({ content: 'ok' }))).not.toHaveProperty('usage');
    expect(parseCompletion({ choices: [{ message: { content: 5 } }] })).toBeNull();
    expect(parseCompletion('x')).toBeNull();
  });

  it('content as a list of parts (as some OpenAI-compatible servers send it): the text parts joined, not an unparseable answer', () => {
    const parts = [
      { type: 'text', text: 'YES. ' },
      { type: 'image_url', image_url: { url: 'x' } },
      { type: 'text', text: 'It is booked.' },
    ];
    expect(parseCompletion(completion({ content: parts }))).toEqual({
      content: 'YES. It is booked.',
      finishReason: 'stop',
      toolCalls: [],
    });
    expect(parseCompletion(completion({ content: [] }))).toMatchObject({ content: null });
    expect(parseCompletion(completion({ content: [5] }))).toBeNull();
  });

  it('5xx, 429 and 408 are retryable (with Retry-After), other 4xx are not; a body that is not a completion is unparseable', async () => {
    const cases: Array<[Response, Record<string, unknown>]> = [
      [
        new Response('{"error":{"message":"boom"}}', { status: 500 }),
        { kind: 'http', status: 500, retryable: true, detail: 'HTTP 500: boom' },
      ],
      [
        new Response('{"error":"slow down"}', { status: 429, headers: { 'retry-after': '3' } }),
        { kind: 'http', status: 429, retryable: true, retryAfterMs: 3000, detail: 'HTTP 429: slow down' },
      ],
      [new Response('', { status: 404 }), { kind: 'http', status: 404, retryable: false, detail: 'HTTP 404' }],
      [
        new Response('<html>', { status: 200 }),
        { kind: 'unparseable', retryable: true, detail: 'the answer is not JSON: <html>' },
      ],
      [ok({ object: 'list' }), { kind: 'unparseable', retryable: true }],
      // Some gateways answer 200 with an error object: its message, not the JSON, is the reason.
      [
        ok({ error: { message: 'upstream provider overloaded', code: 502 } }),
        { kind: 'unparseable', retryable: true, detail: 'the answer is an error (HTTP 200): upstream provider overloaded' },
      ],
    ];
    for (const [response, failure] of cases) {
      const { fetch } = fakeFetch(() => response);
      const outcome = await model(fetch).complete({ messages: [], tools: [] });
      expect(outcome.ok).toBe(false);
      if (!outcome.ok) expect(outcome.failure).toMatchObject(failure);
    }
  });

  it('a network error and a time-out are retryable failures', async () => {
    const down = await model(
      fakeFetch(() => Promise.reject(new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:9') })))
        .fetch,
    ).complete({ messages: [], tools: [] });
    expect(down).toEqual({
      ok: false,
      failure: { kind: 'network', retryable: true, detail: 'fetch failed: connect ECONNREFUSED 127.0.0.1:9' },
    });
    const slow = new OpenAiChatModel({
      baseUrl: 'http://x/v1',
      model: 'm',
      timeoutMs: 20,
      fetch: (_u: unknown, init?: RequestInit) =>
        new Promise((_r, reject) => init?.signal?.addEventListener('abort', () => reject(new Error('aborted')))),
    });
    expect(await slow.complete({ messages: [], tools: [] })).toEqual({
      ok: false,
      failure: { kind: 'timeout', retryable: true, detail: 'no answer within 0.02 s' },
    });
  });

  it('an answer over 32 MB is not read to its end (the trial does not hold it in memory): an unparseable, retryable failure', async () => {
    const chunk = new Uint8Array(1024 * 1024).fill(0x61);
    let pulled = 0;
    const huge = () =>
      new Response(
        new ReadableStream<Uint8Array>({
          pull(controller) {
            pulled++;
            if (pulled > 64) controller.close();
            else controller.enqueue(chunk);
          },
        }),
        { status: 200 },
      );
    const outcome = await model(fakeFetch(huge).fetch).complete({ messages: [], tools: [] });
    expect(outcome).toEqual({
      ok: false,
      failure: { kind: 'unparseable', retryable: true, detail: 'the answer is larger than 32 MB; not read further' },
    });
    expect(pulled).toBeLessThan(40);
  });

  it('a base URL with a query (Azure-style ?api-version=…) keeps it after the path', async () => {
    const { fetch, sent } = fakeFetch(() => ok(completion({ role: 'assistant', content: 'hi' })));
    const azure = new OpenAiChatModel({
      baseUrl: 'https://example.test/openai/deployments/gpt4o/?api-version=2024-06-01',
      model: 'gpt-4o',
      timeoutMs: 1000,
      fetch,
    });
    expect((await azure.complete({ messages: [], tools: [] })).ok).toBe(true);
    await azure.check();
    expect(sent.map((s) => s.url)).toEqual([
      'https://example.test/openai/deployments/gpt4o/chat/completions?api-version=2024-06-01',
      'https://example.test/openai/deployments/gpt4o/models?api-version=2024-06-01',
    ]);
  });

  it('Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('2', 0)).toBe(2000);
    expect(parseRetryAfter('0.5', 0)).toBe(500);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4000)).toBe(6000);
    expect(parseRetryAfter('soon', 0)).toBeUndefined();
    // Neither seconds nor an HTTP date (Date.parse reads "-1" and "7" as years): the back-off applies, not "retry now".
    expect(parseRetryAfter('-1', 1e12)).toBeUndefined();
    expect(parseRetryAfter('-30', 1e12)).toBeUndefined();
    expect(parseRetryAfter('1.2.3', 1e12)).toBeUndefined();
    expect(parseRetryAfter(null, 0)).toBeUndefined();
  });

  it('check before any run: the model must be listed (":latest" counts); no model list is fine; an unreachable endpoint is not', async () => {
    const listing = fakeFetch(() => ok({ data: [{ id: 'llama3.1:8b' }, { id: 'qwen3:14b:latest' }] }));
    expect(await model(listing.fetch).check()).toEqual({ ok: true });
    expect(listing.sent[0]).toMatchObject({ method: 'GET', url: 'http://127.0.0.1:11434/v1/models' });
    expect(await model(fakeFetch(() => ok({ data: [{ id: 'llama3.1:8b' }] })).fetch).check()).toEqual({
      ok: false,
      reason: 'unknown model "qwen3:14b" at http://127.0.0.1:11434/v1/ (it lists: llama3.1:8b)',
    });
    expect(await model(fakeFetch(() => new Response('', { status: 404 })).fetch).check()).toEqual({ ok: true });
    expect(await model(fakeFetch(() => new Response('{"error":"bad key"}', { status: 401 })).fetch).check()).toEqual({
      ok: false,
      reason: 'model endpoint http://127.0.0.1:11434/v1/ is not usable: HTTP 401: bad key',
    });
  });

  it('an API key in the base URL (query or user info) never appears in the reasons it gives; api-version is kept', async () => {
    const keyed = (f: typeof fetch, baseUrl: string) =>
      new OpenAiChatModel({ baseUrl, model: 'qwen3:14b', timeoutMs: 1000, fetch: f });
    const base = 'https://gw.example.test/v1?api-version=2024-06-01&key=sk-SECRET-1&token=sk-SECRET-2#sk-SECRET-3';
    const refused = await keyed(fakeFetch(() => new Response('{"error":"bad key"}', { status: 401 })).fetch, base).check();
    expect(refused).toEqual({
      ok: false,
      reason:
        'model endpoint https://gw.example.test/v1?api-version=2024-06-01&key=***&token=*** is not usable: HTTP 401: bad key',
    });
    const unknown = await keyed(
      fakeFetch(() => ok({ data: [{ id: 'a\nforged line' }] })).fetch,
      'https://u:sk-SECRET@gw.example.test/v1',
    ).check();
    expect(unknown).toEqual({
      ok: false,
      reason: 'unknown model "qwen3:14b" at https://***:***@gw.example.test/v1 (it lists: "a\\nforged line")',
    });
  });

  it('a request too large to encode (JSON.stringify gives up near 512 MB) is a failure of that run, not a throw that ends the trial', async () => {
    const { fetch, sent } = fakeFetch(() => ok(completion({ role: 'assistant', content: 'hi' })));
    // Stands for a conversation past V8's longest string: encoding it throws RangeError("Invalid string length").
    const tooLong = {
      toJSON() {
        throw new RangeError('Invalid string length');
      },
    } as unknown as string;
    expect(await model(fetch).complete({ messages: [{ role: 'user', content: tooLong }], tools: [] })).toEqual({
      ok: false,
      failure: { kind: 'request', retryable: false, detail: 'the request cannot be encoded: Invalid string length' },
    });
    expect(sent).toEqual([]);
  });
});
