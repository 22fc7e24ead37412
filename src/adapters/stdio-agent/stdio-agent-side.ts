import type { Readable, Writable } from 'node:stream';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { AgentCloseReason, AgentSessionHandler, AgentSide, AgentSideOptions } from '../../ports/agent-side.port.js';
import type { Logger } from '../../ports/logger.port.js';
import { createForwardingServer } from '../agent-core/mcp-server-factory.js';
import { LineTransport } from './line-transport.js';
import { silentLogger } from '../logging/silent-logger.js';
import { MAX_MESSAGE_BYTES } from '../wire/message-limit.js';

/** The session id given to `openSession`: stdio carries exactly one session. */
export const STDIO_SESSION_ID = 'stdio';

/** Settings of a {@link StdioAgentSide}. */
export interface StdioAgentSideOptions {
  /** The largest inbound message in bytes (default 10 MiB); a longer one ends the session. */
  maxMessageBytes?: number;
  logger?: Logger;
}

/**
 * The agent side for one agent on stdio (or any pair of streams). The SDK's low-level `Server` answers
 * `initialize` and `ping`; `tools/list` and `tools/call` are forwarded verbatim to the session handler,
 * `tools/call` through `fallbackRequestHandler` so the SDK neither strips nor re-validates anything.
 */
export class StdioAgentSide implements AgentSide {
  private server: Server | undefined;
  private transport: LineTransport | undefined;
  /** Who hears that the session ended: the early watcher until `serve`, then the session handler. */
  private onClosed: (reason: AgentCloseReason) => void = () => undefined;
  private readonly maxMessageBytes: number;
  private readonly logger: Logger;

  constructor(
    private readonly io: { stdin: Readable; stdout: Writable },
    options: StdioAgentSideOptions = {},
  ) {
    this.maxMessageBytes = options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
    this.logger = options.logger ?? silentLogger;
  }

  /**
   * Starts reading before `serve`, so an agent that leaves while the upstream is still starting is
   * noticed; its early messages wait and are handled once the session is served.
   */
  watchBeforeServe(onGone: (reason: AgentCloseReason) => void): void {
    this.onClosed = onGone;
    void this.ensureTransport().start();
  }

  /** Opens the one session and starts reading; resolves once the transport is started. */
  async serve(openSession: (sessionId: string) => AgentSessionHandler, options: AgentSideOptions): Promise<void> {
    if (this.server !== undefined) throw new Error('StdioAgentSide is already serving');
    const handler = openSession(STDIO_SESSION_ID);
    this.onClosed = (reason) => handler.closed(reason);
    const transport = this.ensureTransport();
    if (transport.isClosed) {
      handler.closed({ kind: 'disconnected', detail: 'the agent left during start-up' });
      return;
    }
    const server = createForwardingServer(handler, options, { logger: this.logger, isClosed: () => transport.isClosed });
    this.server = server;
    await server.connect(transport);
  }

  /** Closes the session (its handler hears `closed` once, as `disconnected` by the proxy). */
  async close(): Promise<void> {
    if (this.server !== undefined) await this.server.close();
    else await this.transport?.close();
  }

  private ensureTransport(): LineTransport {
    this.transport ??= new LineTransport(this.io, {
      maxMessageBytes: this.maxMessageBytes,
      logger: this.logger,
      onClosed: (reason) => this.onClosed(reason),
    });
    return this.transport;
  }
}
