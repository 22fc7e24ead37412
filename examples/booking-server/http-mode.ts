import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

/** A running HTTP endpoint. */
export interface HttpEndpoint {
  /** `http://127.0.0.1:<port>/mcp`, with the port actually bound. */
  url: string;
  /** Closes every session and the listening socket. */
  close(): Promise<void>;
}

function sendError(res: ServerResponse, status: number, message: string): void {
  const body = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message } });
  res.writeHead(status, { 'content-type': 'application/json' }).end(body);
}

/**
 * Serves MCP over Streamable HTTP on 127.0.0.1 at `/mcp` with stateful sessions: an `initialize` POST
 * without a session id opens a session (id from `randomUUID`), later requests carry `Mcp-Session-Id`.
 * Only Host headers naming this loopback address are accepted (DNS-rebinding protection).
 */
export async function serveHttp(port: number, newSessionServer: () => Server): Promise<HttpEndpoint> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const allowedHosts = new Set<string>();

  async function openSession(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, transport),
    });
    transport.onclose = () => void (transport.sessionId !== undefined && sessions.delete(transport.sessionId));
    const server = newSessionServer();
    await server.connect(transport);
    await transport.handleRequest(req, res);
    if (transport.sessionId === undefined) await server.close(); // not an initialize: nothing to keep
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if ((req.url ?? '').split('?')[0] !== '/mcp') return sendError(res, 404, 'Not found: use /mcp');
    if (!allowedHosts.has(req.headers.host ?? '')) return sendError(res, 403, 'Forbidden Host header');
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const transport = sessions.get(sessionId);
      if (transport === undefined) return sendError(res, 404, 'Session not found');
      return transport.handleRequest(req, res);
    }
    if (req.method !== 'POST') return sendError(res, 400, 'Mcp-Session-Id header is required');
    return openSession(req, res);
  }

  const httpServer = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      process.stderr.write(`booking-server: HTTP request failed: ${String(error)}\n`);
      if (!res.headersSent) sendError(res, 500, 'Internal server error');
    });
  });
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(port, '127.0.0.1', resolve);
  });
  const bound = (httpServer.address() as AddressInfo).port;
  allowedHosts.add(`127.0.0.1:${bound}`).add(`localhost:${bound}`);
  return {
    url: `http://127.0.0.1:${bound}/mcp`,
    async close() {
      await Promise.allSettled([...sessions.values()].map((transport) => transport.close()));
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}
