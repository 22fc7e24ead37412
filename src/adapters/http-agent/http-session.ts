import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { AgentSessionHandler, AgentSideOptions } from '../../ports/agent-side.port.js';
import type { Logger } from '../../ports/logger.port.js';
import { createForwardingServer } from '../mcp-server-factory.js';

/** What every session of one listener shares. */
export interface HttpSessionContext {
  openSession: (sessionId: string) => AgentSessionHandler;
  options: AgentSideOptions;
  logger: Logger;
  /** The largest request body in bytes; a larger one is answered 413 by the SDK. */
  maxBodyBytes: number;
  /** Called once the `initialize` request created the session id and its handler. */
  onOpened: (sessionId: string, session: HttpSession) => void;
  /** Called once when an opened session ended. */
  onEnded: (sessionId: string) => void;
  /** True while the listener is shutting down: no new session may open. */
  isShuttingDown: () => boolean;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * One candidate MCP session over Streamable HTTP. It is created for a POST without a session id and
 * becomes a session only if that POST is an `initialize`: only then are the handler (`openSession`) and
 * the SDK `Server` made. Its handler hears `closed({ kind: 'disconnected' })` exactly once, whether the
 * agent sent DELETE or the proxy closed it.
 */
export class HttpSession {
  private readonly transport: StreamableHTTPServerTransport;
  private opened: { sessionId: string; handler: AgentSessionHandler } | undefined;
  private ended = false;
  private endDetail = 'closed by the proxy';

  constructor(private readonly context: HttpSessionContext) {
    this.transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      maxRequestBodySize: context.maxBodyBytes,
      onsessioninitialized: (sessionId) => this.open(sessionId),
      onsessionclosed: () => {
        this.endDetail = 'the agent ended the session (DELETE)';
      },
    });
    // Set before the SDK connects, so it runs before the SDK aborts the requests in flight.
    this.transport.onclose = () => this.end();
  }

  /** Lets the SDK transport answer one HTTP request of this session. */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    await this.transport.handleRequest(req, res);
  }

  /** Ends the session from the proxy's side. */
  async close(): Promise<void> {
    await this.transport.close();
  }

  private async open(sessionId: string): Promise<void> {
    if (this.context.isShuttingDown()) throw new Error('the proxy is shutting down');
    const handler = this.context.openSession(sessionId);
    this.opened = { sessionId, handler };
    const logger = this.context.logger;
    const server = createForwardingServer(handler, this.context.options, { logger, isClosed: () => this.ended });
    await server.connect(this.transport);
    logger.info({ sessionId }, 'agent session opened');
    this.context.onOpened(sessionId, this);
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.opened === undefined) return;
    const { sessionId, handler } = this.opened;
    this.context.logger.info({ sessionId, detail: this.endDetail }, 'agent session ended');
    try {
      handler.closed({ kind: 'disconnected', detail: this.endDetail });
    } catch (error) {
      this.context.logger.error({ error: describe(error) }, 'session close handler threw');
    }
    this.context.onEnded(sessionId);
  }
}
