/**
 * The plain-JSON shapes that cross the ports. They are deliberately loose: the proxy forwards what the
 * upstream and the agent send verbatim, so unknown fields must survive. No MCP SDK type appears here, so
 * a transport adapter can be written with or without the SDK.
 */

/** A tool as listed by an upstream's `tools/list`, verbatim (unknown fields kept). */
export interface ToolDescriptor {
  name: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
  [field: string]: unknown;
}

/** A `tools/call` result, verbatim (`content`, `isError`, `structuredContent`, `_meta`, extras). */
export interface ToolCallResult {
  content?: unknown[];
  isError?: boolean;
  structuredContent?: unknown;
  _meta?: Record<string, unknown>;
  [field: string]: unknown;
}

/** One `tools/call` request as the agent sent it. `arguments` is the raw, unparsed-by-schema value. */
export interface ToolCallRequest {
  name: string;
  arguments?: unknown;
  /** The request's `params._meta` (e.g. progressToken), if any. */
  meta?: Record<string, unknown>;
}
