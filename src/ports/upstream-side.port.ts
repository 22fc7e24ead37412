import type { AgentPeer } from './agent-side.port.js';
import type { ToolCallRequest, ToolCallResult, ToolDescriptor } from './shapes/mcp-shapes.js';

/** What the upstream told us about itself when the connection was made. */
export interface UpstreamInfo {
  /** The upstream's `instructions` from its initialize result, passed on to the agent unchanged. */
  instructions?: string;
  serverName?: string;
  serverVersion?: string;
  /**
   * The capabilities from the upstream's initialize result, verbatim. Absent: an upstream that offers
   * tools only (the simulated backend, a replayed recording).
   */
  capabilities?: Record<string, unknown>;
}

/**
 * How one forwarded call ended, as seen from the proxy. The three error layers stay apart:
 * a `result` (possibly with `isError`) is an answer; a `protocol-error` is a JSON-RPC error reply;
 * everything else means there was no usable answer and the call may or may not have executed.
 */
export type UpstreamCallOutcome =
  | { kind: 'result'; result: ToolCallResult }
  | { kind: 'protocol-error'; code: number; message: string; data?: unknown }
  | { kind: 'timeout'; afterMs: number }
  | { kind: 'connection-lost'; detail: string }
  | { kind: 'too-large'; detail: string }
  | { kind: 'invalid-answer'; detail: string }
  | { kind: 'unavailable'; detail: string }
  /** The request could not even be serialised or written (e.g. arguments nested too deeply): not executed. */
  | { kind: 'not-sent'; detail: string }
  /** A recording replayed in place of the upstream (`--upstream-replay`) holds no answer for this call: not executed. */
  | { kind: 'replay-miss'; detail: string };

export interface UpstreamCallOptions {
  /** How long to wait for the answer before giving up (the product waits 60 s). */
  timeoutMs: number;
  /** Aborted when the agent cancels the request or the session ends. */
  signal?: AbortSignal;
  /**
   * Told each `notifications/progress` the upstream sends for this call (the `_meta.progressToken` the
   * agent gave it), with its params as sent, while the call is in flight.
   */
  onProgress?: (params: Record<string, unknown>) => void;
  /**
   * the agent of this call. The upstream's notifications and requests (logging, sampling,
   * elicitation, roots) sent while this is the request in flight go to it, related to the call.
   */
  peer?: AgentPeer;
}

/** Why the upstream went away. `expected` is true when we closed it ourselves. */
export interface UpstreamExit {
  expected: boolean;
  code: number | null;
  signal: string | null;
  /**
   * Why, in the upstream's own words, for the crash message: the last lines a process wrote to its stderr,
   * or the failure that ended a network connection (e.g. `HTTP 404 Not Found (the session is gone)`);
   * '' when nothing is known.
   */
  detail: string;
}

/**
 * The real MCP server behind the proxy, whatever the transport (a spawned stdio process, a Streamable
 * HTTP endpoint, an in-memory simulated backend).
 */
export interface UpstreamSide {
  /** Starts or connects to the upstream and completes the MCP handshake. Rejects with a one-line reason. */
  connect(): Promise<UpstreamInfo>;
  /** Every tool the upstream lists, following all pages of a paginated list, verbatim. */
  listTools(): Promise<ToolDescriptor[]>;
  /** Forwards one `tools/call` verbatim. Never rejects: every way a call can end is an outcome. */
  callTool(request: ToolCallRequest, options: UpstreamCallOptions): Promise<UpstreamCallOutcome>;
  /**
   * Optional: forwards one request that is not a tool call (`resources/read`, `prompts/get`, …)
   * verbatim and tells how it ended, like `callTool`; never rejects. Sides that offer tools only leave it out.
   */
  forwardRequest?(method: string, params: Record<string, unknown>, options: UpstreamCallOptions): Promise<UpstreamCallOutcome>;
  /**
   * Optional: where the upstream's notifications and requests go when they belong to no request in
   * flight (or to one sent without a `peer`). Until it is set, they are dropped (notifications) or refused
   * (requests). Sides that offer tools only leave it out.
   */
  setPeer?(peer: AgentPeer): void;
  /** Optional: passes a notification of the agent's on (`notifications/roots/list_changed`). */
  notify?(method: string, params: Record<string, unknown> | undefined): Promise<void>;
  /** Registers a listener for the upstream going away (crash, exit, closed connection). */
  onExit(listener: (exit: UpstreamExit) => void): void;
  /** Ends the upstream: for a process, stdin close, grace period, SIGTERM, SIGKILL, whole process group. */
  close(): Promise<void>;
}
