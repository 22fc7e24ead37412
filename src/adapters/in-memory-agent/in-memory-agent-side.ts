/**
 * An agent side in the same process: the `trial` command's built-in agent loop connects here and calls
 * tools as an MCP client would, through the {@link AgentSessionHandler} the proxy opened for it — the same
 * judging pipeline as an agent over stdio or HTTP, without a transport in between.
 */
import type { AgentSessionHandler, AgentSide, AgentSideOptions } from '../../ports/agent-side.port.js';
import type { ToolCallRequest, ToolCallResult, ToolDescriptor } from '../../ports/shapes/mcp-shapes.js';

/** One connected in-process agent: `tools/list`, `tools/call`, and leaving. */
export interface InMemoryAgentConnection {
  listTools(): Promise<ToolDescriptor[]>;
  callTool(request: ToolCallRequest): Promise<ToolCallResult>;
  /** The agent leaves (as stdin EOF would); calls still in flight are aborted by the side's close. */
  disconnect(): void;
}

export class InMemoryAgentSide implements AgentSide {
  private openSession: ((sessionId: string) => AgentSessionHandler) | null = null;
  private readonly aborts = new Set<AbortController>();
  private closed = false;

  async serve(openSession: (sessionId: string) => AgentSessionHandler, _options: AgentSideOptions): Promise<void> {
    this.openSession = openSession;
  }

  /** Opens one agent session; `serve` must have been called (the proxy started). */
  connect(sessionId: string): InMemoryAgentConnection {
    if (this.openSession === null) throw new Error('the in-memory agent side is not serving yet');
    if (this.closed) throw new Error('the in-memory agent side is closed');
    const handler = this.openSession(sessionId);
    let gone = false;
    return {
      listTools: () => handler.listTools(),
      callTool: async (request) => {
        if (gone) throw new Error('the agent has disconnected');
        const abort = new AbortController();
        this.aborts.add(abort);
        try {
          return await handler.callTool(request, { signal: abort.signal });
        } finally {
          this.aborts.delete(abort);
        }
      },
      disconnect: () => {
        if (gone) return;
        gone = true;
        handler.closed({ kind: 'disconnected' });
      },
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const abort of this.aborts) abort.abort(new Error('the agent side closed'));
    this.aborts.clear();
  }
}
