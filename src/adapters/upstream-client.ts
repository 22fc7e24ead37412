/** Pieces both upstream adapters (stdio and Streamable HTTP) share around the SDK `Client`. */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ToolCallRequest } from '../ports/mcp-shapes.js';
import type { UpstreamInfo } from '../ports/upstream-side.port.js';

/** The instructions and server name/version from the initialize result. */
export function upstreamInfo(client: Client): UpstreamInfo {
  const info: UpstreamInfo = {};
  const instructions = client.getInstructions();
  const version = client.getServerVersion();
  if (instructions !== undefined) info.instructions = instructions;
  if (version?.name !== undefined) info.serverName = version.name;
  if (version?.version !== undefined) info.serverVersion = version.version;
  return info;
}

/** The `tools/call` params exactly as the agent sent them: name, arguments and `_meta` when present. */
export function toolCallParams(request: ToolCallRequest): Record<string, unknown> {
  const params: Record<string, unknown> = { name: request.name };
  if (request.arguments !== undefined) params['arguments'] = request.arguments;
  if (request.meta !== undefined) params['_meta'] = request.meta;
  return params;
}
