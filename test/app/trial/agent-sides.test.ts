/**
 * The trial's agent sides: the in-process side the built-in loop calls through the session
 * handler, and the decorator that judges every MCP session of one program's run as one agent.
 */
import { describe, expect, it } from 'vitest';
import { InMemoryAgentSide } from '../../../src/adapters/in-memory-agent/index.js';
import { OneRunAgentSide } from '../../../src/app/trial/one-run-agent-side.js';
import type { ListeningAgentSide } from '../../../src/app/trial/trial-deps.js';
import type { AgentCloseReason, AgentSessionHandler } from '../../../src/ports/agent-side.port.js';
import { JudgedSession } from '../../../src/app/proxy/judged-session.js';
import { HeldUpstream, MemorySink, SILENT_LOGGER, okResult } from '../../support/in-memory-sides.js';
import { TestClock, fixedRandom } from '../../support/session-driver.js';

const OPTIONS = { serverName: 'h', serverVersion: '1' };

function handler(log: string[]): AgentSessionHandler {
  return {
    listTools: async () => [{ name: 'create_booking' }],
    callTool: async (request, context) => {
      log.push(`call ${request.name}`);
      await new Promise<void>((resolve) =>
        request.name === 'slow' ? context.signal.addEventListener('abort', () => resolve()) : resolve(),
      );
      return { content: [], isError: context.signal.aborted };
    },
    closed: (reason: AgentCloseReason) => void log.push(`closed ${reason.kind}`),
  };
}

describe('R-13 in-memory agent side', () => {
  it('connects once the proxy serves; tools and calls go through the session handler; disconnect closes it once', async () => {
    const side = new InMemoryAgentSide();
    expect(() => side.connect('x')).toThrow('not serving yet');
    const log: string[] = [];
    const opened: string[] = [];
    await side.serve((id) => (opened.push(id), handler(log)), OPTIONS);
    const client = side.connect('F1-001');
    expect(opened).toEqual(['F1-001']);
    expect(await client.listTools()).toEqual([{ name: 'create_booking' }]);
    expect(await client.callTool({ name: 'create_booking', arguments: {} })).toEqual({ content: [], isError: false });
    client.disconnect();
    client.disconnect();
    expect(log).toEqual(['call create_booking', 'closed disconnected']);
    await expect(client.callTool({ name: 'create_booking' })).rejects.toThrow('disconnected');
  });

  it('close aborts calls still in flight', async () => {
    const side = new InMemoryAgentSide();
    await side.serve(() => handler([]), OPTIONS);
    const pending = side.connect('r').callTool({ name: 'slow' });
    await side.close();
    expect(await pending).toEqual({ content: [], isError: true });
  });
});

describe('R-13 one run, one agent', () => {
  it('every MCP session of the run gets the same handler; sessions closing do not end it; the sessions are counted', async () => {
    let opener: ((id: string) => AgentSessionHandler) | null = null;
    const inner: ListeningAgentSide = {
      address: { url: 'http://127.0.0.1:1/mcp' },
      serve: async (open) => void (opener = open),
      close: async () => undefined,
    };
    const side = new OneRunAgentSide(inner);
    const log: string[] = [];
    let opened = 0;
    await side.serve(() => (opened++, handler(log)), OPTIONS);
    const first = opener!('s1');
    const second = opener!('s2');
    await first.callTool({ name: 'a' }, { signal: new AbortController().signal });
    first.closed({ kind: 'disconnected' });
    await second.callTool({ name: 'b' }, { signal: new AbortController().signal });
    expect([opened, side.sessions, log]).toEqual([1, 2, ['call a', 'call b']]);
    expect(side.address.url).toBe('http://127.0.0.1:1/mcp');
  });
});

describe('R-14.2 one run, several MCP sessions: a repeat in another session while the first is unanswered', () => {
  it('R-14.2 each call carries its MCP session and JSON-RPC id; the judged session calls the repeat runtime', async () => {
    let opener: ((id: string) => AgentSessionHandler) | null = null;
    const inner: ListeningAgentSide = {
      address: { url: 'http://127.0.0.1:1/mcp' },
      serve: async (open) => void (opener = open),
      close: async () => undefined,
    };
    const side = new OneRunAgentSide(inner);
    const upstream = new HeldUpstream([{ name: 'create_order', inputSchema: { type: 'object' } }]);
    const sink = new MemorySink();
    const judged = new JudgedSession({
      sessionId: 'run',
      scenario: { mode: 'none' },
      keyFields: ['idempotency_key'],
      catalog: { classOf: (name) => (name === 'create_order' ? 'write' : 'unclassified'), acceptsKey: () => false },
      upstream,
      upstreamTools: [{ name: 'create_order' }],
      classification: [],
      auditTools: false,
      callTimeoutMs: 60_000,
      harnessVersion: 'test',
      sink,
      clock: new TestClock(),
      random: fixedRandom(0.99),
      logger: SILENT_LOGGER,
      onFatal: () => undefined,
      onUpstreamTooLarge: () => undefined,
      onClosed: () => undefined,
    });
    await side.serve(() => judged, OPTIONS);
    const first = opener!('s1');
    const second = opener!('s2');
    const signal = new AbortController().signal;
    const order = { name: 'create_order', arguments: { item: 'pen' } };
    // The framework's first session is still waiting when the same write comes in its second one.
    const one = first.callTool(order, { signal, requestId: 1 });
    await upstream.received(1);
    const two = second.callTool(order, { signal, requestId: 1 });
    const held = await upstream.received(2);
    for (const call of held) call.answer(okResult());
    await Promise.all([one, two]);
    await judged.end(0);
    const attribution = sink.last!['report'].attribution as Array<{
      session: number;
      source: string;
      evidence: Record<string, unknown>;
    }>;
    expect(
      attribution.map((a) => [
        a.session,
        a.source,
        a.evidence['earlierSession'],
        a.evidence['signal'],
        a.evidence['earlierDelivered'],
      ]),
    ).toEqual([[2, 'runtime', 1, 'other-session-unanswered', false]]);
  });
});
