/**
 * The one-line reason shown when the upstream could not be started or did not complete the MCP handshake.
 */
import { existsSync } from 'node:fs';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { describeExit, mcpErrorMessage, formatDuration, oneLine } from '../upstream-core/outcome-text.js';
import type { CloseCause } from './process-transport.js';
import type { ProcessExit } from './upstream-process.js';

/** Everything known when `connect()` failed. */
export interface StartFailure {
  command: string;
  cwd?: string;
  /** What `client.connect()` rejected with. */
  error: unknown;
  spawnError: NodeJS.ErrnoException | undefined;
  exit: ProcessExit | undefined;
  closeCause: CloseCause | undefined;
  /** The stderr line that tells why (`StderrTail.reasonLine`), '' when there is none. */
  lastStderrLine: string;
  connectTimeoutMs: number;
  /** True when `close()` was called while connecting. */
  closeRequested: boolean;
}

/** One line, e.g. `upstream command not found: no-such-binary`. */
export function describeStartFailure(failure: StartFailure): string {
  return oneLine(spawnFailure(failure) ?? handshakeFailure(failure), 500);
}

function spawnFailure({ spawnError, command, cwd }: StartFailure): string | undefined {
  if (spawnError === undefined) return undefined;
  if (spawnError.code === 'ENOENT' && cwd !== undefined && !existsSync(cwd)) {
    return `upstream working directory not found: ${cwd}`;
  }
  if (spawnError.code === 'ENOENT') return `upstream command not found: ${command}`;
  if (spawnError.code === 'EACCES') return `upstream command is not executable: ${command}`;
  return `could not start the upstream command ${command}: ${mcpErrorMessage(spawnError)}`;
}

function handshakeFailure(failure: StartFailure): string {
  const { error, exit, closeCause } = failure;
  const stderr = failure.lastStderrLine === '' ? '' : `: ${failure.lastStderrLine}`;
  if (failure.closeRequested) return 'upstream start-up was cancelled (the proxy is shutting down)';
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
    return `upstream did not answer initialize within ${formatDuration(failure.connectTimeoutMs)}`;
  }
  if (exit?.unprompted) return `upstream exited before the MCP handshake (${describeExit(exit)})${stderr}`;
  if (closeCause?.kind === 'too-large') return `upstream handshake failed: ${closeCause.detail}`;
  if (closeCause?.kind === 'eof') return `upstream closed its stdout before the MCP handshake${stderr}`;
  return `upstream MCP handshake failed: ${mcpErrorMessage(error)}`;
}
