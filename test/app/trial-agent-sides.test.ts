/**
 * The trial's agent sides: the in-process side the built-in loop calls through the session
 * handler, and the decorator that judges every MCP session of one program's run as one agent.
 */
import { describe, expect, it } from 'vitest';
import { InMemoryAgentSide } from '../../src/adapters/in-memory-agent/index.js';
import { OneRunAgentSide } from '../../src/app/trial/one-run-agent-side.js';
import type { ListeningAgentSide } from '../../src/app/trial/trial-deps.js';
import type { AgentCloseReason, AgentSessionHandler } from '../../src/ports/agent-side.port.js';

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
