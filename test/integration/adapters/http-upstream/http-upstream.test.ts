import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { HttpUpstreamSide, parseHeaderFlags, type HttpUpstreamOptions } from '../../../../src/adapters/http-upstream/index.js';
import { SseRewriter } from '../../../../src/adapters/http-upstream/sse-rewriter.js';
import type { UpstreamCallOutcome, UpstreamExit } from '../../../../src/ports/upstream-side.port.js';
import {
  startHandWrittenFixture,
  startSseFixture,
  startStreamableFixture,
  type FixtureServer,
  type RawAnswer,
} from '../../../fixtures/http-upstream/fixture-servers.js';
import { withSide } from '../../../support/with-side.js';

function upstream(url: URL, options: Partial<HttpUpstreamOptions> = {}): HttpUpstreamSide {
  return new HttpUpstreamSide({
    url,
    headers: {},
    clientName: 'http-upstream-test',
    clientVersion: '0.0.0',
    connectTimeoutMs: 5000,
    callTimeoutMs: 5000,
    graceMs: 500,
    ...options,
  });
}

function call(side: HttpUpstreamSide, name: string, args?: unknown, timeoutMs = 5000): Promise<UpstreamCallOutcome> {
  return side.callTool({ name, arguments: args }, { timeoutMs });
}

function resultOf(outcome: UpstreamCallOutcome): Record<string, unknown> {
  if (outcome.kind !== 'result') throw new Error(`expected a result, got ${JSON.stringify(outcome)}`);
  return outcome.result;
}

function exitsOf(side: HttpUpstreamSide): UpstreamExit[] {
  const exits: UpstreamExit[] = [];
  side.onExit((exit) => exits.push(exit));
  return exits;
}

/**
 * Resolves with the call's outcome if it settles before the event loop's next I/O phase (so without any
 * network round trip or timer: "at once"); fails otherwise.
 */
async function answeredWithoutIo<T>(pending: Promise<T>): Promise<T> {
  const late = Symbol('late');
  const first = await Promise.race([pending, new Promise<typeof late>((resolve) => setImmediate(() => resolve(late)))]);
  if (first === late) throw new Error('the call was not answered at once: it waited for I/O or a timer');
  return first;
}

async function waitUntil(condition: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return condition();
}

/** A loopback port nobody listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function bounded<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what} took over ${ms} ms`)), ms)),
  ]);
}

async function withFixture(start: () => Promise<FixtureServer>, run: (fixture: FixtureServer) => Promise<void>): Promise<void> {
  const fixture = await start();
  try {
    await run(fixture);
  } finally {
    await fixture.close();
  }
}

describe('HttpUpstreamSide over Streamable HTTP', () => {
  it('connects, passes the instructions on and lists every page of tools verbatim', async () => {
    await withFixture(startStreamableFixture, async (fixture) => {
      await withSide(upstream(fixture.url), async (side) => {
        const info = await side.connect();
        expect(info).toEqual({
          instructions: 'HTTP FIXTURE INSTRUCTIONS',
          serverName: 'http-fixture',
          serverVersion: '2.0.0',
          capabilities: { tools: {} },
        });
        const tools = await side.listTools();
        expect(tools.map((tool) => tool.name)).toEqual(['echo', 'fail', 'slow', 'hang']);
        expect(tools[0]).toEqual({
          name: 'echo',
          description: 'Echo',
          inputSchema: { type: 'object' },
          'x-vendor': { kept: true },
        });
        expect(tools[3]?.annotations).toEqual({ destructiveHint: true });
        const listBodies = fixture.requests.filter((r) => r.body.includes('"tools/list"')).map((r) => JSON.parse(r.body).params);
        expect(listBodies).toEqual([{}, { cursor: 'page-2' }]);
      });
    });
  });

  it('a call is forwarded verbatim (own __proto__ key, _meta) and its result comes back verbatim', async () => {
    await withFixture(startStreamableFixture, async (fixture) => {
      await withSide(upstream(fixture.url), async (side) => {
        await side.connect();
        const args = JSON.parse('{"guest":"Ann","__proto__":{"admin":true},"nested":{"__proto__":[1]}}') as unknown;
        const outcome = await side.callTool(
          { name: 'echo', arguments: args, meta: { progressToken: 7, 'x/trace': 'abc' } },
          { timeoutMs: 5000 },
        );
        const sent = fixture.requests.find((r) => r.body.includes('"tools/call"'));
        expect(sent).toBeDefined();
        const params = JSON.parse(sent?.body ?? '{}').params as Record<string, unknown>;
        expect(JSON.stringify(params)).toBe(
          '{"name":"echo","arguments":{"guest":"Ann","__proto__":{"admin":true},"nested":{"__proto__":[1]}},"_meta":{"progressToken":7,"x/trace":"abc"}}',
        );
        const result = resultOf(outcome);
        expect(Object.prototype.hasOwnProperty.call(result, '__proto__')).toBe(true);
        expect(JSON.stringify(result)).toBe(
          '{"content":[{"type":"text","text":"done","x-part":1}],"__proto__":{"kept":true},"vendorField":[1,2],' +
            '"structuredContent":{"tool":"echo","arguments":{"guest":"Ann","__proto__":{"admin":true},"nested":{"__proto__":[1]}}},' +
            '"_meta":{"fixture/request-meta":{"progressToken":7,"x/trace":"abc"}}}',
        );
      });
    });
  });

  for (const jsonResponse of [false, true]) {
    const answers = jsonResponse ? 'JSON answers' : 'SSE answers';
    it(`the server killed mid-call (${answers}) → connection-lost, then unavailable at once, onExit once`, async () => {
      const fixture = await startStreamableFixture({ jsonResponse });
      const side = upstream(fixture.url);
      try {
        await side.connect();
        const exits = exitsOf(side);
        const pending = call(side, 'hang', {}, 10_000);
        await bounded(fixture.hanging, 5000, 'the hang call reaching the server');
        fixture.kill();
        const outcome = await bounded(pending, 5000, 'the call after the kill');
        expect(outcome.kind).toBe('connection-lost');
        expect(fixture.executed.get('hang')).toBe(1);
        const later = await answeredWithoutIo(call(side, 'echo', {}));
        expect(later.kind).toBe('unavailable');
        expect(await waitUntil(() => exits.length > 0, 2000)).toBe(true);
        await side.close();
        expect(exits).toHaveLength(1);
        expect(exits[0]).toMatchObject({ expected: false, code: null, signal: null });
        expect(exits[0]?.detail).toMatch(/^[^\n]+$/);
      } finally {
        await side.close();
        await fixture.close();
      }
    });
  }

  it('issue 41 §10: a call whose SSE stream the upstream closes before answering (SSE polling) is resumed and answered', async () => {
    // The upstream sends a priming event (an id, empty data), closes the POST stream, answers later on
    // the GET the client resumes with Last-Event-ID: the call gets that answer, not a time-out.
    await withFixture(
      () => startStreamableFixture({ resumable: true }),
      async (fixture) => {
        await withSide(upstream(fixture.url, { callTimeoutMs: 4000 }), async (side) => {
          await side.connect();
          const outcome = await bounded(call(side, 'poll', { n: 1 }, 4000), 3500, 'the polled call');
          expect(resultOf(outcome)['structuredContent']).toEqual({ tool: 'poll', arguments: { n: 1 } });
          expect(fixture.executed.get('poll')).toBe(1);
          const resumed = fixture.requests.filter((r) => r.method === 'GET' && r.headers['last-event-id'] !== undefined);
          expect(resumed).toHaveLength(1);
          // The upstream is still usable afterwards.
          expect(resultOf(await call(side, 'echo', {}))['vendorField']).toEqual([1, 2]);
        });
      },
    );
  });

  it('a 404 for the session marks the upstream gone after that call', async () => {
    await withFixture(startStreamableFixture, async (fixture) => {
      await withSide(upstream(fixture.url), async (side) => {
        await side.connect();
        const exits = exitsOf(side);
        fixture.forgetSessions();
        expect(await call(side, 'echo', {})).toEqual({
          kind: 'connection-lost',
          detail: 'the upstream answered the call with HTTP 404 Not Found (the session is gone)',
        });
        expect((await call(side, 'echo', {})).kind).toBe('unavailable');
        expect(exits).toEqual([
          { expected: false, code: null, signal: null, detail: 'HTTP 404 Not Found (the session is gone)' },
        ]);
      });
    });
  });

  it('the given headers are sent on every request, and close() ends the session with a DELETE', async () => {
    await withFixture(startStreamableFixture, async (fixture) => {
      const side = upstream(fixture.url, { headers: { 'X-Api-Key': 'k-123', 'X-Tenant': 'acme' } });
      const exits = exitsOf(side);
      await side.connect();
      await side.listTools();
      resultOf(await call(side, 'echo', {}));
      await side.close();
      await side.close();
      expect(new Set(fixture.requests.map((r) => r.method))).toEqual(new Set(['POST', 'GET', 'DELETE']));
      for (const request of fixture.requests) {
        expect(request.headers['x-api-key'], `${request.method} ${request.body}`).toBe('k-123');
        expect(request.headers['x-tenant']).toBe('acme');
      }
      expect(exits).toEqual([{ expected: true, code: null, signal: null, detail: '' }]);
      expect((await call(side, 'echo', {})).kind).toBe('unavailable');
    });
  });

  it('a 401 at connect is one clear line without the token; the right token connects', async () => {
    await withFixture(
      () => startStreamableFixture({ token: 'right-token' }),
      async (fixture) => {
        const good = upstream(fixture.url, { headers: { Authorization: 'Bearer right-token' } });
        try {
          await good.connect();
          expect(resultOf(await call(good, 'echo', {}))['vendorField']).toEqual([1, 2]);
        } finally {
          await good.close();
        }
        const bad = upstream(fixture.url, { headers: { Authorization: 'Bearer wrong-token' } });
        try {
          await expect(bad.connect()).rejects.toThrow(
            new Error(`upstream HTTP 401 Unauthorized at http://127.0.0.1:${fixture.url.port}/mcp`),
          );
        } finally {
          await bad.close();
        }
      },
    );
  });

  it('connection refused at connect is one line naming the URL and the code', async () => {
    const port = await closedPort();
    await withSide(upstream(new URL(`http://127.0.0.1:${port}/mcp`)), async (side) => {
      await expect(side.connect()).rejects.toThrow(
        new Error(`upstream not reachable at http://127.0.0.1:${port}/mcp (ECONNREFUSED)`),
      );
    });
  });

  it('a port fetch refuses, a URL with credentials or another scheme are one-line errors', async () => {
    const cases: Array<[string, string]> = [
      ['http://127.0.0.1:1/mcp', 'upstream not reachable at http://127.0.0.1:1/mcp (bad port)'],
      [
        'http://user:s3cret@127.0.0.1:9/mcp',
        'upstream URL must not contain a user name or password; send credentials as a header instead',
      ],
      ['ftp://127.0.0.1/mcp', 'upstream URL must start with http:// or https://, got ftp://'],
    ];
    for (const [url, message] of cases) {
      await withSide(upstream(new URL(url)), async (side) => {
        await expect(side.connect()).rejects.toThrow(new Error(message));
      });
    }
  });

  it('a server that never answers initialize is a one-line timeout; close() while connecting cancels', async () => {
    const server = createServer(() => undefined);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
    const slow = upstream(url, { connectTimeoutMs: 300 });
    const cancelled = upstream(url);
    try {
      await expect(slow.connect()).rejects.toThrow(new Error(`upstream did not answer initialize within 300 ms at ${url.href}`));
      const connecting = cancelled.connect();
      await new Promise((resolve) => setTimeout(resolve, 100));
      await bounded(cancelled.close(), 2000, 'close() while connecting');
      await expect(bounded(connecting, 2000, 'connect() after close()')).rejects.toThrow(
        new Error('upstream start-up was cancelled (the proxy is shutting down)'),
      );
    } finally {
      await slow.close();
      await cancelled.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('a 404 with no legacy SSE endpoint either is one line; the query is not printed', async () => {
    const server = createServer((_req, res) => void res.writeHead(404).end('nothing here'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const side = upstream(new URL(`http://127.0.0.1:${port}/mcp?token=s3cret`));
    try {
      await expect(side.connect()).rejects.toThrow(
        new Error(
          `upstream HTTP 404 Not Found at http://127.0.0.1:${port}/mcp (and no legacy SSE endpoint there either: HTTP 404 Not Found)`,
        ),
      );
    } finally {
      await side.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('HttpUpstreamSide with answers the SDK server would never send', () => {
  it('extra keys are tolerated, a non-JSON-RPC answer is invalid-answer, a 503 is connection-lost without losing the upstream', async () => {
    const result = '{"content":[],"__proto__":{"x":1},"_meta":{"m":1}}';
    const fixture = await startHandWrittenFixture([
      { body: `{"jsonrpc":"2.0","id":{id},"result":${result},"vendorTop":true}` },
      { body: '<html>oops</html>', contentType: 'text/html' },
      { body: 'Service Unavailable', status: 503, contentType: 'text/plain' },
      {
        body: `event: message\ndata: {"jsonrpc":"2.0","id":{id},"error":{"code":-32000,"message":"MCP error -32000: upstream says closed"}}\n\n`,
        contentType: 'text/event-stream',
      },
      {
        body: 'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}\n\n',
        contentType: 'text/event-stream',
      },
    ]);
    const side = upstream(fixture.url);
    const exits = exitsOf(side);
    try {
      await side.connect();
      expect(JSON.stringify(resultOf(await call(side, 'a')))).toBe(result);
      expect(await call(side, 'b')).toEqual({
        kind: 'invalid-answer',
        detail: 'the HTTP answer to the request held no JSON-RPC reply for it',
      });
      expect(await call(side, 'c')).toEqual({
        kind: 'connection-lost',
        detail: 'the upstream answered the call with HTTP 503 Service Unavailable',
      });
      expect(await call(side, 'd')).toEqual({
        kind: 'protocol-error',
        code: -32000,
        message: 'MCP error -32000: upstream says closed',
      });
      expect(await call(side, 'e')).toEqual({
        kind: 'connection-lost',
        detail: 'the upstream closed the response stream before answering',
      });
      expect(exits).toEqual([
        { expected: false, code: null, signal: null, detail: 'the upstream closed the response stream before answering' },
      ]);
    } finally {
      await side.close();
      await fixture.close();
    }
  });
});

describe('HttpUpstreamSide when the caller gives up', () => {
  it('a cancelled call is connection-lost; the upstream stays usable, as it does when a stream then ends unanswered', async () => {
    await withFixture(startStreamableFixture, async (fixture) => {
      const side = upstream(fixture.url);
      const exits = exitsOf(side);
      try {
        await side.connect();
        const controller = new AbortController();
        const pending = side.callTool({ name: 'slow', arguments: { ms: 3000 } }, { timeoutMs: 5000, signal: controller.signal });
        setTimeout(() => controller.abort(), 100);
        expect((await bounded(pending, 2000, 'the cancelled call')).kind).toBe('connection-lost');
        expect(resultOf(await call(side, 'echo', {}))['vendorField']).toEqual([1, 2]);
      } finally {
        await side.close();
      }
      expect(exits.map((exit) => exit.expected)).toEqual([true]);
    });
    const late = await startHandWrittenFixture([
      { body: '', contentType: 'text/event-stream', delayMs: 400 },
      { body: '{"jsonrpc":"2.0","id":{id},"result":{"content":[]}}' },
    ]);
    const side = upstream(late.url);
    const exits = exitsOf(side);
    try {
      await side.connect();
      expect(await call(side, 'timed-out', {}, 100)).toEqual({ kind: 'timeout', afterMs: 100 });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(resultOf(await call(side, 'next', {}))).toEqual({ content: [] });
      expect(exits).toEqual([]);
    } finally {
      await side.close();
      await late.close();
    }
  });
});

describe('HttpUpstreamSide over legacy SSE', () => {
  it('an SSE-only server is reached through the fallback, with the headers on every request', async () => {
    await withFixture(startSseFixture, async (fixture) => {
      await withSide(upstream(fixture.url, { headers: { 'X-Api-Key': 'k-sse' } }), async (side) => {
        const info = await side.connect();
        expect(info.instructions).toBe('HTTP FIXTURE INSTRUCTIONS');
        expect((await side.listTools()).map((tool) => tool.name)).toEqual(['echo', 'fail', 'slow', 'hang']);
        expect(resultOf(await call(side, 'echo', { a: 1 }))['structuredContent']).toEqual({ tool: 'echo', arguments: { a: 1 } });
        expect((await call(side, 'fail', {})).kind).toBe('protocol-error');
        const paths = fixture.requests.map((r) => `${r.method} ${r.path}`);
        expect(paths).toContain('POST /sse');
        expect(paths).toContain('GET /sse');
        expect(paths).toContain('POST /messages');
        for (const request of fixture.requests) expect(request.headers['x-api-key']).toBe('k-sse');
      });
    });
  });

  it('the SSE server killed mid-call → connection-lost, then unavailable', async () => {
    const fixture = await startSseFixture();
    const side = upstream(fixture.url);
    try {
      await side.connect();
      const exits = exitsOf(side);
      const pending = call(side, 'hang', {}, 10_000);
      await bounded(fixture.hanging, 5000, 'the hang call reaching the server');
      fixture.kill();
      expect((await bounded(pending, 5000, 'the call after the kill')).kind).toBe('connection-lost');
      expect((await call(side, 'echo', {})).kind).toBe('unavailable');
      expect(await waitUntil(() => exits.length === 1, 2000)).toBe(true);
      expect(exits[0]?.expected).toBe(false);
    } finally {
      await side.close();
      await fixture.close();
    }
  });
});

// HttpUpstreamSide against the bundled booking server over Streamable HTTP (its ledger counting each
// create_booking) is proven through the compiled proxy in e2e/transports.e2e.test.ts (…→HTTP rows).

describe('HttpUpstreamSide with an answer over the size limit (maxMessageBytes)', () => {
  const LIMIT = 64 * 1024;
  const TOO_LARGE: UpstreamCallOutcome = { kind: 'too-large', detail: `the upstream sent a message over ${LIMIT} bytes` };
  const UNAVAILABLE: UpstreamCallOutcome = {
    kind: 'unavailable',
    detail: `the proxy closed the upstream connection: the upstream sent a message over ${LIMIT} bytes`,
  };

  /**
   * The big call ends too-large before onExit fires (the app needs that order to say "the proxy closed
   * the upstream"), onExit fires once, unexpected, and later calls are unavailable at once.
   */
  async function expectCut(side: HttpUpstreamSide, big: () => Promise<UpstreamCallOutcome>): Promise<void> {
    const order: string[] = [];
    const exits = exitsOf(side);
    side.onExit(() => order.push('exit'));
    expect(await bounded(big(), 5000, 'the call with the big answer')).toEqual(TOO_LARGE);
    order.push('outcome');
    expect(await waitUntil(() => exits.length > 0, 3000)).toBe(true);
    expect(order).toEqual(['outcome', 'exit']);
    expect(exits).toEqual([{ expected: false, code: null, signal: null, detail: '' }]);
    expect(await answeredWithoutIo(call(side, 'echo', {}))).toEqual(UNAVAILABLE);
    await side.close();
    expect(exits).toHaveLength(1);
  }

  for (const jsonResponse of [true, false]) {
    const answers = jsonResponse ? 'a JSON answer' : 'an SSE answer stream';
    it(`R-8.7: ${answers} over the limit → too-large, the session is ended (DELETE), onExit once, later calls unavailable`, async () => {
      const fixture = await startStreamableFixture({ jsonResponse });
      const side = upstream(fixture.url, { maxMessageBytes: LIMIT });
      try {
        await side.connect();
        expect(resultOf(await call(side, 'echo', { pad: 'x'.repeat(LIMIT / 2) }))['vendorField']).toEqual([1, 2]);
        await expectCut(side, () => call(side, 'echo', { pad: 'x'.repeat(LIMIT) }));
        expect(fixture.executed.get('echo')).toBe(2);
        expect(fixture.requests.filter((r) => r.method === 'DELETE')).toHaveLength(1);
      } finally {
        await side.close();
        await fixture.close();
      }
    });
  }

  it('R-8.7: a reply over the limit on the legacy SSE channel → too-large, onExit once, later calls unavailable', async () => {
    const fixture = await startSseFixture();
    const side = upstream(fixture.url, { maxMessageBytes: LIMIT });
    try {
      await side.connect();
      await expectCut(side, () => call(side, 'echo', { pad: 'x'.repeat(LIMIT) }));
      expect(fixture.executed.get('echo')).toBe(1);
    } finally {
      await side.close();
      await fixture.close();
    }
  });

  for (const contentType of ['application/json', 'text/event-stream']) {
    it(`R-8.7: a message of exactly the limit in bytes passes unchanged, one byte more is too-large (${contentType}, chunked, 2-byte characters)`, async () => {
      const fits = answerOfBytes(LIMIT, contentType);
      const fixture = await startHandWrittenFixture([fits, answerOfBytes(LIMIT + 1, contentType)]);
      const side = upstream(fixture.url, { maxMessageBytes: LIMIT });
      try {
        await side.connect();
        expect(resultOf(await call(side, 'fits'))).toEqual({ content: [{ type: 'text', text: fits.text }] });
        await expectCut(side, () => call(side, 'one-byte-more'));
      } finally {
        await side.close();
        await fixture.close();
      }
    });
  }

  it('R-8.7: an initialize answer over the limit on an SSE stream fails connect() at once with one line', async () => {
    const server = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' }).end(`event: message\ndata: ${'x'.repeat(LIMIT + 1)}\n\n`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
    const side = upstream(url, { maxMessageBytes: LIMIT, connectTimeoutMs: 10_000 });
    try {
      await expect(bounded(side.connect(), 3000, 'connect()')).rejects.toThrow(
        new Error(
          `upstream connection failed during the MCP handshake at ${url.href} (the upstream sent a message over ${LIMIT} bytes)`,
        ),
      );
    } finally {
      await side.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  const endless: Array<[string, string, string, string]> = [
    [
      'a JSON body',
      'application/json',
      '{"jsonrpc":"2.0","id":{id},"result":{"content":[{"type":"text","text":"',
      'x'.repeat(4096),
    ],
    [
      'one SSE data line',
      'text/event-stream',
      'event: message\ndata: {"jsonrpc":"2.0","id":{id},"result":{"content":[{"type":"text","text":"',
      'x'.repeat(4096),
    ],
    ['many data lines of one SSE event', 'text/event-stream', 'event: message\n', `data: ${'x'.repeat(4095)}\n`],
  ];
  for (const [what, contentType, head, chunk] of endless) {
    it(`R-8.7: ${what} that never ends is cut at the limit (not read to its end)`, async () => {
      let markCut = (): void => undefined;
      const cut = new Promise<void>((resolve) => (markCut = resolve));
      const fixture = await startRawAnswerServer(contentType, (res, id) => {
        res.on('close', markCut);
        res.write(head.replace('{id}', String(id)));
        const more = (): void => {
          while (!res.destroyed && res.write(chunk));
          if (!res.destroyed) res.once('drain', more);
        };
        more();
      });
      const side = upstream(fixture.url, { maxMessageBytes: LIMIT });
      try {
        await side.connect();
        await expectCut(side, () => call(side, 'endless'));
        await bounded(cut, 2000, 'the upstream seeing its answer cancelled');
      } finally {
        await side.close();
        await fixture.close();
      }
    });
  }
});

describe('HttpUpstreamSide reading an SSE answer that arrives in pieces', () => {
  it('a 200 kB answer on an SSE stream (many network chunks) comes back whole under the default limit', async () => {
    await withFixture(startStreamableFixture, async (fixture) => {
      await withSide(upstream(fixture.url), async (side) => {
        await side.connect();
        const pad = 'é'.repeat(100_000);
        expect(resultOf(await call(side, 'echo', { pad }, 3000))['structuredContent']).toEqual({
          tool: 'echo',
          arguments: { pad },
        });
      });
    });
  });

  it('an event split over writes 50 ms apart arrives whole (the stream does not stall on half an event)', async () => {
    const fixture = await startRawAnswerServer('text/event-stream', (res, id) => {
      const event = `event: message\ndata: {"jsonrpc":"2.0","id":${id},"result":{"content":[],"split":true}}\n\n`;
      const parts = [event.slice(0, 10), event.slice(10, 40), event.slice(40)];
      parts.forEach((part, i) => setTimeout(() => (i === parts.length - 1 ? res.end(part) : res.write(part)), i * 50));
    });
    const side = upstream(fixture.url);
    try {
      await side.connect();
      expect(resultOf(await call(side, 'split', {}, 2000))).toEqual({ content: [], split: true });
    } finally {
      await side.close();
      await fixture.close();
    }
  });
});

/**
 * A tools/call answer whose JSON-RPC message is exactly `bytes` UTF-8 bytes once `{id}` is replaced by a
 * one-digit id (the SDK numbers requests from 0), made mostly of 2-byte characters so that counting
 * characters instead of bytes would be seen.
 */
function answerOfBytes(bytes: number, contentType: string): RawAnswer & { text: string } {
  const frame = (text: string): string => `{"jsonrpc":"2.0","id":{id},"result":{"content":[{"type":"text","text":"${text}"}]}}`;
  const need = bytes - (Buffer.byteLength(frame('')) - '{id}'.length + 1);
  const text = 'é'.repeat(Math.floor(need / 2)) + 'x'.repeat(need % 2);
  const message = frame(text);
  return { contentType, body: contentType === 'text/event-stream' ? `event: message\ndata: ${message}\n\n` : message, text };
}

/**
 * A hand-written Streamable HTTP server (no SDK, no session) that answers `initialize` itself and hands
 * the response to every tools/call to `answer`, headers sent, for answers written piece by piece.
 */
async function startRawAnswerServer(contentType: string, answer: (res: ServerResponse, id: number) => void) {
  const initialize =
    '{"jsonrpc":"2.0","id":{id},"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"raw","version":"1"}}}';
  const server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (text: string) => (raw += text));
    req.on('end', () => {
      if (req.method !== 'POST') return void res.writeHead(405).end();
      const message = JSON.parse(raw) as { id?: number; method: string };
      if (message.id === undefined) return void res.writeHead(202).end();
      if (message.method !== 'tools/call') {
        return void res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(initialize.replace('{id}', String(message.id)));
      }
      res.writeHead(200, { 'content-type': contentType }).flushHeaders();
      answer(res, message.id);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`),
    async close(): Promise<void> {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('parseHeaderFlags', () => {
  const env = { API_TOKEN: 'Bearer s3cret', EMPTY: '', BROKEN: 'a\r\nInjected: 1' };

  it('"Name: value" flags and Name=ENV_VAR flags make the header record', () => {
    expect(parseHeaderFlags(['X-Tenant: acme', 'X-Empty:', 'X-Colon: a:b '], ['Authorization=API_TOKEN'], env)).toEqual({
      'X-Tenant': 'acme',
      'X-Empty': '',
      'X-Colon': 'a:b',
      Authorization: 'Bearer s3cret',
    });
  });

  it.each([
    [['no colon here'], [], '--upstream-header #1 must look like "Name: value" (no colon found)'],
    [['Bad Name: x'], [], '--upstream-header #1: the text before the colon is not a valid HTTP header name'],
    [['X-A: 1', 'x-a: 2'], [], '--upstream-header #2: header "x-a" is given more than once'],
    [
      ['Content-Type: text/plain'],
      [],
      '--upstream-header #1: header "Content-Type" is set by the MCP transport and cannot be given',
    ],
    [[], ['Authorization'], '--upstream-header-env #1 must look like Name=ENV_VAR, got "Authorization"'],
    [
      [],
      ['Authorization=MISSING'],
      '--upstream-header-env #1: the environment variable MISSING (for header "Authorization") is not set or empty',
    ],
    [
      [],
      ['Authorization=EMPTY'],
      '--upstream-header-env #1: the environment variable EMPTY (for header "Authorization") is not set or empty',
    ],
    [
      [],
      ['X-A=BROKEN'],
      '--upstream-header-env #1: the environment variable BROKEN: header value holds a line break or NUL character',
    ],
    [['X-A: 1'], ['x-a=API_TOKEN'], '--upstream-header-env #1: header "x-a" is given more than once'],
  ])('bad header flags are refused with one line (%j %j)', (flags, envFlags, message) => {
    expect(() => parseHeaderFlags(flags, envFlags, env)).toThrow(new Error(message));
  });

  it('a header value is never echoed in an error', () => {
    const attempts: Array<[string[], string[]]> = [
      [['X-A: visible-value\nInjected'], []],
      [['Bearer s3cret'], []],
      [['Bearer s3cret token: x'], []],
    ];
    for (const [flags, envFlags] of attempts) {
      expect(() => parseHeaderFlags(flags, envFlags, env)).toThrow();
      try {
        parseHeaderFlags(flags, envFlags, env);
      } catch (error) {
        expect((error as Error).message).not.toMatch(/s3cret|Injected|visible-value/);
      }
    }
  });
});

describe('SseRewriter', () => {
  const upper = (data: string): string | undefined => (data === 'drop' ? undefined : data.toUpperCase());

  it('events split anywhere, CRLF/CR/LF line ends and comments give the same rewritten events', () => {
    const stream =
      ': keep-alive\r\nid: 1\r\nevent: message\r\ndata: {"a":1}\r\n\r\nevent: endpoint\rdata: /messages?x=1\r\rid: 7\ndata: drop\n\n';
    const expected = 'id: 1\nevent: message\ndata: {"A":1}\n\nevent: endpoint\ndata: /messages?x=1\n\nid: 7\ndata: \n\n';
    for (let size = 1; size <= stream.length; size += 1) {
      const rewriter = new SseRewriter(upper);
      let out = '';
      for (let i = 0; i < stream.length; i += size) out += rewriter.push(stream.slice(i, i + size));
      expect(out, `chunks of ${size}`).toBe(expected);
      expect(rewriter.sawEventId).toBe(true);
    }
  });

  it('R-8.7: data over the byte limit stops the parser: the events before it pass, nothing after; an unfinished line counts too', () => {
    // 'é' is 2 bytes: 3 of them are 6 bytes, over a limit of 5 although only 3 characters.
    const stream = 'data: ab\ndata: c\n\ndata: éé\n\ndata: ééé\n\ndata: later\n\n';
    for (let size = 1; size <= stream.length; size += 1) {
      const rewriter = new SseRewriter((data) => data, 5);
      let out = '';
      for (let i = 0; i < stream.length; i += size) out += rewriter.push(stream.slice(i, i + size));
      expect(out, `chunks of ${size}`).toBe('data: ab\ndata: c\n\ndata: éé\n\n');
      expect(rewriter.overflowed).toBe(true);
    }
    const endless = new SseRewriter((data) => data, 5);
    expect(endless.push('data: 12345')).toBe('');
    expect(endless.overflowed).toBe(false);
    expect(endless.push('6')).toBe('');
    expect(endless.overflowed).toBe(true);
  });

  it('issue 41 §10: a priming event (an id, empty data) keeps its id and an empty data line, so the SDK can resume', () => {
    // The SDK's SSE parser dispatches no event without a data line: the id of a priming event whose data
    // was dropped would never reach it, and a stream the upstream closes before answering would be lost.
    const dropsEverything = new SseRewriter(() => undefined);
    expect(dropsEverything.push('id: p-1\nretry: 300\ndata: \n\n')).toBe('id: p-1\nretry: 300\ndata: \n\n');
    expect(dropsEverything.sawEventId).toBe(true);
    expect(dropsEverything.push('data: no id\n\n')).toBe('');
  });

  it('multi-line data is joined with newlines; an unfinished last event is dropped', () => {
    const rewriter = new SseRewriter((data) => JSON.stringify(data));
    expect(rewriter.push('data: a\ndata:b\n\ndata: never ended')).toBe('data: "a\\nb"\n\n');
    expect(rewriter.sawEventId).toBe(false);
  });
});
