import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  ResultSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type JSONRPCRequest,
  type Result,
  type ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../../domain/error-message.js';
import type { AgentPeer, AgentSessionHandler, AgentSideOptions, ForwardedAnswer } from '../../ports/agent-side.port.js';
import type { Logger } from '../../ports/logger.port.js';
import type { ToolCallRequest } from '../../ports/shapes/mcp-shapes.js';

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
 * the requests forwarded as they are, by the capability the upstream declared for them. The SDK's
 * schemas parse each request (its params, `cursor` and `_meta` kept) and its capability check refuses a
 * handler whose capability is not declared. `resources/subscribe` and `unsubscribe` only when the upstream
 * declared `resources.subscribe`.
 */
const FORWARDED_BY_CAPABILITY = {
  resources: [ListResourcesRequestSchema, ReadResourceRequestSchema, ListResourceTemplatesRequestSchema],
  prompts: [ListPromptsRequestSchema, GetPromptRequestSchema],
  completions: [CompleteRequestSchema],
  logging: [SetLevelRequestSchema],
} as const;

/**
 * The capabilities declared to the agent: always `tools` (the proxy serves the tool list itself, with
 * `listChanged` when the upstream declared it: the proxy classifies the new list, then tells the agent),
 * and of the upstream's others those whose requests are forwarded, as the upstream declared them.
 */
function declaredCapabilities(upstream: Record<string, unknown> | undefined): ServerCapabilities {
  const tools = upstream?.['tools'];
  const listChanged = typeof tools === 'object' && tools !== null && (tools as Record<string, unknown>)['listChanged'] === true;
  const declared: Record<string, unknown> = { tools: listChanged ? { listChanged: true } : {} };
  for (const name of Object.keys(FORWARDED_BY_CAPABILITY)) {
    const offered = upstream?.[name];
    if (typeof offered === 'object' && offered !== null) declared[name] = { ...offered };
  }
  return declared;
}

/** The JSON-RPC error of a request to the agent that failed: its own error unchanged, or the SDK's refusal. */
function answerOfFailure(error: unknown): ForwardedAnswer {
  if (error instanceof McpError) {
    const message = error.message.replace(/^MCP error -?\d+: /, '');
    return { error: { code: error.code, message, ...(error.data !== undefined ? { data: error.data } : {}) } };
  }
  return { error: { code: ErrorCode.InternalError, message: errorMessage(error) } };
}

type SendNotification = (notification: { method: string; params?: Record<string, unknown> }) => Promise<void>;
type SendRequest = (
  request: { method: string; params?: Record<string, unknown> },
  schema: typeof ResultSchema,
  options: { signal: AbortSignal; timeout: number },
) => Promise<Result>;

/**
 * The agent as a peer: through the server itself (nothing related), or through a request's `extra` (the
 * SDK relates what is sent to that request: over Streamable HTTP it goes on the request's own stream).
 * The server's `enforceStrictCapabilities` makes a request the agent has no capability for fail at once.
 */
function peerOf(send: { notification: SendNotification; request: SendRequest }): AgentPeer {
  return {
    notify: (method, params) => send.notification({ method, ...(params !== undefined ? { params } : {}) }),
    request: (method, params, { signal, timeoutMs }) =>
      send
        .request({ method, ...(params !== undefined ? { params } : {}) }, ResultSchema, { signal, timeout: timeoutMs })
        .then((result): ForwardedAnswer => ({ result }), answerOfFailure),
  };
}

/** The agent as seen from one of its requests in flight: what is sent goes out related to it. */
function relatedPeer(extra: { sendNotification: unknown; sendRequest: unknown }): AgentPeer {
  return peerOf({ notification: extra.sendNotification as SendNotification, request: extra.sendRequest as SendRequest });
}

/** Registers the forwarding handler of every request whose capability is declared, and of `ping`. */
function forwardDeclared(
  server: Server,
  capabilities: ServerCapabilities,
  handler: AgentSessionHandler,
  context: ForwardingServerContext,
): void {
  const forward = handler.forward?.bind(handler);
  if (forward === undefined) return;
  const answer = async (
    method: string,
    params: Record<string, unknown> | undefined,
    extra: { signal: AbortSignal; sendNotification: unknown; sendRequest: unknown },
  ): Promise<Result> => {
    const signal = cancelOnlySignal(extra.signal, context.isClosed);
    const answered = await forward(method, params ?? {}, { signal, peer: relatedPeer(extra) });
    if ('error' in answered) {
      const { code, message, data } = answered.error;
      throw Object.assign(new Error(message), { code, ...(data !== undefined ? { data } : {}) });
    }
    return answered.result;
  };
  for (const [name, schemas] of Object.entries(FORWARDED_BY_CAPABILITY)) {
    if (!(name in capabilities)) continue;
    for (const schema of schemas) {
      server.setRequestHandler(schema, (request, extra) => answer(request.method, request.params, extra));
    }
  }
  if ((capabilities.resources as Record<string, unknown> | undefined)?.['subscribe'] === true) {
    for (const schema of [SubscribeRequestSchema, UnsubscribeRequestSchema]) {
      server.setRequestHandler(schema, (request, extra) => answer(request.method, request.params, extra));
    }
  }
  // The upstream's own answer to `ping` (the SDK would answer for it, even with the upstream gone).
  server.setRequestHandler(PingRequestSchema, (request, extra) => answer(request.method, request.params, extra));
}

/**
 * Builds the SDK's low-level `Server` for one agent session, not yet connected. It answers `initialize`
 * (with the upstream's instructions and the capabilities of `declaredCapabilities`); `tools/list` and
 * `tools/call` go to `handler`, `tools/call` through `fallbackRequestHandler` so the SDK neither strips
 * nor re-validates anything. The requests of the upstream's other capabilities and `ping` go to
 * `handler.forward` when it has one (else the SDK answers `ping` itself). Every other method is answered
 * `-32601 Method not found`. The caller reports the session's end to `handler.closed` and keeps
 * `context.isClosed` true from that moment on.
 */
export function createForwardingServer(
  handler: AgentSessionHandler,
  options: AgentSideOptions,
  context: ForwardingServerContext,
): Server {
  const capabilities = declaredCapabilities(handler.forward === undefined ? undefined : options.capabilities);
  const server = new Server(
    { name: options.serverName, version: options.serverVersion },
    {
      capabilities,
      // a request for a client capability the agent did not declare fails at once with the SDK's refusal.
      enforceStrictCapabilities: true,
      ...(options.instructions !== undefined ? { instructions: options.instructions } : {}),
    },
  );
  server.onerror = (error) => context.logger.debug({ error: error.message }, 'MCP server notice');
  forwardDeclared(server, capabilities, handler, context);
  // once the agent has initialized, the upstream's messages that belong to no call can reach it.
  if (handler.attach !== undefined) {
    const attach = handler.attach.bind(handler);
    server.oninitialized = () =>
      attach(
        peerOf({
          notification: (notification) => server.notification(notification),
          request: (request, schema, requestOptions) => server.request(request, schema, requestOptions),
        }),
      );
  }
  if (handler.notified !== undefined) {
    const notified = handler.notified.bind(handler);
    server.fallbackNotificationHandler = async (notification) => {
      if (notification.method === 'notifications/roots/list_changed') notified(notification.method, notification.params);
    };
  }
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
    const peer = relatedPeer(extra);
    return await handler.callTool(
      call,
      progress === undefined ? { signal, requestId, peer } : { signal, progress, requestId, peer },
    );
  };
  return server;
}
