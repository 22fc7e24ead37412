/**
 * The model gateway in forward mode (docs/model-gateway.md, "Forward mode") in front of a scripted
 * upstream model server (real HTTP on 127.0.0.1) that answers each of the three wire formats plain and
 * streamed with odd but valid bytes: extra whitespace, an unknown field, `data:` without its space, comment
 * lines, CRLF line ends, and chunks cut at unusual places (inside a line, inside a UTF-8 character). The
 * official clients (`openai`, `@anthropic-ai/sdk`) read the raw bytes through a fetch of their own, so the
 * bodies seen through the gateway can be compared with those seen directly, byte for byte.
 */
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import { gzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ForwardGateway, checkForwardEndpoint } from '../../../../src/adapters/model-gateway/forward.js';
import type { GatewayAddress } from '../../../../src/adapters/model-gateway/model-gateway.js';
import { anthropicMessages } from '../../../../src/adapters/model-gateway/anthropic-messages.js';
import { chatCompletions } from '../../../../src/adapters/model-gateway/chat-completions.js';
import { responses } from '../../../../src/adapters/model-gateway/responses.js';
import type { WireFormat } from '../../../../src/adapters/model-gateway/wire.js';
import type { ChatReply } from '../../../../src/ports/chat-model.port.js';
import type { ModelExchange } from '../../../../src/ports/model-gateway.port.js';
import { requireExample } from '../../../support/example-clients.js';

const OpenAI = requireExample<any>('openai');
const Anthropic = requireExample<any>('@anthropic-ai/sdk');

const KEY = 'sk-real-key-4711';
const TOKEN = 'run-token-1';
const MODEL = 'm-1';

/** What the upstream answers, in every format: a text (with a non-ASCII character) and one tool call. */
const REPLY: ChatReply = {
  content: 'Booking it — é.',
  toolCalls: [{ id: 'call_up_1', name: 'create_booking', argumentsText: '{"guest":"Ann Lee","date":"2026-05-01"}' }],
  finishReason: null,
};
const STAMP = { id: 'up1', created: 1_700_000_000 };

/** Odd but valid JSON: two-space indent, a trailing blank line, an unknown field. */
function oddJson(body: unknown): string {
  return `${JSON.stringify({ ...(body as object), x_unknown_field: { nested: [1, 2] } }, null, 2)}\n\n`;
}

/** Odd but valid SSE: a comment first, `data:` without its space in every other frame, CRLF line ends in Anthropic's. */
function oddStream(format: WireFormat): string {
  const frames = format.encodeStream(REPLY, MODEL, STAMP, { model: MODEL, stream: true, chat: { messages: [], tools: [] } });
  const text = frames.map((frame, i) => (i % 2 === 1 ? frame.replace(/^data: /m, 'data:') : frame)).join('');
  const withComment = `: upstream says hello\n\n${text}`;
  return format.name === 'anthropic-messages' ? withComment.replace(/\n/g, '\r\n') : withComment;
}

/** Cuts the bytes into chunks of 5, 1, 17, 64, 3, … bytes (inside lines, inside a UTF-8 character). */
function oddChunks(bytes: Buffer): Buffer[] {
  const sizes = [5, 1, 17, 64, 3];
  const chunks: Buffer[] = [];
  for (let at = 0, i = 0; at < bytes.length; i++) {
    const size = sizes[i % sizes.length]!;
    chunks.push(bytes.subarray(at, at + size));
    at += size;
  }
  return chunks;
}

const GZIPPED = gzipSync(oddJson(chatCompletions.encodeJson(REPLY, MODEL, STAMP)));

interface Upstream {
  baseUrl: string;
  requests: Array<{ path: string; headers: IncomingHttpHeaders; body: string }>;
  /** Set by a test: the last chunk of a stream waits for it. */
  holdLast?: Promise<void>;
  lastSent: boolean;
  close(): Promise<void>;
}

const FORMATS: Record<string, WireFormat> = {
  '/v1/chat/completions': chatCompletions,
  '/v1/responses': responses,
  '/v1/messages': anthropicMessages,
};

async function startUpstream(): Promise<Upstream> {
  const upstream: Upstream = { baseUrl: '', requests: [], lastSent: false, close: async () => undefined };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      void (async () => {
        const path = (req.url ?? '').split('?')[0]!;
        upstream.requests.push({ path, headers: req.headers, body });
        const script = req.headers['x-script'];
        if (script === '500' || script === '429') {
          const headers = script === '429' ? { 'retry-after': '0', 'x-ratelimit-remaining-requests': '0' } : {};
          res.writeHead(Number(script), { 'content-type': 'application/json', ...headers });
          return res.end(`{"error": {"message": "scripted ${script} for ${KEY}", "type": "server_error"}}  `);
        }
        if (script === 'gzip') {
          res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
          return res.end(GZIPPED);
        }
        if (req.method === 'GET' && path === '/v1/models') {
          res.writeHead(404, { 'content-type': 'application/json' });
          return res.end('{"error":{"message":"no model list here"}}');
        }
        const format = FORMATS[path];
        if (format === undefined) return void res.writeHead(404).end();
        const stream = (JSON.parse(body) as { stream?: boolean }).stream === true;
        if (!stream) {
          res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req_up_1' });
          return res.end(oddJson(format.encodeJson(REPLY, MODEL, STAMP)));
        }
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-request-id': 'req_up_1' });
        const chunks = oddChunks(Buffer.from(oddStream(format), 'utf8'));
        upstream.lastSent = false;
        for (const [i, chunk] of chunks.entries()) {
          if (i === chunks.length - 1 && upstream.holdLast !== undefined) await upstream.holdLast;
          res.write(chunk);
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
        upstream.lastSent = true;
        res.end();
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  upstream.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  upstream.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return upstream;
}

/** A fetch for the official clients that keeps a copy of every body as it arrives (the raw bytes). */
function capturingFetch(onChunk?: () => void) {
  const bodies: Array<Promise<Buffer>> = [];
  const fetchFn = async (url: string, init: RequestInit) => {
    const response = await fetch(url, init);
    if (response.body === null) return response;
    const [mine, theirs] = response.body.tee();
    bodies.push(
      (async () => {
        const chunks: Uint8Array[] = [];
        for await (const chunk of mine as unknown as AsyncIterable<Uint8Array>) {
          onChunk?.();
          chunks.push(chunk);
        }
        return Buffer.concat(chunks);
      })(),
    );
    return new Response(theirs, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  return { fetch: fetchFn, bodies: () => Promise.all(bodies) };
}

/** A request's headers but those of its connection (each hop has its own). */
function withoutConnection(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const { host: _host, connection: _connection, ...rest } = headers;
  return rest;
}

let upstream: Upstream | undefined;
let gateway: ForwardGateway | undefined;
let exchanges: ModelExchange[] = [];

async function setUp(): Promise<{ up: Upstream; address: GatewayAddress }> {
  const up = await startUpstream();
  upstream = up;
  exchanges = [];
  gateway = new ForwardGateway({
    baseUrl: up.baseUrl,
    apiKey: KEY,
    token: TOKEN,
    models: [MODEL],
    onExchange: (e) => exchanges.push(e),
  });
  return { up, address: await gateway.start() };
}

afterEach(async () => {
  await gateway?.close();
  await upstream?.close();
  gateway = undefined;
  upstream = undefined;
});

const userTurn = { role: 'user', content: 'Book a room for Ann Lee on 2026-05-01.' };
const tool = { name: 'create_booking', description: 'Books a room.', parameters: { type: 'object', properties: {} } };

/** One request of each format with its official client, at a base URL (the gateway's or the upstream's). */
const CLIENTS: Record<
  string,
  (base: { openAi: string; anthropic: string }, key: string, fetchFn: unknown, stream: boolean) => Promise<unknown>
> = {
  'chat-completions': async (base, key, fetchFn, stream) => {
    const client = new OpenAI({ baseURL: base.openAi, apiKey: key, maxRetries: 0, fetch: fetchFn });
    const body = { model: MODEL, messages: [userTurn], tools: [{ type: 'function', function: tool }] };
    const done = stream
      ? await client.chat.completions.stream(body).finalChatCompletion()
      : await client.chat.completions.create(body);
    return done.choices[0].message;
  },
  responses: async (base, key, fetchFn, stream) => {
    const client = new OpenAI({ baseURL: base.openAi, apiKey: key, maxRetries: 0, fetch: fetchFn });
    const body = {
      model: MODEL,
      input: userTurn.content,
      instructions: 'You book rooms.',
      tools: [{ type: 'function', strict: false, ...tool }],
    };
    const done = stream ? await client.responses.stream(body).finalResponse() : await client.responses.create(body);
    return done.output;
  },
  'anthropic-messages': async (base, key, fetchFn, stream) => {
    const client = new Anthropic({ baseURL: base.anthropic, apiKey: key, maxRetries: 0, fetch: fetchFn });
    const body = {
      model: MODEL,
      max_tokens: 512,
      system: 'You book rooms.',
      messages: [userTurn],
      tools: [{ name: tool.name, description: tool.description, input_schema: tool.parameters }],
    };
    const done = stream ? await client.messages.stream(body).finalMessage() : await client.messages.create(body);
    return done.content;
  },
};

describe('model gateway, forward mode: the official clients through the gateway and directly', () => {
  describe.each(Object.keys(CLIENTS))('%s', (name) => {
    it.each([false, true])(
      'stream %s: byte-identical bodies, the same parsed answer, the real key upstream, the exchange recorded',
      async (stream) => {
        const { up, address } = await setUp();
        const direct = capturingFetch();
        const directAnswer = await CLIENTS[name]!(
          { openAi: up.baseUrl, anthropic: up.baseUrl.replace(/\/v1$/, '') },
          KEY,
          direct.fetch,
          stream,
        );
        const through = capturingFetch();
        const gatewayAnswer = await CLIENTS[name]!(
          { openAi: address.openAiBaseUrl, anthropic: address.url },
          TOKEN,
          through.fetch,
          stream,
        );

        const [directBytes] = await direct.bodies();
        const [gatewayBytes] = await through.bodies();
        expect(gatewayBytes!.length).toBeGreaterThan(100);
        expect(gatewayBytes!.equals(directBytes!)).toBe(true);
        expect(gatewayAnswer).toEqual(directAnswer);

        // The real key reached the upstream in the client's own header; the run's token never did.
        // The same headers as the client's direct request (the key in its place), and the same body.
        const [directRequest, forwarded] = up.requests;
        expect(JSON.stringify(forwarded!.headers)).not.toContain(TOKEN);
        expect(forwarded!.headers.authorization).toBe(`Bearer ${KEY}`);
        expect(withoutConnection(forwarded!.headers)).toEqual(withoutConnection(directRequest!.headers));
        expect(forwarded!.body).toBe(directRequest!.body);
        expect(up.requests).toHaveLength(2);

        expect(exchanges).toHaveLength(1);
        const [exchange] = exchanges;
        expect(exchange).toMatchObject({ ordinal: 1, format: name, model: MODEL, stream, status: 200 });
        expect(exchange!.error).toBeUndefined();
        expect(exchange!.request.messages.at(-1)).toEqual({ role: 'user', content: userTurn.content });
        expect(exchange!.reply).toMatchObject({
          content: REPLY.content,
          toolCalls: [{ id: 'call_up_1', name: 'create_booking' }],
        });
        expect(JSON.parse(exchange!.reply!.toolCalls[0]!.argumentsText)).toEqual({ guest: 'Ann Lee', date: '2026-05-01' });
      },
    );
  });

  it("a stream is piped as it arrives: the stream's first chunk reaches the client before the upstream sends its last", async () => {
    const { up, address } = await setUp();
    let release!: () => void;
    up.holdLast = new Promise((resolve) => (release = resolve));
    // Released at the latest after 2 s, so a gateway that buffers fails the assertion rather than hangs.
    const fallback = setTimeout(() => release(), 2_000);
    let firstChunkBeforeLast: boolean | undefined;
    const through = capturingFetch(() => {
      if (firstChunkBeforeLast === undefined) {
        firstChunkBeforeLast = !up.lastSent;
        release();
      }
    });
    await CLIENTS['chat-completions']!({ openAi: address.openAiBaseUrl, anthropic: address.url }, TOKEN, through.fetch, true);
    clearTimeout(fallback);
    expect(firstChunkBeforeLast).toBe(true);
    expect(exchanges[0]!.reply?.content).toBe(REPLY.content);
  });

  it.each(['500', '429'])(
    'an upstream %s is passed through once: status, headers and body unchanged, no retry of its own',
    async (status) => {
      const { up, address } = await setUp();
      const through = capturingFetch();
      const client = new OpenAI({ baseURL: address.openAiBaseUrl, apiKey: TOKEN, maxRetries: 0, fetch: through.fetch });
      const failed = client.chat.completions.create({ model: MODEL, messages: [userTurn] }, { headers: { 'x-script': status } });
      await expect(failed).rejects.toMatchObject({ status: Number(status) });
      const error = await failed.catch((e: { headers: Headers }) => e);
      if (status === '429') expect(error.headers.get('x-ratelimit-remaining-requests')).toBe('0');
      expect(up.requests).toHaveLength(1);
      expect(up.requests[0]!.headers['x-script']).toBe(status);
      const [bytes] = await through.bodies();
      expect(bytes!.toString('utf8')).toBe(`{"error": {"message": "scripted ${status} for ${KEY}", "type": "server_error"}}  `);
      expect(exchanges).toHaveLength(1);
      expect(exchanges[0]).toMatchObject({
        status: Number(status),
        error: `the model endpoint answered ${status}: scripted ${status} for ***`,
      });
      expect(exchanges[0]!.reply).toBeUndefined();
    },
  );

  it('a request naming another model is refused 404 by the gateway and never forwarded', async () => {
    const { up, address } = await setUp();
    const client = new OpenAI({ baseURL: address.openAiBaseUrl, apiKey: TOKEN, maxRetries: 0 });
    await expect(client.chat.completions.create({ model: 'gpt-4o', messages: [userTurn] })).rejects.toMatchObject({
      status: 404,
    });
    expect(up.requests).toHaveLength(0);
    expect(exchanges[0]).toMatchObject({ status: 404, notServed: true, model: 'gpt-4o' });
  });

  it('the key goes in the header the client used: x-api-key stays x-api-key', async () => {
    const { up, address } = await setUp();
    const response = await fetch(`${address.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': TOKEN, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, max_tokens: 10, messages: [userTurn] }),
    });
    expect(response.status).toBe(200);
    await response.arrayBuffer();
    expect(up.requests[0]!.headers).toMatchObject({ 'x-api-key': KEY, 'anthropic-version': '2023-06-01' });
    expect(up.requests[0]!.headers.authorization).toBeUndefined();
  });

  it('a compressed answer passes compressed, byte for byte, and is read back decompressed', async () => {
    const { address } = await setUp();
    const raw = await new Promise<{ encoding: string | undefined; bytes: Buffer }>((resolve, reject) => {
      const request = httpRequest(`${address.openAiBaseUrl}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'accept-encoding': 'gzip', 'x-script': 'gzip' },
      });
      request.on('response', (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (c: Buffer) => chunks.push(c));
        answer.on('end', () => resolve({ encoding: answer.headers['content-encoding'], bytes: Buffer.concat(chunks) }));
      });
      request.on('error', reject);
      request.end(JSON.stringify({ model: MODEL, messages: [userTurn] }));
    });
    expect(raw.encoding).toBe('gzip');
    expect(raw.bytes.equals(GZIPPED)).toBe(true);
    expect(exchanges[0]!.reply).toMatchObject({ content: REPLY.content, toolCalls: [{ name: 'create_booking' }] });
  });

  it('a wrong key is refused 401 and never forwarded', async () => {
    const { up, address } = await setUp();
    const client = new OpenAI({ baseURL: address.openAiBaseUrl, apiKey: KEY, maxRetries: 0 });
    await expect(client.chat.completions.create({ model: MODEL, messages: [userTurn] })).rejects.toMatchObject({ status: 401 });
    expect(up.requests).toHaveLength(0);
  });

  it('an answer that cannot be read back is passed through unchanged and recorded with an error', async () => {
    const up = await startUpstream();
    upstream = up;
    // The upstream's /v1/models answer (404, JSON) stands in for an odd body at a path that is a format's.
    const odd = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"choices": "not a list"'),
    );
    await new Promise<void>((resolve) => odd.listen(0, '127.0.0.1', resolve));
    const oddBase = `http://127.0.0.1:${(odd.address() as AddressInfo).port}/v1`;
    exchanges = [];
    gateway = new ForwardGateway({
      baseUrl: oddBase,
      apiKey: undefined,
      token: TOKEN,
      models: [MODEL],
      onExchange: (e) => exchanges.push(e),
    });
    const address = await gateway.start();
    try {
      const response = await fetch(`${address.openAiBaseUrl}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: MODEL, messages: [userTurn] }),
      });
      expect(response.status).toBe(200);
      expect(await response.text()).toBe('{"choices": "not a list"');
      expect(exchanges[0]).toMatchObject({ status: 200, error: 'the answer could not be read back: it is not JSON' });
    } finally {
      odd.closeAllConnections();
      await new Promise((resolve) => odd.close(resolve));
    }
  });
});

/** A port on 127.0.0.1 where nothing listens (it was free a moment ago). */
async function closedPort(): Promise<number> {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  return port;
}

describe('model gateway, forward mode: an endpoint gone during the run', () => {
  it("the program gets a 502 in its format's shape, and the exchange is recorded with the reason", async () => {
    exchanges = [];
    const port = await closedPort();
    gateway = new ForwardGateway({
      baseUrl: `http://127.0.0.1:${port}/v1`,
      apiKey: KEY,
      token: TOKEN,
      models: [MODEL],
      onExchange: (e) => exchanges.push(e),
    });
    const address = await gateway.start();
    const client = new Anthropic({ baseURL: address.url, apiKey: TOKEN, maxRetries: 0 });
    const failed = client.messages.create({ model: MODEL, max_tokens: 10, messages: [userTurn] });
    await expect(failed).rejects.toMatchObject({ status: 502 });
    await expect(failed).rejects.toThrow(/could not be reached: ECONNREFUSED/);
    expect(exchanges[0]).toMatchObject({
      status: 502,
      format: 'anthropic-messages',
      error: `the model endpoint http://127.0.0.1:${port}/v1 could not be reached: ECONNREFUSED`,
    });
  });
});

describe('model gateway, forward mode: the pre-flight check of --base-url', () => {
  it('any HTTP answer is reachable (here a 404 for /models)', async () => {
    const { up } = await setUp();
    expect(await checkForwardEndpoint(up.baseUrl)).toEqual({ ok: true });
  });

  it('a refused connection is one line naming the URL, without the user and password it carries', async () => {
    const port = await closedPort();
    const check = await checkForwardEndpoint(`http://user:${KEY}@127.0.0.1:${port}/v1`);
    expect(check).toEqual({
      ok: false,
      reason: `model endpoint http://***:***@127.0.0.1:${port}/v1 (--base-url) is not reachable: connection refused`,
    });
  });
});
