import type { Readable, Writable } from 'node:stream';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ErrorCode,
  ListToolsRequestSchema,
  type JSONRPCRequest,
  type ListToolsResult,
  type ServerResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { AgentSessionHandler, AgentSide, AgentSideOptions } from '../../ports/agent-side.port.js';
import type { Logger } from '../../ports/logger.port.js';
import type { ToolCallRequest } from '../../ports/mcp-shapes.js';
import { LineTransport } from './line-transport.js';
import { silentLogger } from './silent-logger.js';

/** The default limit for one inbound message: 10 MiB, like the SDK's stdio transport. */
export const DEFAULT_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/** The session id given to `openSession`: stdio carries exactly one session. */
export const STDIO_SESSION_ID = 'stdio';

/** Settings of a {@link StdioAgentSide}. */
export interface StdioAgentSideOptions {
  /** The largest inbound message in bytes (default 10 MiB); a longer one ends the session. */
  maxMessageBytes?: number;
  logger?: Logger;
}

/** A JSON-RPC error for the SDK to send: a plain `Error` with `code` keeps the message unprefixed. */
function rpcError(code: number, message: string): Error {
  return Object.assign(new Error(message), { code });
}

/** The raw `tools/call` params as the agent sent them (no schema parse: unknown keys survive). */
function toolCallRequest(request: JSONRPCRequest): ToolCallRequest {
  const params: Record<string, unknown> = request.params ?? {};
  const name = params['name'];
  if (typeof name !== 'string') throw rpcError(ErrorCode.InvalidParams, 'tools/call needs a string "name"');
  const meta = request.params?._meta;
  return {
    name,
    ...(Object.hasOwn(params, 'arguments') ? { arguments: params['arguments'] } : {}),
    ...(meta !== undefined ? { meta } : {}),
  };
}

/**
 * A signal that aborts only when the agent cancels the request. The SDK's own signal also aborts when
 * the session ends; that is reported through `closed()` instead, so answers still in flight upstream
 * can complete and be recorded.
 */
function cancelOnlySignal(sdkSignal: AbortSignal, transport: LineTransport): AbortSignal {
  const controller = new AbortController();
  const follow = (): void => {
    if (!transport.isClosed) controller.abort(sdkSignal.reason);
  };
  if (sdkSignal.aborted) follow();
  else sdkSignal.addEventListener('abort', follow, { once: true });
  return controller.signal;
}

/**
 * The agent side for one agent on stdio (or any pair of streams). The SDK's low-level `Server` answers
 * `initialize` and `ping`; `tools/list` and `tools/call` are forwarded verbatim to the session handler,
 * `tools/call` through `fallbackRequestHandler` so the SDK neither strips nor re-validates anything.
 */
export class StdioAgentSide implements AgentSide {
  private server: Server | undefined;
  private readonly maxMessageBytes: number;
  private readonly logger: Logger;

  constructor(
    private readonly io: { stdin: Readable; stdout: Writable },
    options: StdioAgentSideOptions = {},
  ) {
    this.maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.logger = options.logger ?? silentLogger;
  }

  /** Opens the one session and starts reading; resolves once the transport is started. */
  async serve(openSession: (sessionId: string) => AgentSessionHandler, options: AgentSideOptions): Promise<void> {
    if (this.server !== undefined) throw new Error('StdioAgentSide is already serving');
    const handler = openSession(STDIO_SESSION_ID);
    const server = new Server(
      { name: options.serverName, version: options.serverVersion },
      { capabilities: { tools: {} }, ...(options.instructions !== undefined ? { instructions: options.instructions } : {}) },
    );
    this.server = server;
    const transport = new LineTransport(this.io, {
      maxMessageBytes: this.maxMessageBytes,
      logger: this.logger,
      onClosed: (reason) => handler.closed(reason),
    });
    server.onerror = (error) => this.logger.debug({ error: error.message }, 'MCP server notice');
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await handler.listTools() }) as ListToolsResult);
    server.fallbackRequestHandler = async (request, extra) => {
      if (request.method !== 'tools/call') throw rpcError(ErrorCode.MethodNotFound, 'Method not found');
      const signal = cancelOnlySignal(extra.signal, transport);
      return (await handler.callTool(toolCallRequest(request), { signal })) as ServerResult;
    };
    await server.connect(transport);
  }

  /** Closes the session (its handler hears `closed` once, as `disconnected` by the proxy). */
  async close(): Promise<void> {
    await this.server?.close();
  }
}
