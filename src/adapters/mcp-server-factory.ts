import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ErrorCode, ListToolsRequestSchema, type JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import type { AgentSessionHandler, AgentSideOptions } from '../ports/agent-side.port.js';
import type { Logger } from '../ports/logger.port.js';
import type { ToolCallRequest } from '../ports/mcp-shapes.js';

/** What a forwarding server needs from the adapter that owns its session. */
export interface ForwardingServerContext {
  logger: Logger;
  /** True once the agent's session has ended; the SDK's abort on close is then not passed on. */
  isClosed: () => boolean;
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
function cancelOnlySignal(sdkSignal: AbortSignal, isClosed: () => boolean): AbortSignal {
  const controller = new AbortController();
  const follow = (): void => {
    if (!isClosed()) controller.abort(sdkSignal.reason);
  };
  if (sdkSignal.aborted) follow();
  else sdkSignal.addEventListener('abort', follow, { once: true });
  return controller.signal;
}

/**
 * Builds the SDK's low-level `Server` for one agent session, not yet connected. It answers `initialize`
 * (with the upstream's instructions) and `ping` itself; `tools/list` and `tools/call` go to `handler`,
 * `tools/call` through `fallbackRequestHandler` so the SDK neither strips nor re-validates anything.
 * Every other method is answered `-32601 Method not found`. The caller reports the session's end to
 * `handler.closed` and keeps `context.isClosed` true from that moment on.
 */
export function createForwardingServer(
  handler: AgentSessionHandler,
  options: AgentSideOptions,
  context: ForwardingServerContext,
): Server {
  const server = new Server(
    { name: options.serverName, version: options.serverVersion },
    { capabilities: { tools: {} }, ...(options.instructions !== undefined ? { instructions: options.instructions } : {}) },
  );
  server.onerror = (error) => context.logger.debug({ error: error.message }, 'MCP server notice');
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await handler.listTools() }));
  server.fallbackRequestHandler = async (request, extra) => {
    if (request.method !== 'tools/call') throw rpcError(ErrorCode.MethodNotFound, 'Method not found');
    const signal = cancelOnlySignal(extra.signal, context.isClosed);
    const call = toolCallRequest(request);
    // The agent asked for progress: the upstream's notifications for this call go back to it, on the
    // call's own stream over HTTP (the SDK relates them to the request).
    const progress =
      call.meta?.['progressToken'] === undefined
        ? undefined
        : (params: Record<string, unknown>) =>
            void extra
              .sendNotification({ method: 'notifications/progress', params })
              .catch((error: unknown) => context.logger.debug({ err: String(error) }, 'progress not passed on'));
    // the request id lets the session see the same JSON-RPC request sent again.
    const requestId = extra.requestId;
    return await handler.callTool(call, progress === undefined ? { signal, requestId } : { signal, progress, requestId });
  };
  return server;
}
