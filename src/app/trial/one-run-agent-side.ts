/**
 * All MCP sessions of one agent program's run are one agent: some frameworks open a new MCP session per
 * tool call, or one to list the tools and another to call them. This agent side (a decorator of the
 * listener) hands every session of the run the same session handler, so the run is judged as one
 * evaluation and one report — the proxy's rule "never two agents in one verdict" still holds, because a
 * run has exactly one agent. Sessions that close do not end the evaluation; the run's end does. Each call
 * carries the number of its MCP session, for the attribution of repeats.
 */
import type { AgentSessionHandler, AgentSide, AgentSideOptions } from '../../ports/agent-side.port.js';
import type { ListeningAgentSide } from './trial-deps.js';

export class OneRunAgentSide implements ListeningAgentSide {
  /** How many MCP sessions the agent opened in this run. */
  sessions = 0;
  /** How many of them the agent ended itself (Streamable HTTP: DELETE) before the run's end closed them. */
  sessionsClosedByAgent = 0;

  constructor(private readonly inner: ListeningAgentSide) {}

  get address(): { url: string } {
    return this.inner.address;
  }

  serve(openSession: (sessionId: string) => AgentSessionHandler, options: AgentSideOptions): Promise<void> {
    let shared: AgentSessionHandler | null = null;
    return this.inner.serve((sessionId) => {
      // each call says which MCP session of the run it came in (a repeat in another one while the
      // first is unanswered is the runtime's).
      const mcpSession = ++this.sessions;
      const handler = (shared ??= openSession(sessionId));
      return {
        listTools: () => handler.listTools(),
        callTool: (request, context) => handler.callTool(request, { ...context, mcpSession }),
        ...(handler.forward === undefined ? {} : { forward: handler.forward.bind(handler) }),
        ...(handler.attach === undefined ? {} : { attach: handler.attach.bind(handler) }),
        ...(handler.notified === undefined ? {} : { notified: handler.notified.bind(handler) }),
        closed: (reason) => {
          if (reason.byAgent === true) this.sessionsClosedByAgent++;
        },
      };
    }, options);
  }

  close(): ReturnType<AgentSide['close']> {
    return this.inner.close();
  }
}
