import { request as httpRequest } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentCloseReason, AgentSessionHandler } from '../../../../src/ports/agent-side.port.js';
import type { ToolCallRequest, ToolCallResult, ToolDescriptor } from '../../../../src/ports/shapes/mcp-shapes.js';
import {
  DEFAULT_MAX_SESSIONS,
  DEFAULT_SESSION_IDLE_TIMEOUT_MS,
  defaultAllowedHosts,
  HostGuard,
  HttpAgentSide,
  parseListenAddress,
  SessionLimits,
  type HttpAgentSideOptions,
} from '../../../../src/adapters/http-agent/index.js';
import { ManualClock } from '../../../../src/adapters/time/manual-clock.js';

type Json = Record<string, unknown>;

/** A session handler that records what reached it. */
class RecordingHandler implements AgentSessionHandler {
  readonly calls: Array<{ request: ToolCallRequest; signal: AbortSignal }> = [];
  readonly closes: AgentCloseReason[] = [];
  tools: ToolDescriptor[] = [{ name: 'create_order', inputSchema: { type: 'object' }, x_vendor_ext: 1 }];
  answer: (request: ToolCallRequest, signal: AbortSignal) => Promise<ToolCallResult> = async (request) => ({
    content: [{ type: 'text', text: `ok ${request.name}` }],
  });

  constructor(readonly sessionId: string) {}

  async listTools(): Promise<ToolDescriptor[]> {
    return this.tools;
  }
  async callTool(request: ToolCallRequest, context: { signal: AbortSignal }): Promise<ToolCallResult> {
    this.calls.push({ request, signal: context.signal });
    return this.answer(request, context.signal);
  }
  closed(reason: AgentCloseReason): void {
    this.closes.push(reason);
  }
}

async function until(condition: () => boolean, what = 'condition'): Promise<void> {
  const deadline = Date.now() + 3000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what} not met in time`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

interface RawReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One raw HTTP request on loopback (node:http, so the Host header can be anything). */
function raw(url: string, init: { method?: string; headers?: Json; body?: string | Buffer }): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const req = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: init.method ?? 'POST',
        headers: init.headers as Record<string, string>,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    req.setTimeout(3000, () => req.destroy(new Error('raw request timed out')));
    req.on('error', reject);
    req.end(init.body);
  });
}

const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };

/** The JSON-RPC messages of an SSE or JSON answer body. */
function messagesOf(reply: RawReply): Json[] {
  if (!String(reply.headers['content-type']).startsWith('text/event-stream')) return [JSON.parse(reply.body) as Json];
  return reply.body
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as Json);
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

/** Opens a session with raw requests; returns its id. */
async function rawInitialize(url: string): Promise<string> {
  const reply = await raw(url, { headers: MCP_HEADERS, body: INITIALIZE });
  const sessionId = reply.headers['mcp-session-id'];
  if (reply.status !== 200 || typeof sessionId !== 'string') throw new Error(`initialize failed: ${reply.status} ${reply.body}`);
  await raw(url, {
    headers: { ...MCP_HEADERS, 'mcp-session-id': sessionId },
    body: '{"jsonrpc":"2.0","method":"notifications/initialized"}',
  });
  return sessionId;
}

const sides: HttpAgentSide[] = [];
const clients: Client[] = [];

type StartOptions = Partial<HttpAgentSideOptions> & { instructions?: string };

async function start(options: StartOptions = {}) {
  const handlers: RecordingHandler[] = [];
  const { instructions, ...settings } = options;
  const side = new HttpAgentSide({ host: '127.0.0.1', port: 0, ...settings });
  sides.push(side);
  const openSession = (sessionId: string): RecordingHandler => {
    const handler = new RecordingHandler(sessionId);
    handlers.push(handler);
    return handler;
  };
  await side.serve(openSession, { serverName: 'proxy', serverVersion: '9.9.9', instructions });
  return { side, handlers, url: side.address.url };
}

async function connect(url: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'agent', version: '1' });
  clients.push(client);
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  return { client, transport };
}

afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((client) => client.close()));
  await Promise.allSettled(sides.splice(0).map((side) => side.close()));
});

describe('HttpAgentSide: verbatim forwarding over Streamable HTTP (R-8.5)', () => {
  it('R-8.5: initialize returns the upstream instructions; the URL is http://127.0.0.1:<port>/mcp', async () => {
    const { url, side } = await start({ instructions: 'UPSTREAM INSTRUCTIONS: be careful' });
    expect(url).toBe(`http://127.0.0.1:${side.address.port}/mcp`);
    expect(side.address.port).toBeGreaterThan(0);
    const { client } = await connect(url);
    expect(client.getInstructions()).toBe('UPSTREAM INSTRUCTIONS: be careful');
    expect(client.getServerVersion()).toEqual({ name: 'proxy', version: '9.9.9' });
  });

  it('R-8.5: tools/list returns the handler tools unchanged, unknown fields included', async () => {
    const { url, handlers } = await start();
    const sessionId = await rawInitialize(url);
    const reply = await raw(url, {
      headers: { ...MCP_HEADERS, 'mcp-session-id': sessionId },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    });
    expect(messagesOf(reply)[0]?.['result']).toEqual({ tools: handlers[0]?.tools });
  });

  it('R-8.5: a __proto__ argument key, params extras and _meta reach the handler verbatim', async () => {
    const { url, handlers } = await start();
    const sessionId = await rawInitialize(url);
    const body =
      '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"create_order","extraParam":1,' +
      '"arguments":{"__proto__":{"polluted":true},"qty":2},"_meta":{"progressToken":"p1"}}}';
    const reply = await raw(url, { headers: { ...MCP_HEADERS, 'mcp-session-id': sessionId }, body });
    expect(messagesOf(reply)[0]?.['id']).toBe(7);
    const request = handlers[0]?.calls[0]?.request;
    expect(request?.name).toBe('create_order');
    expect(request?.meta).toEqual({ progressToken: 'p1' });
    const args = request?.arguments as object;
    expect(Object.keys(args)).toEqual(['__proto__', 'qty']);
    expect(Object.getOwnPropertyDescriptor(args, '__proto__')?.value).toEqual({ polluted: true });
  });

  it('R-8.5: result extras reach the agent unchanged and no isError:false is added', async () => {
    const { url, handlers } = await start();
    const sessionId = await rawInitialize(url);
    const result = {
      content: [{ type: 'text', text: 'done', extraBlockField: 'kept' }],
      structuredContent: { orderId: 'A1' },
      _meta: { trace: 'x' },
      extraResultField: [1, 2],
    };
    for (const handler of handlers) handler.answer = async () => result;
    const body = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'create_order', arguments: {} } });
    const reply = await raw(url, { headers: { ...MCP_HEADERS, 'mcp-session-id': sessionId }, body });
    expect(messagesOf(reply)[0]?.['result']).toEqual(result);
    expect(Object.hasOwn(messagesOf(reply)[0]?.['result'] as Json, 'isError')).toBe(false);
  });

  it('R-8.5 only tools: an unknown method is answered -32601 Method not found', async () => {
    const { url } = await start();
    const { client } = await connect(url);
    await expect(client.listResources()).rejects.toMatchObject({ code: -32601 });
  });
});

describe('HttpAgentSide: one handler per MCP session (never mix two agents)', () => {
  it('two concurrent clients get two handlers with different session ids, each seeing only its calls', async () => {
    const { url, handlers } = await start();
    const [a, b] = await Promise.all([connect(url), connect(url)]);
    await Promise.all([a.client.callTool({ name: 'from_a' }), b.client.callTool({ name: 'from_b' })]);
    expect(handlers).toHaveLength(2);
    expect(handlers[0]?.sessionId).not.toBe(handlers[1]?.sessionId);
    expect(new Set(handlers.map((h) => h.sessionId))).toEqual(new Set([a.transport.sessionId, b.transport.sessionId]));
    const byClient = (transport: StreamableHTTPClientTransport) => handlers.find((h) => h.sessionId === transport.sessionId);
    expect(byClient(a.transport)?.calls.map((c) => c.request.name)).toEqual(['from_a']);
    expect(byClient(b.transport)?.calls.map((c) => c.request.name)).toEqual(['from_b']);
  });

  it('parallel calls in one session are in flight together (call 2 arrives before call 1 resolves)', async () => {
    const { url, handlers } = await start();
    const { client } = await connect(url);
    const handler = handlers[0];
    const releases: Array<() => void> = [];
    if (handler)
      handler.answer = (request) =>
        new Promise((resolve) => releases.push(() => resolve({ content: [{ type: 'text', text: request.name }] })));
    const first = client.callTool({ name: 'a' });
    const second = client.callTool({ name: 'b' });
    await until(() => handler?.calls.length === 2, 'both calls in flight');
    releases[1]?.();
    releases[0]?.();
    expect(await first).toEqual({ content: [{ type: 'text', text: 'a' }] });
    expect(await second).toEqual({ content: [{ type: 'text', text: 'b' }] });
  });

  it('an agent cancel aborts context.signal of that call only', async () => {
    const { url, handlers } = await start();
    const { client } = await connect(url);
    const handler = handlers[0];
    if (handler)
      handler.answer = (_request, signal) =>
        new Promise((resolve) => signal.addEventListener('abort', () => resolve({ content: [] })));
    const controller = new AbortController();
    const cancelled = client.callTool({ name: 'a' }, undefined, { signal: controller.signal }).catch(() => 'rejected');
    void client.callTool({ name: 'b' }).catch(() => undefined);
    await until(() => handler?.calls.length === 2, 'both calls in flight');
    controller.abort('user');
    expect(await cancelled).toBe('rejected');
    await until(() => handler?.calls[0]?.signal.aborted === true, 'call 1 aborted');
    expect(handler?.calls[1]?.signal.aborted).toBe(false);
  });
});

describe('HttpAgentSide: an id reused while its request is in flight (never mis-route an answer)', () => {
  it('a second POST with the id of a call still in flight is refused -32600 and not executed; the first gets its own answer; the id is free again once answered', async () => {
    const { url, handlers } = await start();
    const sessionId = await rawInitialize(url);
    const handler = handlers[0]!;
    const releases: Array<() => void> = [];
    handler.answer = (request) =>
      new Promise((resolve) =>
        releases.push(() => resolve({ content: [{ type: 'text', text: `ok ${JSON.stringify(request.arguments)}` }] })),
      );
    const headers = { ...MCP_HEADERS, 'mcp-session-id': sessionId };
    const call = (item: string) =>
      JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'create_order', arguments: { item } } });
    const first = raw(url, { headers, body: call('A') });
    await until(() => handler.calls.length === 1, 'call A in flight');
    const second = await raw(url, { headers, body: call('B') });
    expect(second.status).toBe(400);
    expect(JSON.parse(second.body)).toMatchObject({ id: 5, error: { code: -32600 } });
    expect(handler.calls).toHaveLength(1);
    releases[0]!();
    expect(messagesOf(await first)).toEqual([
      { jsonrpc: '2.0', id: 5, result: { content: [{ type: 'text', text: 'ok {"item":"A"}' }] } },
    ]);
    const third = raw(url, { headers, body: call('C') });
    await until(() => handler.calls.length === 2, 'call C in flight');
    releases[1]!();
    expect(messagesOf(await third)[0]).toMatchObject({ id: 5, result: { content: [{ type: 'text', text: 'ok {"item":"C"}' }] } });
  });

  it('a call the agent cancels ends its POST (no answer, as MCP says) instead of leaving the stream open; a batch keeps its other answers', async () => {
    const { url, handlers } = await start();
    const sessionId = await rawInitialize(url);
    const handler = handlers[0]!;
    let releaseFast = (): void => undefined;
    handler.answer = (request, signal) =>
      request.name === 'slow'
        ? new Promise((resolve) => signal.addEventListener('abort', () => resolve({ content: [] })))
        : new Promise((resolve) => (releaseFast = () => resolve({ content: [{ type: 'text', text: request.name }] })));
    const headers = { ...MCP_HEADERS, 'mcp-session-id': sessionId };
    const call = (id: number, name: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name } });
    const cancel = (requestId: number) =>
      raw(url, { headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId } }) });
    const single = raw(url, { headers, body: JSON.stringify(call(21, 'slow')) });
    await until(() => handler.calls.length === 1, 'call 21 in flight');
    await cancel(21);
    const ended = await single;
    expect(ended.status).toBe(200);
    expect(messagesOf(ended)).toEqual([]);
    const batch = raw(url, { headers, body: JSON.stringify([call(22, 'slow'), call(23, 'fast')]) });
    await until(() => handler.calls.length === 3, 'calls 22 and 23 in flight');
    await cancel(22);
    // While its POST is open, the cancelled id is not free: closing that POST must not close a new one.
    const reuse = await raw(url, { headers, body: JSON.stringify(call(22, 'again')) });
    expect(reuse.status).toBe(400);
    releaseFast();
    expect(messagesOf(await batch)).toEqual([{ jsonrpc: '2.0', id: 23, result: { content: [{ type: 'text', text: 'fast' }] } }]);
  });

  it('"5" and 5 are different ids; an id cancelled by the agent is free again', async () => {
    const { url, handlers } = await start();
    const sessionId = await rawInitialize(url);
    const handler = handlers[0]!;
    handler.answer = (_request, signal) =>
      new Promise((resolve) => signal.addEventListener('abort', () => resolve({ content: [] })));
    const headers = { ...MCP_HEADERS, 'mcp-session-id': sessionId };
    const call = (id: number | string) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'x' } });
    void raw(url, { headers, body: call(5) }).catch(() => undefined);
    void raw(url, { headers, body: call('5') }).catch(() => undefined);
    await until(() => handler.calls.length === 2, 'both calls in flight');
    await raw(url, {
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5 } }),
    });
    await until(() => handler.calls[0]?.signal.aborted === true, 'call 5 aborted');
    void raw(url, { headers, body: call(5) }).catch(() => undefined);
    await until(() => handler.calls.length === 3, 'id 5 used again after its cancel');
  });
});

describe('HttpAgentSide: session end (R-8.8)', () => {
  it('R-8.8: DELETE ends only that session; its handler hears disconnected once; its id is then 404', async () => {
    const { url, handlers } = await start();
    const a = await connect(url);
    await connect(url);
    const sessionId = a.transport.sessionId ?? '';
    await a.transport.terminateSession();
    await a.client.close();
    const handler = handlers.find((h) => h.sessionId === sessionId);
    await until(() => (handler?.closes.length ?? 0) > 0, 'closed');
    expect(handler?.closes).toEqual([{ kind: 'disconnected', detail: 'the agent ended the session (DELETE)', byAgent: true }]);
    expect(handlers.find((h) => h.sessionId !== sessionId)?.closes).toEqual([]);
    const after = await raw(url, {
      headers: { ...MCP_HEADERS, 'mcp-session-id': sessionId },
      body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    });
    expect(after.status).toBe(404);
  });

  it('close() with connected clients and a call in flight resolves promptly; every handler heard closed once', async () => {
    const { url, handlers, side } = await start();
    const a = await connect(url);
    await connect(url);
    const first = handlers[0];
    if (first) first.answer = () => new Promise(() => undefined);
    void a.client.callTool({ name: 'hangs' }).catch(() => undefined);
    await until(() => first?.calls.length === 1, 'call in flight');
    // The handler's call never settles: close() resolving at all shows it does not wait for it.
    await side.close();
    expect(handlers.map((h) => h.closes)).toEqual([
      [{ kind: 'disconnected', detail: 'closed by the proxy' }],
      [{ kind: 'disconnected', detail: 'closed by the proxy' }],
    ]);
    expect(first?.calls[0]?.signal.aborted).toBe(false);
    await expect(raw(url, { headers: MCP_HEADERS, body: INITIALIZE })).rejects.toThrow();
  });
});

describe('HttpAgentSide: HTTP guards', () => {
  it('a Host header that is not allowed is refused 403 (DNS-rebinding protection)', async () => {
    const { url, handlers } = await start();
    const reply = await raw(url, { headers: { ...MCP_HEADERS, host: 'evil.example:80' }, body: INITIALIZE });
    expect(reply.status).toBe(403);
    expect(JSON.parse(reply.body)).toMatchObject({ error: { code: -32000, message: 'Invalid Host header: evil.example:80' } });
    expect(handlers).toHaveLength(0);
  });

  it('a foreign Origin is refused 403; a loopback Origin is served', async () => {
    const { url, handlers } = await start();
    const foreign = await raw(url, { headers: { ...MCP_HEADERS, origin: 'http://evil.example' }, body: INITIALIZE });
    expect(foreign.status).toBe(403);
    expect(handlers).toHaveLength(0);
    const local = await raw(url, { headers: { ...MCP_HEADERS, origin: 'http://localhost:5173' }, body: INITIALIZE });
    expect(local.status).toBe(200);
  });

  it('a body over the limit is answered 413 and opens no session', async () => {
    const { url, handlers } = await start({ maxBodyBytes: 1000 });
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { pad: 'x'.repeat(2000) } });
    const reply = await raw(url, { headers: MCP_HEADERS, body });
    expect(reply.status).toBe(413);
    expect(handlers).toHaveLength(0);
  });

  it('the default limit is 10 MiB: an 11 MiB body is answered 413', async () => {
    const { url } = await start();
    const reply = await raw(url, { headers: MCP_HEADERS, body: Buffer.alloc(11 * 1024 * 1024, 0x61) });
    expect(reply.status).toBe(413);
  });

  it('malformed JSON is answered with a JSON-RPC parse error, not dropped', async () => {
    const { url } = await start();
    const reply = await raw(url, { headers: MCP_HEADERS, body: '{"jsonrpc":"2.0","id":1,' });
    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.body)).toMatchObject({ id: null, error: { code: -32700 } });
  });

  it('R-13: ids a number cannot hold are answered -32600 with the id exactly as sent, before and inside a session; nothing reaches the handler', async () => {
    const { url, handlers } = await start();
    for (const token of ['12345678901234567890', '1e300', '1.5', '-9007199254740993']) {
      const reply = await raw(url, {
        headers: MCP_HEADERS,
        body: `{"jsonrpc":"2.0","id":${token},"method":"initialize","params":{}}`,
      });
      expect(reply.status).toBe(400);
      expect(reply.body).toContain(`"id":${token},`);
      expect(JSON.parse(reply.body)).toMatchObject({ error: { code: -32600 } });
    }
    expect(handlers).toHaveLength(0);
    const sessionId = await rawInitialize(url);
    const call = `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"create_order","arguments":{}},"id":12345678901234567890}`;
    const inSession = await raw(url, { headers: { ...MCP_HEADERS, 'mcp-session-id': sessionId }, body: call });
    expect(inSession.status).toBe(400);
    expect(inSession.body).toContain('"id":12345678901234567890,');
    expect(handlers[0]!.calls).toHaveLength(0);
    // A safe id in the same session is still served: the pre-read body reaches the SDK parsed.
    const ok = await raw(url, {
      headers: { ...MCP_HEADERS, 'mcp-session-id': sessionId },
      body: '{"jsonrpc":"2.0","id":7,"method":"tools/list"}',
    });
    expect(ok.status).toBe(200);
    expect(messagesOf(ok)[0]).toMatchObject({ id: 7, result: { tools: expect.any(Array) } });
  });

  it('as over stdio: a body opening with a UTF-8 byte order mark is served, and a call with an extra top-level key is executed, not refused', async () => {
    const { url, handlers } = await start();
    const opened = await raw(url, { headers: MCP_HEADERS, body: `\uFEFF${INITIALIZE}` });
    expect(opened.status).toBe(200);
    expect(typeof opened.headers['mcp-session-id']).toBe('string');
    const sessionId = await rawInitialize(url);
    const headers = { ...MCP_HEADERS, 'mcp-session-id': sessionId };
    const call = { jsonrpc: '2.0', method: 'tools/call', params: { name: 'create_order', arguments: { a: 1 } } };
    const single = await raw(url, { headers, body: JSON.stringify({ ...call, id: 8, extraTopLevel: true }) });
    expect(messagesOf(single)[0]).toMatchObject({ id: 8, result: { content: [{ type: 'text', text: 'ok create_order' }] } });
    const batch = await raw(url, {
      headers,
      body: JSON.stringify([
        { ...call, id: 9, x: 1 },
        { ...call, id: 10 },
      ]),
    });
    expect(messagesOf(batch).map((m) => m['id'])).toEqual([9, 10]);
    const session = handlers.find((handler) => handler.calls.length > 0);
    expect(session?.calls.map((c) => c.request)).toEqual(Array(3).fill({ name: 'create_order', arguments: { a: 1 } }));
  });

  it('a body the SDK refuses before reading it (wrong Content-Type, wrong Accept) keeps the SDK answer', async () => {
    const { url } = await start();
    const body = '{"jsonrpc":"2.0","id":12345678901234567890,"method":"initialize","params":{}}';
    const text = await raw(url, { headers: { ...MCP_HEADERS, 'content-type': 'text/plain' }, body });
    expect(text.status).toBe(415);
    const accept = await raw(url, { headers: { ...MCP_HEADERS, accept: 'application/json' }, body });
    expect(accept.status).toBe(406);
  });

  it('an unknown path is 404; an unknown session id is 404', async () => {
    const { url } = await start();
    const other = await raw(url.replace('/mcp', '/other'), { headers: MCP_HEADERS, body: INITIALIZE });
    expect(other.status).toBe(404);
    const unknown = await raw(url, {
      headers: { ...MCP_HEADERS, 'mcp-session-id': 'no-such-session' },
      body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    });
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body)).toMatchObject({ error: { code: -32001 } });
  });

  it('a port already in use fails serve() with a one-line error', async () => {
    const { side } = await start();
    const second = new HttpAgentSide({ host: '127.0.0.1', port: side.address.port });
    const serving = second.serve(() => new RecordingHandler('x'), { serverName: 'proxy', serverVersion: '1' });
    await expect(serving).rejects.toThrow(/^cannot listen on 127\.0\.0\.1:\d+: .*EADDRINUSE[^\n]*$/);
    await second.close();
  });

  it('an IPv6 loopback bind serves at http://[::1]:<port>/mcp', async () => {
    const { url } = await start({ host: '::1' });
    expect(url).toMatch(/^http:\/\/\[::1\]:\d+\/mcp$/);
    const { client } = await connect(url);
    expect(await client.listTools()).toMatchObject({ tools: [{ name: 'create_order' }] });
  });
});

describe('HttpAgentSide: session cap and idle time-out (R-8.8)', () => {
  /** A listener on a manual clock whose sweeper never fires by itself: the test calls closeIdleSessions(). */
  async function startIdle(idleMs: number, extra: StartOptions = {}) {
    const clock = new ManualClock(1_000_000);
    const notices: string[] = [];
    const started = await start({
      clock,
      sessionIdleTimeoutMs: idleMs,
      idleSweepMs: 2_000_000_000,
      notice: (line) => notices.push(line),
      ...extra,
    });
    return { ...started, clock, notices };
  }

  // Raw sessions: the SDK client opens its GET stream at a moment of its own, which would move the idle time.
  const ping = (url: string, sessionId: string) =>
    raw(url, { headers: { ...MCP_HEADERS, 'mcp-session-id': sessionId }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' });

  it('R-8.8: a session without a request for the time-out is ended like a disconnect, once; its id is then 404', async () => {
    const { url, side, handlers, clock, notices } = await startIdle(60_000);
    const sessionId = await rawInitialize(url);
    clock.advance(59_999);
    await side.closeIdleSessions();
    expect(handlers[0]?.closes).toEqual([]);
    clock.advance(1);
    await side.closeIdleSessions();
    await side.closeIdleSessions();
    expect(handlers[0]?.closes).toEqual([{ kind: 'disconnected', detail: 'idle for 60 s (--session-idle-timeout)' }]);
    expect(side.openSessions).toBe(0);
    expect(notices).toEqual([`agent session ${sessionId.slice(0, 8)} ended: no request for 60 s; its report is final`]);
    expect((await ping(url, sessionId)).status).toBe(404);
  });

  it('R-8.8: every request restarts the idle time; only the idle session of two is ended', async () => {
    const { url, side, handlers, clock } = await startIdle(1000);
    const busy = await rawInitialize(url);
    const idle = await rawInitialize(url);
    clock.advance(900);
    expect((await ping(url, busy)).status).toBe(200);
    clock.advance(900);
    await side.closeIdleSessions();
    const byId = (id: string) => handlers.find((h) => h.sessionId === id);
    expect(byId(busy)?.closes).toEqual([]);
    expect(byId(idle)?.closes).toHaveLength(1);
    clock.advance(100);
    await side.closeIdleSessions();
    expect(byId(busy)?.closes).toHaveLength(1);
  });

  it('R-8.8: a tools/call waiting for its answer keeps the session; the idle time counts from the answer', async () => {
    const { url, side, handlers, clock } = await startIdle(1000);
    const sessionId = await rawInitialize(url);
    const handler = handlers[0]!;
    let release: () => void = () => undefined;
    handler.answer = () => new Promise((resolve) => (release = () => resolve({ content: [] })));
    const body = JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'slow_write', arguments: {} } });
    const answered = raw(url, { headers: { ...MCP_HEADERS, 'mcp-session-id': sessionId }, body });
    await until(() => handler.calls.length === 1, 'the call in flight');
    clock.advance(50_000);
    await side.closeIdleSessions();
    expect(handler.closes).toEqual([]);
    release();
    expect(messagesOf(await answered)[0]).toMatchObject({ id: 5, result: { content: [] } });
    clock.advance(999);
    await side.closeIdleSessions();
    expect(handler.closes).toEqual([]);
    clock.advance(1);
    await side.closeIdleSessions();
    expect(handler.closes).toHaveLength(1);
  });

  it('R-8.8: the sweeper runs by itself (every idleSweepMs)', async () => {
    const { url, handlers, clock } = await startIdle(1000, { idleSweepMs: 5 });
    await rawInitialize(url);
    clock.advance(1000);
    await until(() => handlers[0]?.closes.length === 1, 'the idle session to be ended by the sweeper');
  });

  it('a session over --max-sessions gets HTTP 503 with a JSON-RPC error saying why; after a DELETE there is room again', async () => {
    const { url, handlers } = await start({ maxSessions: 2 });
    const a = await connect(url);
    await connect(url);
    const refused = await raw(url, { headers: MCP_HEADERS, body: INITIALIZE });
    expect(refused.status).toBe(503);
    expect(JSON.parse(refused.body)).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32000,
        message: expect.stringMatching(/^Too many open sessions: this proxy serves at most 2 at once \(--max-sessions\)/),
      },
    });
    const client = new Client({ name: 'third', version: '1' });
    await expect(client.connect(new StreamableHTTPClientTransport(new URL(url)))).rejects.toThrow(
      /Too many open sessions: this proxy serves at most 2/,
    );
    expect(handlers).toHaveLength(2);
    await a.transport.terminateSession();
    await until(() => handlers[0]?.closes.length === 1, 'the DELETE to end session A');
    await connect(url);
    expect(handlers).toHaveLength(3);
  });

  it('parallel initializes never open more sessions than the cap', async () => {
    const { url, handlers, side } = await start({ maxSessions: 3 });
    const replies = await Promise.all(Array.from({ length: 10 }, () => raw(url, { headers: MCP_HEADERS, body: INITIALIZE })));
    expect(replies.filter((r) => r.status === 200)).toHaveLength(3);
    expect(replies.filter((r) => r.status === 503)).toHaveLength(7);
    expect(handlers).toHaveLength(3);
    expect(side.openSessions).toBe(3);
  });

  it('bound before serve(): an initialize waits and is answered once serving, on the same port', async () => {
    const side = new HttpAgentSide({ host: '127.0.0.1', port: 0 });
    sides.push(side);
    await side.bind();
    const port = side.address.port;
    let early: RawReply | undefined;
    const waiting = raw(side.address.url, { headers: MCP_HEADERS, body: INITIALIZE }).then((reply) => (early = reply));
    await until(() => side.waitingRequests === 1, 'the initialize to wait');
    expect(early).toBeUndefined();
    await side.serve((id) => new RecordingHandler(id), { serverName: 'proxy', serverVersion: '1' });
    await waiting;
    expect(early!.status).toBe(200);
    expect(early!.headers['mcp-session-id']).toEqual(expect.any(String));
    expect(side.address.port).toBe(port);
    const { client } = await connect(side.address.url);
    expect(await client.listTools()).toMatchObject({ tools: [{ name: 'create_order' }] });
  });

  it('closed before serve() (the upstream did not start): waiting and later requests get 503 with the reason', async () => {
    const side = new HttpAgentSide({ host: '127.0.0.1', port: 0 });
    sides.push(side);
    await side.bind();
    const url = side.address.url;
    const waiting = raw(url, { headers: MCP_HEADERS, body: INITIALIZE });
    await until(() => side.waitingRequests === 1, 'the initialize to wait');
    await side.close('The proxy could not start: upstream did not start: exit code 1');
    const reply = await waiting;
    expect(reply.status).toBe(503);
    expect(JSON.parse(reply.body)).toMatchObject({
      error: { code: -32000, message: 'The proxy could not start: upstream did not start: exit code 1' },
    });
  });
});

describe('SessionLimits', () => {
  it('defaults: 100 sessions, 30 minutes idle', () => {
    const limits = new SessionLimits();
    expect([limits.maxSessions, limits.idleTimeoutMs]).toEqual([DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_TIMEOUT_MS]);
    expect([DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_TIMEOUT_MS]).toEqual([100, 1_800_000]);
  });

  it('refuses at the cap, counting candidates still opening; a release counts once', () => {
    const limits = new SessionLimits(2, 1000);
    expect(limits.refusal(1)).toBeUndefined();
    const release = limits.reserve();
    expect(limits.refusal(1)).toMatch(
      /^Too many open sessions: this proxy serves at most 2 at once \(--max-sessions\)\. .* 1 s \(--session-idle-timeout\)$/,
    );
    release();
    release();
    expect(limits.refusal(1)).toBeUndefined();
    expect(limits.refusal(2)).toBeDefined();
  });

  it('picks exactly the sessions idle for the time-out or longer', () => {
    const limits = new SessionLimits(10, 1500);
    const since = (startMs: number) => ({ idleMs: (now: number) => now - startMs });
    const sessions = new Map([
      ['a', since(0)],
      ['b', since(500)],
      ['busy', { idleMs: () => 0 }],
    ]);
    expect(limits.idle(sessions, 1499)).toEqual([]);
    expect(limits.idle(sessions, 1500)).toEqual(['a']);
    expect(limits.idle(sessions, 2000)).toEqual(['a', 'b']);
    expect(limits.idleDetail).toBe('idle for 1.5 s (--session-idle-timeout)');
  });
});

describe('defaultAllowedHosts', () => {
  it('a loopback bind accepts the three loopback names; another host only itself', () => {
    expect(defaultAllowedHosts('127.0.0.1', 3000)).toEqual(['127.0.0.1:3000', 'localhost:3000', '[::1]:3000']);
    expect(defaultAllowedHosts('::1', 8080)).toEqual(['127.0.0.1:8080', 'localhost:8080', '[::1]:8080']);
    expect(defaultAllowedHosts('192.168.1.5', 8080)).toEqual(['192.168.1.5:8080']);
  });

  it('a wildcard bind (0.0.0.0, ::) also accepts the Host naming any address of this machine, and its name; never a foreign name', () => {
    const local = { addresses: ['127.0.0.1', '192.0.2.2', 'fd00::2'], hostname: 'buildbox' };
    const allowed = defaultAllowedHosts('0.0.0.0', 3000, local);
    expect(allowed).toEqual(expect.arrayContaining(['127.0.0.1:3000', '192.0.2.2:3000', '[fd00::2]:3000', 'buildbox:3000']));
    expect(defaultAllowedHosts('::', 3000, local)).toEqual(expect.arrayContaining(['192.0.2.2:3000', '[fd00::2]:3000']));
    const guard = new HostGuard(allowed);
    expect(guard.refusal({ host: '192.0.2.2:3000' })).toBeUndefined();
    expect(guard.refusal({ host: '192.0.2.2:3000', origin: 'http://192.0.2.2:3000' })).toBeUndefined();
    expect(guard.refusal({ host: 'attacker.example:3000' })).toMatch(/Invalid Host header/);
  });

  it('on port 80 the Host header without its default port (as browsers and fetch send it) is accepted', () => {
    expect(defaultAllowedHosts('192.168.1.5', 80)).toEqual(['192.168.1.5:80', '192.168.1.5']);
    expect(
      new HostGuard(defaultAllowedHosts('127.0.0.1', 80)).refusal({ host: 'localhost', origin: 'http://localhost' }),
    ).toBeUndefined();
  });
});

describe('parseListenAddress (--listen <host:port>)', () => {
  it.each([
    ['127.0.0.1:3000', { host: '127.0.0.1', port: 3000 }],
    ['localhost:0', { host: 'localhost', port: 0 }],
    ['[::1]:8080', { host: '::1', port: 8080 }],
    [':3000', { host: '127.0.0.1', port: 3000 }],
    ['0.0.0.0:65535', { host: '0.0.0.0', port: 65535 }],
  ])('%s is accepted', (value, expected) => {
    expect(parseListenAddress(value)).toEqual(expected);
  });

  it.each([
    '3000',
    'localhost',
    'localhost:',
    'localhost:65536',
    'localhost:-1',
    'localhost:3e3',
    '::1:8080',
    '[::1]8080',
    '[nope]:80',
    'a b:80',
    'http://x:80',
  ])('%s is refused with a one-line error', (value) => {
    expect(() => parseListenAddress(value)).toThrow(/^invalid listen address "[^\n]*$/);
  });

  it('a port alone is refused with the form that gives it (the port is not missing)', () => {
    expect(() => parseListenAddress('3000')).toThrow(
      'invalid listen address "3000": a port alone; write :3000 for 127.0.0.1:3000 (expected <host>:<port>, e.g. 127.0.0.1:3000)',
    );
    expect(() => parseListenAddress('localhost')).toThrow('invalid listen address "localhost": the port is missing');
  });
});
