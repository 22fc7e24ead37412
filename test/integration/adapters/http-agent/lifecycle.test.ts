/**
 * `--listen` session lifecycle against the real HTTP agent side and the proxy use case in-process: every
 * session's report is final when the session or the proxy ends, and equal to what the upstream executed.
 */
import { describe, expect, it } from 'vitest';
import { HttpAgentSide } from '../../../../src/adapters/http-agent/index.js';
import { ProxyService } from '../../../../src/app/proxy/proxy-service.js';
import {
  HeldUpstream,
  InMemoryAgentSide,
  MemorySink,
  memoryTarget,
  SILENT_LOGGER,
  okResult,
} from '../../../support/in-memory-sides.js';
import { TestClock, fixedRandom } from '../../../support/session-driver.js';

const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 3000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what} not met in time`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * A listening proxy (`stopWhenSessionEnds: false`) in-process: the upstream holds every call until the test
 * answers it, each session's report goes to its own memory sink, calls drain up to 5 s when it stops.
 */
function listeningProxy() {
  const upstream = new HeldUpstream([{ name: 'create_order', inputSchema: { type: 'object' } }]);
  const agentSide = new InMemoryAgentSide();
  const sinks = new Map<string, MemorySink>();
  const service = new ProxyService(
    {
      upstream,
      agentSide,
      reportTarget: memoryTarget((sessionId) => sinks.set(sessionId, new MemorySink()).get(sessionId)!),
      clock: new TestClock(),
      random: fixedRandom(0.5),
      logger: SILENT_LOGGER,
      notice: () => undefined,
    },
    {
      scenario: { mode: 'none' },
      keyFields: [],
      classification: {},
      auditTools: false,
      callTimeoutMs: 60_000,
      drainMs: 5_000,
      harnessVersion: 'test',
      serverName: 'harness',
      stopWhenSessionEnds: false,
    },
  );
  return { upstream, agentSide, sinks, service };
}

describe('--listen: reports are final and complete at every kind of session end', () => {
  it('R-9.2/R-8.8 (--listen): a session that opens while the proxy stops (during the drain of a call in flight) has a finished report when the proxy is done', async () => {
    const { upstream, agentSide, sinks, service } = listeningProxy();
    await service.start();
    const a = agentSide.connect('a');
    void a.callTool({ name: 'create_order', arguments: { item: 'a1' } }, { signal: new AbortController().signal });
    const [held] = await upstream.received(1);
    const stopped = service.stop('received SIGTERM');
    // The listener still answers an initialize while the proxy drains session a's call.
    agentSide.connect('late');
    held!.answer(okResult());
    const exit = await stopped;
    expect(sinks.get('a')!.last).toMatchObject({ status: 'finished' });
    expect(sinks.get('late')!.last).toMatchObject({ status: 'finished' });
    expect(exit.sessions.map((s) => s.sessionId).sort()).toEqual(['a', 'late']);
  });

  it('R-8.8/R-9.2: a call that arrives while the proxy drains its session is not forwarded; the report holds exactly what the upstream executed', async () => {
    const { upstream, agentSide, sinks, service } = listeningProxy();
    await service.start();
    const a = agentSide.connect('a');
    const signal = new AbortController().signal;
    const first = a.callTool({ name: 'create_order', arguments: { item: 'a1' } }, { signal });
    const [held] = await upstream.received(1);
    const stopped = service.stop('received SIGTERM');
    // During the drain: before, this call was forwarded, and an answer after the drain made an executed
    // write EXECUTION_UNKNOWN in a report already final.
    const late = await a.callTool({ name: 'create_order', arguments: { item: 'a2' } }, { signal });
    expect(late).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/ending .*not forwarded/) }] });
    expect(upstream.held).toHaveLength(1);
    held!.answer(okResult());
    expect((await first).isError).not.toBe(true);
    await stopped;
    const last = sinks.get('a')!.last;
    expect(last).toMatchObject({ status: 'finished', report: { operations: [{ tool: 'create_order', executions: 1 }] } });
    expect(last!['report'].operations).toHaveLength(1);
  });
});

describe('HttpAgentSide.close(): answers already decided still reach the agent (R-8.8, R-9.2)', () => {
  it('R-8.8: a call whose answer is decided as the proxy stops gets that answer before the session is closed', async () => {
    let release: (() => void) | undefined;
    const side = new HttpAgentSide({ host: '127.0.0.1', port: 0 });
    await side.serve(
      () => ({
        listTools: async () => [{ name: 'create_order', inputSchema: { type: 'object' } }],
        callTool: () => new Promise((resolve) => (release = () => resolve({ content: [{ type: 'text', text: 'executed' }] }))),
        closed: () => undefined,
      }),
      { serverName: 'proxy', serverVersion: '1' },
    );
    const url = side.address.url;
    const init = await fetch(url, { method: 'POST', headers: MCP_HEADERS, body: INITIALIZE });
    const sessionId = init.headers.get('mcp-session-id')!;
    await init.text();
    const headers = { ...MCP_HEADERS, 'mcp-session-id': sessionId };
    await (await fetch(url, { method: 'POST', headers, body: '{"jsonrpc":"2.0","method":"notifications/initialized"}' })).text();
    const call = fetch(url, {
      method: 'POST',
      headers,
      body: '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"create_order","arguments":{}}}',
    }).then((reply) => reply.text());
    await until(() => release !== undefined, 'the call reached the handler');
    const closed = side.close();
    release!();
    await closed;
    expect(await call).toContain('"text":"executed"');
  });

  it('close() does not wait for ever for a call that is never answered', async () => {
    const side = new HttpAgentSide({ host: '127.0.0.1', port: 0, answerGraceMs: 20 });
    let reached = false;
    await side.serve(
      () => ({
        listTools: async () => [],
        callTool: () => {
          reached = true;
          return new Promise(() => undefined);
        },
        closed: () => undefined,
      }),
      { serverName: 'proxy', serverVersion: '1' },
    );
    const url = side.address.url;
    const init = await fetch(url, { method: 'POST', headers: MCP_HEADERS, body: INITIALIZE });
    const headers = { ...MCP_HEADERS, 'mcp-session-id': init.headers.get('mcp-session-id')! };
    await init.text();
    const call = fetch(url, {
      method: 'POST',
      headers,
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{}}}',
    }).then(
      (reply) => reply.text(),
      () => 'connection closed',
    );
    await until(() => reached, 'the call reached the handler');
    await side.close();
    expect(await call).not.toContain('"result"');
    expect(side.openSessions).toBe(0);
  });
});
