import type { AgentCloseReason, AgentSessionHandler, AgentSide, AgentSideOptions } from '../../ports/agent-side.port.js';

/**
 * An agent side whose module is loaded in the background: the proxy starts the upstream first and loads
 * the agent side's dependencies (the SDK server, ~150 ms) while the upstream process boots.
 */
export class DeferredAgentSide implements AgentSide {
  private readonly real: Promise<AgentSide>;

  constructor(load: () => Promise<AgentSide>) {
    this.real = new Promise((resolve) => setImmediate(resolve)).then(load);
  }

  watchBeforeServe(onGone: (reason: AgentCloseReason) => void): void {
    void this.real.then((side) => side.watchBeforeServe?.(onGone));
  }

  async serve(openSession: (sessionId: string) => AgentSessionHandler, options: AgentSideOptions): Promise<void> {
    return (await this.real).serve(openSession, options);
  }

  async close(): Promise<void> {
    return (await this.real).close();
  }
}
