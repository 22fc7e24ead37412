import { createServer, type IncomingMessage, type Server as NodeHttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AgentSessionHandler, AgentSide, AgentSideOptions } from '../../ports/agent-side.port.js';
import type { Logger } from '../../ports/logger.port.js';
import { silentLogger } from '../silent-logger.js';
import { defaultAllowedHosts, HostGuard } from './host-guard.js';
import { HttpSession } from './http-session.js';

/** The default request body limit: 10 MiB, like the stdio agent side. */
export const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;

/** The one path that serves MCP. */
export const MCP_PATH = '/mcp';

/** Settings of an {@link HttpAgentSide}. */
export interface HttpAgentSideOptions {
  /** The interface to bind, e.g. `127.0.0.1` (the CLI's default). */
  host: string;
  /** The port; 0 picks any free port (read it from `address` after `serve()`). */
  port: number;
  /** Accepted Host header values, `host:port`. Default: loopback names for a loopback bind, else host:port. */
  allowedHosts?: string[];
  logger?: Logger;
  /** The largest request body in bytes (default 10 MiB); a larger one is answered 413. */
  maxBodyBytes?: number;
}

/** Where the agent side listens, once serving. */
export interface HttpListenAddress {
  host: string;
  port: number;
  /** The MCP endpoint, e.g. `http://127.0.0.1:3000/mcp`. */
  url: string;
}

/** A JSON-RPC error answer in the shape the SDK's transport uses for HTTP-level refusals. */
function sendError(res: ServerResponse, status: number, code: number, message: string, headers = {}): void {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(body);
}

function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * Agents connect by URL: MCP Streamable HTTP at `/mcp` on `node:http`, stateful. Every `initialize`
 * opens a new MCP session with its own SDK transport, `Server` and handler from `openSession`, so two
 * agents' calls never meet in one handler. Requests are refused with 403 unless their Host header is
 * allowed and their Origin (if any) is loopback or allowed (DNS-rebinding protection).
 */
export class HttpAgentSide implements AgentSide {
  private readonly logger: Logger;
  private readonly maxBodyBytes: number;
  private readonly sessions = new Map<string, HttpSession>();
  private httpServer: NodeHttpServer | undefined;
  private listening: { address: HttpListenAddress; guard: HostGuard } | undefined;
  private shuttingDown = false;

  constructor(private readonly settings: HttpAgentSideOptions) {
    this.logger = settings.logger ?? silentLogger;
    this.maxBodyBytes = settings.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  }

  /** Where agents connect; available once `serve()` resolved. */
  get address(): HttpListenAddress {
    if (this.listening === undefined) throw new Error('HttpAgentSide is not serving');
    return this.listening.address;
  }

  /** Starts listening on host:port; resolves once bound. `openSession` runs once per MCP session. */
  async serve(openSession: (sessionId: string) => AgentSessionHandler, options: AgentSideOptions): Promise<void> {
    if (this.httpServer !== undefined) throw new Error('HttpAgentSide is already serving');
    const newSession = (): HttpSession =>
      new HttpSession({
        openSession,
        options,
        logger: this.logger,
        maxBodyBytes: this.maxBodyBytes,
        onOpened: (sessionId, session) => void this.sessions.set(sessionId, session),
        onEnded: (sessionId) => void this.sessions.delete(sessionId),
        isShuttingDown: () => this.shuttingDown,
      });
    const httpServer = createServer((req, res) => void this.answer(req, res, newSession));
    this.httpServer = httpServer;
    const { host, port } = this.settings;
    const bound = await new Promise<number>((resolve, reject) => {
      httpServer.once('error', (error) => {
        this.httpServer = undefined;
        reject(new Error(`cannot listen on ${host}:${port}: ${error.message}`));
      });
      httpServer.listen(port, host, () => resolve((httpServer.address() as AddressInfo).port));
    });
    const guard = new HostGuard(this.settings.allowedHosts ?? defaultAllowedHosts(host, bound));
    const url = `http://${urlHost(host)}:${bound}${MCP_PATH}`;
    this.listening = { address: { host, port: bound, url }, guard };
    this.logger.info({ url }, 'agent side listening');
  }

  /** Closes every session (each handler hears `closed` once), stops listening, drops idle connections. */
  async close(): Promise<void> {
    const httpServer = this.httpServer;
    if (httpServer === undefined || this.shuttingDown) return;
    this.shuttingDown = true;
    const stopped = new Promise<void>((resolve) => httpServer.close(() => resolve()));
    await Promise.allSettled([...this.sessions.values()].map((session) => session.close()));
    httpServer.closeAllConnections();
    await stopped;
  }

  private async answer(req: IncomingMessage, res: ServerResponse, newSession: () => HttpSession): Promise<void> {
    try {
      await this.route(req, res, newSession);
    } catch (error) {
      this.logger.error({ error: error instanceof Error ? error.message : String(error) }, 'HTTP request failed');
      if (!res.headersSent) sendError(res, 500, -32603, 'Internal error');
      else res.end();
    }
  }

  private async route(req: IncomingMessage, res: ServerResponse, newSession: () => HttpSession): Promise<void> {
    const guard = this.listening?.guard;
    if (guard === undefined || this.shuttingDown) return sendError(res, 503, -32000, 'The proxy is not serving');
    const refusal = guard.refusal({ host: req.headers.host, origin: req.headers.origin });
    if (refusal !== undefined) {
      this.logger.warn({ host: req.headers.host, origin: req.headers.origin }, 'request refused (DNS-rebinding protection)');
      return sendError(res, 403, -32000, refusal);
    }
    if ((req.url ?? '').split('?')[0] !== MCP_PATH) return sendError(res, 404, -32000, `Not found: use ${MCP_PATH}`);
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = this.sessions.get(sessionId);
      if (session === undefined) return sendError(res, 404, -32001, 'Session not found');
      return session.handle(req, res);
    }
    if (req.method === 'POST') return newSession().handle(req, res);
    if (req.method === 'GET' || req.method === 'DELETE') {
      return sendError(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    }
    return sendError(res, 405, -32000, 'Method not allowed.', { allow: 'GET, POST, DELETE' });
  }
}
