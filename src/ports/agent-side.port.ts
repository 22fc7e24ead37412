import type { ToolCallRequest, ToolCallResult, ToolDescriptor } from './shapes/mcp-shapes.js';

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
  forward?(
    method: string,
    params: Record<string, unknown>,
    context: { signal: AbortSignal; peer?: AgentPeer },
  ): Promise<ForwardedAnswer>;
  /**
   * Optional: the agent has initialized its session; `peer` sends it what the upstream sends that
   * belongs to no call in flight (logging, list changes, resource updates, requests such as `roots/list`).
   */
  attach?(peer: AgentPeer): void;
  /**
   * Optional: a notification the agent sent that the upstream should get (`notifications/roots/list_changed`);
   * cancellations are not among them (they abort the request's signal).
   */
  notified?(method: string, params: Record<string, unknown> | undefined): void;
  /** The agent's session ended (disconnect, transport failure, oversized message). */
  closed(reason: AgentCloseReason): void;
}

/** What the agent side knows of one `tools/call` besides the request itself. */
export interface CallContext {
  signal: AbortSignal;
  progress?: (params: Record<string, unknown>) => void;
  requestId?: string | number;
  mcpSession?: number;
  /**
   * the agent, as seen from this call: what the upstream sends while the call is in flight goes out
   * related to it (over Streamable HTTP: on the call's own stream). Absent: the agent side relates nothing.
   */
  peer?: AgentPeer;
}

/**
 * what the proxy sends the agent on the upstream's behalf. `notify` passes a notification on;
 * `request` asks the agent (`sampling/createMessage`, `elicitation/create`, `roots/list`) and resolves with
 * its answer or the error to give the upstream, never rejecting: a capability the agent did not declare
 * gets the SDK's own refusal at once, an agent that does not answer gets the time-out after `timeoutMs`,
 * and an aborted `signal` (the upstream cancelled) cancels the request at the agent.
 */
export interface AgentPeer {
  notify(method: string, params: Record<string, unknown> | undefined): Promise<void>;
  request(
    method: string,
    params: Record<string, unknown> | undefined,
    options: { signal: AbortSignal; timeoutMs: number },
  ): Promise<ForwardedAnswer>;
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
   * declared to the agent as the upstream declared them (with `listChanged` and `subscribe`: their
   * notifications are passed on); the session's `forward` answers their requests. Absent: tools only.
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
