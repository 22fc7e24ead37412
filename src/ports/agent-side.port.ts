import type { ToolCallRequest, ToolCallResult, ToolDescriptor } from './mcp-shapes.js';

/** Handles the requests of one connected agent (one MCP session). */
export interface AgentSessionHandler {
  /** Answers `tools/list`. The proxy serves every tool in one page. */
  listTools(): Promise<ToolDescriptor[]>;
  /**
   * Answers `tools/call`. Always resolves with a tool result (errors become `isError` results);
   * `signal` aborts when the agent cancels the request; `progress` (when the agent asked for progress
   * with `_meta.progressToken`) passes the upstream's `notifications/progress` params on to the agent.
   * `requestId`: the call's JSON-RPC request id (absent in process); `mcpSession`: the MCP session it came
   * in, 1-based, when several MCP sessions share one handler (a trial run of an agent program); absent: 1.
   */
  callTool(request: ToolCallRequest, context: CallContext): Promise<ToolCallResult>;
  /**
   * Optional: answers a request that is not about tools (`resources/list`, `prompts/get`,
   * `completion/complete`, `logging/setLevel`, `ping`), forwarded to the upstream as it came. Resolves with
   * the upstream's result, or the error to send back (the upstream's own JSON-RPC error, unchanged).
   */
  forward?(method: string, params: Record<string, unknown>, context: { signal: AbortSignal }): Promise<ForwardedAnswer>;
  /** The agent's session ended (disconnect, transport failure, oversized message). */
  closed(reason: AgentCloseReason): void;
}

/** What the agent side knows of one `tools/call` besides the request itself. */
export interface CallContext {
  signal: AbortSignal;
  progress?: (params: Record<string, unknown>) => void;
  requestId?: string | number;
  mcpSession?: number;
}

/** How a forwarded non-tool request ended: the upstream's result, or a JSON-RPC error for the agent. */
export type ForwardedAnswer = { result: Record<string, unknown> } | { error: { code: number; message: string; data?: unknown } };

export interface AgentCloseReason {
  kind: 'disconnected' | 'transport-error' | 'message-too-large' | 'output-closed';
  detail?: string;
  /** The agent ended the session itself (Streamable HTTP: its DELETE), not the proxy nor a broken connection. */
  byAgent?: boolean;
}

export interface AgentSideOptions {
  /** The upstream's instructions, passed on in the initialize result. */
  instructions?: string;
  serverName: string;
  serverVersion: string;
  /**
   * the upstream's capabilities besides tools (`resources`, `prompts`, `completions`, `logging`, …),
   * declared to the agent as the upstream declared them; the session's `forward` answers their requests.
   * Absent: tools only.
   */
  capabilities?: Record<string, unknown>;
}

/**
 * Where agents connect: stdio (one agent) or a network listener (one handler per MCP session).
 */
export interface AgentSide {
  /** Starts serving; `openSession` is called once per agent session. Resolves when ready. */
  serve(openSession: (sessionId: string) => AgentSessionHandler, options: AgentSideOptions): Promise<void>;
  /** Stops accepting and closes open sessions. */
  close(): Promise<void>;
  /**
   * Optional: starts watching the connection before `serve` (stdio: one agent that is already there), so
   * an agent that leaves during start-up ends the proxy and its upstream at once.
   */
  watchBeforeServe?(onGone: (reason: AgentCloseReason) => void): void;
}
