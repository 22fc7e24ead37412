import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentCloseReason, AgentSessionHandler } from '../../../src/ports/agent-side.port.js';
import type { ToolCallRequest, ToolCallResult, ToolDescriptor } from '../../../src/ports/shapes/mcp-shapes.js';
import { StdioAgentSide } from '../../../src/adapters/stdio-agent/index.js';
import { topLevelNumberIdToken } from '../../../src/adapters/wire/json-rpc-id-token.js';

type Json = Record<string, unknown>;

/** A raw line-JSON agent over two PassThrough streams: no SDK, so nothing is normalised. */
class RawClient {
  readonly stdin = new PassThrough();
  readonly stdout = new PassThrough();
  readonly received: Json[] = [];
  /** Every line as it was written, for what JSON.parse would change (ids beyond 2^53). */
  readonly lines: string[] = [];
  private buffer = '';
  private waiters: Array<() => void> = [];

  constructor() {
    this.stdout.on('data', (chunk: Buffer) => {
      this.buffer += chunk.toString('utf8');
      let index: number;
      while ((index = this.buffer.indexOf('\n')) !== -1) {
        this.lines.push(this.buffer.slice(0, index));
        this.received.push(JSON.parse(this.buffer.slice(0, index)) as Json);
        this.buffer = this.buffer.slice(index + 1);
      }
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  sendLine(text: string): void {
    this.stdin.write(`${text}\n`);
  }

  send(message: Json): void {
    this.sendLine(JSON.stringify(message));
  }

  /** Resolves with the first received message that matches; fails after 2 s. */
  async waitFor(match: (message: Json) => boolean): Promise<Json> {
    const deadline = Date.now() + 2000;
    for (;;) {
      const found = this.received.find(match);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no matching message; got ${JSON.stringify(this.received)}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }

  async request(id: number | string, method: string, params?: Json): Promise<Json> {
    this.send({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
    return this.waitFor((m) => m['id'] === id);
  }

  async initialize(): Promise<Json> {
    const reply = await this.request(0, 'initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'raw', version: '1' },
    });
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return reply;
  }
}

/** A session handler that records what reached it. */
class RecordingHandler implements AgentSessionHandler {
  readonly calls: Array<{ request: ToolCallRequest; signal: AbortSignal }> = [];
  readonly closes: AgentCloseReason[] = [];
  tools: ToolDescriptor[] = [{ name: 'create_order', inputSchema: { type: 'object' }, x_vendor_ext: 1 }];
  answer: (request: ToolCallRequest, signal: AbortSignal) => Promise<ToolCallResult> = async () => ({
    content: [{ type: 'text', text: 'ok' }],
  });

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

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 3000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * Resolves once every promise reaction pending now has run, and those they queued: the check phase comes
 * only after the microtask queue is empty. The side's answer path (handler → SDK → line on stdout) is
 * promise reactions and synchronous stream writes only, so an answer it would write is written by then.
 */
async function everyReactionRun(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
}

const opened: StdioAgentSide[] = [];

async function start(options: { maxMessageBytes?: number; instructions?: string } = {}) {
  const client = new RawClient();
  const handler = new RecordingHandler();
  const side = new StdioAgentSide({ stdin: client.stdin, stdout: client.stdout }, options);
  opened.push(side);
  await side.serve(() => handler, { serverName: 'proxy', serverVersion: '9.9.9', instructions: options.instructions });
  return { client, handler, side };
}

afterEach(async () => {
  for (const side of opened.splice(0)) await side.close();
});

describe('StdioAgentSide: verbatim forwarding (R-8.5)', () => {
  it('R-8.5: the upstream instructions and serverInfo are in the initialize result', async () => {
    const { client } = await start({ instructions: 'UPSTREAM INSTRUCTIONS: be careful' });
    const reply = await client.initialize();
    const result = reply['result'] as Json;
    expect(result['instructions']).toBe('UPSTREAM INSTRUCTIONS: be careful');
    expect(result['serverInfo']).toEqual({ name: 'proxy', version: '9.9.9' });
    expect(result['capabilities']).toEqual({ tools: {} });
  });

  it('R-8.5: tools/list returns the tools unchanged, unknown fields included', async () => {
    const { client, handler } = await start();
    await client.initialize();
    const reply = await client.request(1, 'tools/list');
    expect((reply['result'] as Json)['tools']).toEqual(handler.tools);
  });

  it('R-8.5: a __proto__ argument, params extras and _meta reach the handler verbatim', async () => {
    const { client, handler } = await start();
    await client.initialize();
    client.sendLine(
      '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"create_order","extraParam":1,' +
        '"arguments":{"__proto__":{"polluted":true},"qty":2},"_meta":{"progressToken":"p1"}}}',
    );
    await client.waitFor((m) => m['id'] === 7);
    const request = handler.calls[0]?.request;
    expect(request?.name).toBe('create_order');
    expect(request?.meta).toEqual({ progressToken: 'p1' });
    const args = request?.arguments as object;
    expect(Object.keys(args)).toEqual(['__proto__', 'qty']);
    expect(Object.getOwnPropertyDescriptor(args, '__proto__')?.value).toEqual({ polluted: true });
  });

  it('R-8.5: result extras reach the agent unchanged and no isError:false is added', async () => {
    const { client, handler } = await start();
    const result = {
      content: [{ type: 'text', text: 'done', extraBlockField: 'kept' }],
      structuredContent: { orderId: 'A1' },
      _meta: { trace: 'x' },
      extraResultField: [1, 2],
    };
    handler.answer = async () => result;
    await client.initialize();
    const reply = await client.request(2, 'tools/call', { name: 'create_order', arguments: {} });
    expect(reply['result']).toEqual(result);
    expect(Object.hasOwn(reply['result'] as Json, 'isError')).toBe(false);
  });

  it('tools/call without a string name is answered -32602', async () => {
    const { client } = await start();
    await client.initialize();
    const reply = await client.request(3, 'tools/call', { arguments: {} });
    expect(reply['error']).toMatchObject({ code: -32602 });
  });

  it('R-8.5 only tools: an unknown method is answered -32601 Method not found', async () => {
    const { client } = await start();
    await client.initialize();
    const reply = await client.request(4, 'resources/list');
    expect(reply['error']).toEqual({ code: -32601, message: 'Method not found' });
  });
});

describe('StdioAgentSide: no silent hangs on malformed input', () => {
  it('a line that is not JSON is answered -32700 Parse error with id null', async () => {
    const { client } = await start();
    client.sendLine('{"jsonrpc":"2.0","id":1,');
    const reply = await client.waitFor((m) => m['id'] === null);
    expect(reply).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
  });

  it('a request with an extra top-level key is answered, not dropped', async () => {
    const { client, handler } = await start();
    await client.initialize();
    client.send({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'create_order' }, extraTopLevel: true });
    const reply = await client.waitFor((m) => m['id'] === 9);
    expect(reply['result']).toEqual({ content: [{ type: 'text', text: 'ok' }] });
    expect(handler.calls).toHaveLength(1);
  });

  it('valid JSON that is not JSON-RPC is answered -32600 with its id, or id null (a batch [1,2]: one per member)', async () => {
    const { client } = await start();
    client.send({ jsonrpc: '1.0', id: 'abc', method: 'tools/list' });
    client.sendLine('"text"');
    client.sendLine('[1,2]');
    const withId = await client.waitFor((m) => m['id'] === 'abc');
    expect(withId['error']).toEqual({ code: -32600, message: 'Invalid Request' });
    const withoutId = await client.waitFor((m) => m['id'] === null);
    expect(withoutId['error']).toEqual({ code: -32600, message: 'Invalid Request' });
    await until(() => client.lines.length === 3);
    const invalid = { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } };
    expect(JSON.parse(client.lines[2]!)).toEqual([invalid, invalid]);
  });

  it('R-13: an id a number cannot hold (12345678901234567890, 1e300, 1.5) is answered -32600 with the id token as sent', async () => {
    const { client, handler } = await start();
    await client.initialize();
    const tokens = ['12345678901234567890', '1e300', '1.5', '0.5', '9007199254740993'];
    for (const token of tokens) {
      client.sendLine(`{"jsonrpc":"2.0","id":${token},"method":"tools/call","params":{"name":"create_order","arguments":{}}}`);
    }
    client.sendLine('{"jsonrpc":"2.0","method":"ping","id" : \t1E+400 }');
    await until(() => client.lines.length >= 1 + tokens.length + 1);
    const errors = client.lines.slice(1);
    expect(errors).toEqual(
      [...tokens, '1E+400'].map((token) => `{"jsonrpc":"2.0","id":${token},"error":{"code":-32600,"message":"Invalid Request"}}`),
    );
    expect(handler.calls).toHaveLength(0);
  });

  it('an id that is an object or boolean is still answered with id null; a safe integer id is answered as a number', async () => {
    const { client } = await start();
    client.sendLine('{"jsonrpc":"2.0","id":{"n":12345678901234567890},"method":"ping"}');
    client.sendLine('{"jsonrpc":"2.0","id":true,"method":"ping"}');
    client.sendLine('{"jsonrpc":"2.0","id":9007199254740991,"method":"ping"}');
    await until(() => client.lines.length >= 3);
    expect(client.lines).toEqual([
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}',
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}',
      '{"result":{},"jsonrpc":"2.0","id":9007199254740991}',
    ]);
  });

  it('R-8.5: a UTF-8 byte order mark before the first message (a Windows agent) does not lose its initialize', async () => {
    const { client } = await start();
    client.stdin.write('\uFEFF{"jsonrpc":"2.0","id":1,"method":"ping"}\r\n');
    const reply = await client.waitFor((m) => m['id'] !== undefined);
    expect(reply).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });

  it('an invalid notification is ignored and the session goes on; \\r\\n is tolerated', async () => {
    const { client } = await start();
    client.send({ jsonrpc: '2.0', method: 'notifications/x', params: 'not-an-object' });
    client.stdin.write('{"jsonrpc":"2.0","id":5,"method":"ping"}\r\n');
    const reply = await client.waitFor((m) => m['id'] === 5);
    expect(reply['result']).toEqual({});
    expect(client.received).toHaveLength(1);
  });
});

describe('StdioAgentSide: session end (R-8.8)', () => {
  it('R-8.8: an 11 MiB message ends the session as message-too-large (default 10 MiB limit)', async () => {
    const { client, handler } = await start();
    const big = Buffer.alloc(11 * 1024 * 1024, 0x61);
    client.stdin.write(big);
    await until(() => handler.closes.length > 0);
    expect(handler.closes).toEqual([expect.objectContaining({ kind: 'message-too-large' })]);
  });

  it('a 9 MiB call sent in 64 KiB chunks reaches the handler whole (linear framing: line-framer.test.ts)', async () => {
    const { client, handler } = await start();
    await client.initialize();
    const line = JSON.stringify({
      jsonrpc: '2.0',
      id: 8,
      method: 'tools/call',
      params: { name: 'bulk', arguments: { blob: 'z'.repeat(9 * 1024 * 1024) } },
    });
    const bytes = Buffer.from(`${line}\n`);
    for (let offset = 0; offset < bytes.length; offset += 65536) client.stdin.write(bytes.subarray(offset, offset + 65536));
    await client.waitFor((m) => m['id'] === 8);
    expect((handler.calls[0]?.request.arguments as { blob: string }).blob).toHaveLength(9 * 1024 * 1024);
  });

  it('R-8.8: a message over a small limit, sent in pieces, ends the session; smaller ones pass', async () => {
    const { client, handler } = await start({ maxMessageBytes: 100 });
    expect((await client.request(1, 'ping'))['result']).toEqual({});
    client.stdin.write('x'.repeat(60));
    client.stdin.write('y'.repeat(60));
    await until(() => handler.closes.length > 0);
    expect(handler.closes).toEqual([expect.objectContaining({ kind: 'message-too-large' })]);
    client.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
    // The ended session stopped reading: the ping stays unread in the pipe, so nothing can answer it.
    expect(client.stdin.listenerCount('data')).toBe(0);
    expect(client.stdin.readableLength).toBeGreaterThan(0);
    await everyReactionRun();
    expect(client.received).toHaveLength(1);
  });

  it('R-8.8: stdin EOF ends the session as disconnected, exactly once', async () => {
    const { client, handler, side } = await start();
    client.stdin.end();
    await until(() => handler.closes.length > 0);
    await side.close();
    expect(handler.closes).toEqual([expect.objectContaining({ kind: 'disconnected' })]);
  });

  it('R-8.8: a stdout error (EPIPE) ends the session as output-closed without throwing', async () => {
    const { client, handler } = await start();
    await client.initialize();
    const epipe = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
    // Listened to after the side's own listener: once it fires, the side has heard the close as well.
    const closed = new Promise((resolve) => client.stdout.once('close', resolve));
    client.stdout.destroy(epipe);
    await closed;
    expect(handler.closes).toEqual([expect.objectContaining({ kind: 'output-closed' })]);
    client.send({ jsonrpc: '2.0', id: 11, method: 'ping' });
    expect(client.stdin.readableLength).toBeGreaterThan(0);
    await everyReactionRun();
    expect(handler.closes).toHaveLength(1);
  });

  it('close() by the proxy reports disconnected once and drops later answers', async () => {
    const { client, handler, side } = await start();
    await client.initialize();
    let release: (r: ToolCallResult) => void = () => undefined;
    handler.answer = () => new Promise((resolve) => (release = resolve));
    client.send({ jsonrpc: '2.0', id: 12, method: 'tools/call', params: { name: 'create_order' } });
    await until(() => handler.calls.length === 1);
    await side.close();
    release({ content: [] });
    await everyReactionRun();
    expect(handler.closes).toEqual([{ kind: 'disconnected', detail: 'closed by the proxy' }]);
    expect(handler.calls[0]?.signal.aborted).toBe(false);
    expect(client.received.some((m) => m['id'] === 12)).toBe(false);
  });
});

describe('StdioAgentSide: concurrency and cancellation', () => {
  it('parallel calls are in flight together (call 2 reaches the handler before call 1 resolves)', async () => {
    const { client, handler } = await start();
    await client.initialize();
    const releases: Array<() => void> = [];
    handler.answer = (request) =>
      new Promise((resolve) => releases.push(() => resolve({ content: [{ type: 'text', text: request.name }] })));
    client.send({ jsonrpc: '2.0', id: 21, method: 'tools/call', params: { name: 'a' } });
    client.send({ jsonrpc: '2.0', id: 22, method: 'tools/call', params: { name: 'b' } });
    await until(() => handler.calls.length === 2);
    expect(client.received.some((m) => m['id'] === 21 || m['id'] === 22)).toBe(false);
    releases[1]?.();
    releases[0]?.();
    expect((await client.waitFor((m) => m['id'] === 21))['result']).toEqual({ content: [{ type: 'text', text: 'a' }] });
    expect((await client.waitFor((m) => m['id'] === 22))['result']).toEqual({ content: [{ type: 'text', text: 'b' }] });
  });

  it('a cancel notification aborts context.signal of that call only', async () => {
    const { client, handler } = await start();
    await client.initialize();
    handler.answer = (_request, signal) =>
      new Promise((resolve) => signal.addEventListener('abort', () => resolve({ content: [] })));
    client.send({ jsonrpc: '2.0', id: 31, method: 'tools/call', params: { name: 'a' } });
    client.send({ jsonrpc: '2.0', id: 32, method: 'tools/call', params: { name: 'b' } });
    await until(() => handler.calls.length === 2);
    client.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 31, reason: 'user' } });
    await until(() => handler.calls[0]?.signal.aborted === true);
    expect(handler.calls[0]?.signal.reason).toBe('user');
    expect(handler.calls[1]?.signal.aborted).toBe(false);
  });
});

describe('topLevelNumberIdToken: the id token of a JSON line, exactly as sent', () => {
  const cases: Array<[string, string | undefined]> = [
    ['{"id":12345678901234567890}', '12345678901234567890'],
    ['  {"jsonrpc":"2.0","method":"x","id":-1.5e-3}', '-1.5e-3'],
    ['{"params":{"id":7},"id":1e300}', '1e300'],
    ['{"params":[{"id":7},"id",8],"x":"\\"id\\":9","id":2.5}', '2.5'],
    ['{"\\u0069d":3.25}', '3.25'],
    ['{"id":1.5,"id":"s"}', undefined],
    ['{"id":"1.5"}', undefined],
    ['{"params":{"id":7}}', undefined],
    ['[{"id":1.5}]', undefined],
    ['"id"', undefined],
  ];
  for (const [line, token] of cases) {
    it(`${line} → ${String(token)}`, () => {
      expect(topLevelNumberIdToken(line)).toBe(token);
    });
  }
});

describe('StdioAgentSide: JSON-RPC batches (MCP 2025-03-26 lets a client send them)', () => {
  const call = (id: number | string, name: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name } });

  it('R-8.5: a batch of calls and a notification is executed and answered as one array, every request by its id', async () => {
    const { client, handler } = await start();
    await client.initialize();
    const releases: Array<() => void> = [];
    handler.answer = (request) =>
      new Promise((resolve) => releases.push(() => resolve({ content: [{ type: 'text', text: request.name }] })));
    client.sendLine(
      JSON.stringify([
        call(1, 'a'),
        { jsonrpc: '2.0', method: 'notifications/x' },
        call('1', 'b'),
        { jsonrpc: '2.0', id: 7, method: 'ping' },
      ]),
    );
    await until(() => handler.calls.length === 2);
    expect(client.lines).toHaveLength(1);
    releases[1]?.();
    releases[0]?.();
    await until(() => client.lines.length === 2);
    const batch = JSON.parse(client.lines[1]!) as Json[];
    expect(Array.isArray(batch)).toBe(true);
    expect(batch).toHaveLength(3);
    expect(batch).toEqual(
      expect.arrayContaining([
        { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'a' }] } },
        { jsonrpc: '2.0', id: '1', result: { content: [{ type: 'text', text: 'b' }] } },
        { jsonrpc: '2.0', id: 7, result: {} },
      ]),
    );
  });

  it('an invalid member is answered inside the array; a batch of notifications only gets no answer', async () => {
    const { client, handler } = await start();
    await client.initialize();
    client.sendLine(JSON.stringify([{ jsonrpc: '2.0', method: 'notifications/x' }]));
    client.sendLine(JSON.stringify([call(3, 'a'), 42, { jsonrpc: '1.0', id: 4, method: 'ping' }]));
    await until(() => client.lines.length === 2);
    expect(handler.calls).toHaveLength(1);
    expect(JSON.parse(client.lines[1]!)).toEqual(
      expect.arrayContaining([
        { jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'ok' }] } },
        { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } },
        { jsonrpc: '2.0', id: 4, error: { code: -32600, message: 'Invalid Request' } },
      ]),
    );
    expect(JSON.parse(client.lines[1]!)).toHaveLength(3);
  });

  it('a call of a batch cancelled by the agent (no answer, as MCP says) does not hold back the others', async () => {
    const { client, handler } = await start();
    await client.initialize();
    handler.answer = (request, signal) =>
      request.name === 'slow'
        ? new Promise((resolve) => signal.addEventListener('abort', () => resolve({ content: [] })))
        : Promise.resolve({ content: [{ type: 'text', text: request.name }] });
    client.sendLine(JSON.stringify([call(5, 'slow'), call(6, 'fast')]));
    await until(() => handler.calls.length === 2);
    client.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5 } });
    await until(() => client.lines.length === 2);
    expect(JSON.parse(client.lines[1]!)).toEqual([
      { jsonrpc: '2.0', id: 6, result: { content: [{ type: 'text', text: 'fast' }] } },
    ]);
  });

  it('an empty array is one -32600 with id null', async () => {
    const { client } = await start();
    client.sendLine('[]');
    await until(() => client.lines.length === 1);
    expect(JSON.parse(client.lines[0]!)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Invalid Request' },
    });
  });
});
