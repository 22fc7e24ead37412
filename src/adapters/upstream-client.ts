/** Pieces both upstream adapters (stdio and Streamable HTTP) share around the SDK `Client`. */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Logger } from '../ports/logger.port.js';
import type { ToolCallRequest } from '../ports/mcp-shapes.js';
import type { UpstreamExit, UpstreamInfo } from '../ports/upstream-side.port.js';

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

/**
 * "The upstream went away", reported once: listeners added later hear it at once (asynchronously), and a
 * failing listener is logged, never thrown into the adapter.
 */
export class ExitNotice {
  private exit: UpstreamExit | undefined;
  private readonly listeners: Array<(exit: UpstreamExit) => void> = [];

  constructor(private readonly logger: Logger | undefined) {}

  /** The exit, once it happened. */
  get report(): UpstreamExit | undefined {
    return this.exit;
  }

  listen(listener: (exit: UpstreamExit) => void): void {
    this.listeners.push(listener);
    const exit = this.exit;
    if (exit !== undefined) queueMicrotask(() => this.notify(listener, exit));
  }

  /** Records the exit and tells every listener; later calls are ignored. */
  fire(exit: UpstreamExit): void {
    if (this.exit !== undefined) return;
    this.exit = exit;
    for (const listener of this.listeners) this.notify(listener, exit);
  }

  private notify(listener: (exit: UpstreamExit) => void, exit: UpstreamExit): void {
    try {
      listener(exit);
    } catch (error) {
      this.logger?.error({ err: error instanceof Error ? error.message : String(error) }, 'upstream exit listener failed');
    }
  }
}
